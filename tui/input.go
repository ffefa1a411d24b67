package tui

import (
	"strings"
	"time"

	"github.com/gdamore/tcell/v2"
)

// HandleEvent processes one input event from tcell's parser: keys, pastes and resizes.
func (a *App) HandleEvent(ev tcell.Event) {
	a.mu.Lock()
	var after func()
	switch ev := ev.(type) {
	case *tcell.EventPaste:
		after = a.paste(ev.Start())
	case *tcell.EventKey:
		if a.pasting != nil {
			a.pasteKey(ev)
			break
		}
		if a.modal != nil {
			w, _ := a.r.Size()
			ev := normalizeKey(ev)
			a.modal.key(ev, a.opts.Keys.Action(ev), w)
			after = a.modal.searchDue(a)
			break
		}
		after = a.key(normalizeKey(ev))
		a.complete.update(a.editor, a.opts.Commands)
	case *tcell.EventResize:
		w, h := ev.Size()
		a.r.Resize(w, h)
	}
	a.requestRender()
	a.unlockAsync()
	if after != nil {
		after()
	}
}

// normalizeKey maps the forms terminals send for control keys under the kitty and
// modifyOtherKeys protocols, and with Alt (ESC prefix), to one form: Ctrl+letter as tcell's
// KeyCtrlA…KeyCtrlZ, and Ctrl+M / Ctrl+I as Enter and Tab (ESC CR is how most terminals send
// Alt+Enter, and tcell reports it as Ctrl+Alt+M).
func normalizeKey(ev *tcell.EventKey) *tcell.EventKey {
	r, mods := ev.Rune(), ev.Modifiers()
	k := ev.Key()
	if k == tcell.KeyRune && mods&tcell.ModCtrl != 0 && r >= 'a' && r <= 'z' {
		k, mods = tcell.KeyCtrlA+tcell.Key(r-'a'), mods&^tcell.ModCtrl
	} else if k >= tcell.KeyCtrlA && k <= tcell.KeyCtrlZ {
		mods &^= tcell.ModCtrl
	} else {
		return ev
	}
	switch k {
	case tcell.KeyCtrlM:
		return tcell.NewEventKey(tcell.KeyEnter, 0, mods)
	case tcell.KeyCtrlI:
		return tcell.NewEventKey(tcell.KeyTab, 0, mods)
	}
	return tcell.NewEventKey(k, 0, mods|tcell.ModCtrl)
}

func (a *App) paste(start bool) func() {
	if start {
		a.pasting = &strings.Builder{}
		return nil
	}
	if a.pasting != nil {
		target := a.editor
		if a.modal != nil && a.modal.input != nil {
			target = a.modal.input
		}
		text := a.pasting.String()
		a.pasting = nil
		if after, ok := a.pastedPath(target, text); ok {
			return after
		}
		target.Paste(text)
	}
	return nil
}

// pasteKey collects a key inside a bracketed paste: tcell reports pasted text as keys.
func (a *App) pasteKey(ev *tcell.EventKey) {
	switch ev.Key() {
	case tcell.KeyRune:
		a.pasting.WriteRune(ev.Rune())
	case tcell.KeyEnter, tcell.KeyCtrlJ:
		a.pasting.WriteByte('\n')
	case tcell.KeyTab:
		a.pasting.WriteByte('\t')
	}
}

// key handles one key press and returns the callback to run once the lock is released.
func (a *App) key(ev *tcell.EventKey) func() {
	action := a.opts.Keys.Action(ev)
	if a.status == quitHint && action != "clear" {
		a.status = ""
	}
	if f := a.popupKey(ev); f {
		return nil
	}
	if f, handled := a.appAction(action); handled {
		return f
	}
	if f, ok := a.shortcutKey(KeyName(ev), action); ok {
		return f
	}
	width, _ := a.r.Size()
	typeKey(a.editor, ev, action, width)
	return nil
}

// typeKey edits e: the editing action a key runs, or the character it types.
func typeKey(e *Editor, ev *tcell.EventKey, action string, width int) {
	if !editAction(e, action, width) && ev.Key() == tcell.KeyRune && ev.Modifiers()&(tcell.ModCtrl|tcell.ModAlt) == 0 {
		e.Insert(string(ev.Rune()))
	}
}

// appAction runs the actions beyond editing; it reports whether action is one of them.
func (a *App) appAction(action string) (after func(), handled bool) {
	e := a.editor
	switch action {
	case "submit":
		return a.send(false), true
	case "follow-up":
		return a.send(true), true
	case "newline":
		e.Insert("\n")
	case "interrupt":
		return a.escape(), true
	case "clear":
		return a.ctrlC(), true
	case "exit":
		if len(e.buf) == 0 {
			return a.cb.OnQuit, true
		}
		e.Delete()
	case "expand-tools":
		a.expandTools = !a.expandTools
		a.status = toggleNote("tool output", "expanded", "collapsed", a.expandTools, a.unfoldAgain(true))
		a.rerenderCustom()
	case "toggle-thinking":
		a.showThinking = !a.showThinking
		a.status = toggleNote("thinking", "shown", "hidden", a.showThinking, a.unfoldAgain(false))
	case "paste-image":
		return a.pasteImage(), true
	case "model", "cycle-model", "cycle-model-back", "thinking":
		return a.named(action), true
	case "agents": // the subagents script's command
		if a.cb.OnCommand != nil {
			return func() { a.cb.OnCommand("agents", "") }, true
		}
	case "complete":
		a.complete.update(e, a.opts.Commands)
		if len(a.complete.items) == 0 {
			a.complete.paths(e)
		}
		if len(a.complete.items) == 1 {
			a.complete.accept(e)
		}
	default:
		return nil, false
	}
	return nil, true
}

// toggleNote says what Ctrl+O or Ctrl+T changed: what is still on the live screen redraws,
// what has scrolled into the terminal's history stays as it was drawn, except the newest
// folded box, printed again below when reprinted.
func toggleNote(what, on, off string, state, reprinted bool) string {
	word := off
	if state {
		word = on
	}
	if reprinted {
		return what + " " + word + " from here on; the last folded box is printed again below"
	}
	return what + " " + word + " from here on (what scrolled up stays as drawn)"
}

// popupKey handles keys meant for an open completion popup; it reports whether it did.
func (a *App) popupKey(ev *tcell.EventKey) bool {
	if len(a.complete.items) == 0 {
		return false
	}
	switch ev.Key() {
	case tcell.KeyUp:
		a.complete.move(-1)
	case tcell.KeyDown:
		a.complete.move(1)
	case tcell.KeyTab:
		a.complete.accept(a.editor)
	case tcell.KeyEnter:
		// Enter picks a /command (so "/mo" Enter runs /model); for @files and paths it sends,
		// since an address like me@example.com must not turn into a file name.
		typed := string(a.editor.buf[a.complete.from:a.complete.to])
		if ev.Modifiers() != 0 || !strings.HasPrefix(string(a.editor.buf), "/") || a.complete.pathMode ||
			strings.TrimSpace(a.complete.items[a.complete.sel].insert) == strings.TrimSpace(typed) {
			return false // the command is typed out in full: Enter runs it
		}
		a.complete.accept(a.editor)
		// A command that takes no argument runs at once.
		name := strings.TrimSpace(strings.TrimPrefix(string(a.editor.buf), "/"))
		for _, c := range a.opts.Commands {
			if c.Name == name && c.ArgHint == "" {
				return false
			}
		}
	case tcell.KeyEscape:
		a.complete.items, a.complete.pathMode = nil, false
	default:
		return false
	}
	return true
}

func (a *App) named(name string) func() {
	if a.cb.OnKey == nil {
		return nil
	}
	return func() { a.cb.OnKey(name) }
}

// editAction runs one of the editor's actions on e; it reports whether action is one.
func editAction(e *Editor, action string, width int) bool {
	switch action {
	case "cursor-left":
		e.Left()
	case "cursor-right":
		e.Right()
	case "cursor-up":
		e.Up(width)
	case "cursor-down":
		e.Down(width)
	case "word-left":
		e.WordLeft()
	case "word-right":
		e.WordRight()
	case "line-start":
		e.Home()
	case "line-end":
		e.End()
	case "delete-back":
		e.Backspace()
	case "delete-forward":
		e.Delete()
	case "delete-word-back":
		e.KillWordBack()
	case "delete-word-forward":
		e.KillWordForward()
	case "kill-line":
		e.KillToEnd()
	case "kill-line-back":
		e.KillToStart()
	case "yank":
		e.Yank()
	case "yank-pop":
		e.YankPop()
	case "undo":
		e.Undo()
	default:
		return false
	}
	return true
}

// send handles Enter (and Alt+Enter with followUp): a slash command, a shell escape, a steer
// while working, or a prompt. Alt+Enter on a slash line is a follow-up too: the controller
// decides whether it names a command or a template to queue.
func (a *App) send(followUp bool) func() {
	raw := a.editor.RawText()
	text := a.editor.Text()
	if strings.TrimSpace(text) == "" {
		return nil
	}
	a.editor.AddHistory(raw)
	a.takeSent(text)
	a.editor.Clear()
	a.complete.items = nil
	cb := a.cb
	switch {
	case strings.HasPrefix(text, "/") && !strings.HasPrefix(text, "//") && !followUp:
		name, args, _ := strings.Cut(strings.TrimPrefix(text, "/"), " ")
		return call2(cb.OnCommand, name, strings.TrimSpace(args))
	case strings.HasPrefix(text, "!!"):
		return callBash(cb.OnBash, strings.TrimSpace(text[2:]), false)
	case strings.HasPrefix(text, "!"):
		return callBash(cb.OnBash, strings.TrimSpace(text[1:]), true)
	case followUp:
		return call1(cb.OnFollowUp, text)
	case a.working:
		return call1(cb.OnSteer, text)
	}
	return call1(cb.OnSubmit, text)
}

func call1(f func(string), s string) func() {
	if f == nil {
		return nil
	}
	return func() { f(s) }
}

func call2(f func(string, string), s, t string) func() {
	if f == nil {
		return nil
	}
	return func() { f(s, t) }
}

func callBash(f func(string, bool), s string, keep bool) func() {
	if f == nil {
		return nil
	}
	return func() { f(s, keep) }
}

// escape aborts a run and returns the queued messages to the editor, as pi does. When idle,
// two presses on an empty editor within half a second open the session tree, as in pi.
func (a *App) escape() func() {
	if !a.working {
		if len(a.editor.buf) > 0 {
			return nil
		}
		now := a.now()
		if now.Sub(a.lastEscape) < 500*time.Millisecond {
			a.lastEscape = time.Time{}
			return a.named("tree")
		}
		a.lastEscape = now
		return nil
	}
	queued := append(append([]string(nil), a.steer...), a.follow...)
	if len(queued) > 0 {
		text := strings.Join(queued, "\n")
		if cur := a.editor.RawText(); cur != "" {
			text += "\n" + cur
		}
		a.editor.SetText(text)
	}
	a.steer, a.follow = nil, nil
	return a.cb.OnAbort
}

const quitHint = "press ctrl+c again to quit"

// ctrlC clears the editor; on an empty editor a second press within a second quits.
func (a *App) ctrlC() func() {
	if len(a.editor.buf) > 0 {
		a.editor.SetText("")
		return nil
	}
	now := a.now()
	if now.Sub(a.lastCtrlC) < time.Second {
		return a.cb.OnQuit
	}
	a.lastCtrlC = now
	if !a.working {
		a.status = quitHint
	}
	return nil
}
