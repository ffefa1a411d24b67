package main

// tuicommands.go holds what the terminal UI's slash commands and keys do: each is one or a few
// calls of the live session, with pickers and notices around them. They run on their own goroutine (see
// interactive.async), so they may ask questions on the screen.

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"pi/live"
	"pi/lua"
	"pi/provider"
	"pi/session"
	"pi/tui"
)

// tuiCycleThinking steps the thinking level (Shift+Tab).
func tuiCycleThinking(ic *interactive) {
	level, ok, err := ic.h.CycleThinking()
	switch {
	case err != nil:
		ic.ui.Notify(tui.LevelError, err.Error())
	case !ok:
		ic.ui.Notify(tui.LevelInfo, "this model does not think: its thinking level stays off")
	default:
		ic.ui.SetStatus("thinking: " + level)
	}
	ic.updateFooter()
}

// tuiPickModel is the model picker (Ctrl+L, /model): every configured and discovered model.
func tuiPickModel(ic *interactive) {
	models := ic.h.AvailableModels(ic.ctx)
	labels := make([]string, len(models))
	current := 0
	for i, m := range models {
		labels[i] = m.Label()
		if t := m.Traits(); t != "" {
			labels[i] += "  (" + t + ")"
		}
		if sameModel(m, ic.h.Agent().Model()) {
			current = i
		}
	}
	i, err := ic.ui.SelectFrom(ic.ctx, "Select a model", labels, current)
	if err != nil || sameModel(models[i], ic.h.Agent().Model()) {
		return
	}
	m, err := ic.h.SetModel(ic.ctx, models[i].Provider+"/"+models[i].ID)
	if err != nil {
		ic.ui.Notify(tui.LevelError, err.Error())
		return
	}
	ic.ui.Notify(tui.LevelInfo, "model: "+m.Label())
	ic.updateFooter()
}

// tuiBang runs a !cmd line and shows it as a bash box; with keep (a single !) the model sees
// the command and its output with the next prompt, with !! it does not.
func tuiBang(ic *interactive, cmd string, keep bool) {
	id := fmt.Sprintf("bang-%d", ic.bangs.Add(1))
	if !ic.h.Busy() {
		ic.ui.SetWorking(true) // so that Escape interrupts the command
		defer func() {
			if !ic.h.Busy() {
				ic.ui.SetWorking(false)
			}
		}()
	}
	ic.ui.ToolStart(id, "bash", map[string]any{"command": cmd})
	res, err := ic.h.Bash(ic.ctx, cmd, !keep, func(r session.BashResult) {
		ic.ui.ToolUpdate(id, []provider.Block{provider.Text(r.Output)})
	})
	text := res.Output
	failed := err != nil || res.Cancelled || res.ExitCode == nil || *res.ExitCode != 0
	switch {
	case err != nil:
		text = err.Error()
	case res.Cancelled:
		text += "\n(cancelled)"
	case res.ExitCode != nil && *res.ExitCode != 0:
		text += fmt.Sprintf("\n(exit code %d)", *res.ExitCode)
	}
	ic.ui.ToolEnd(id, []provider.Block{provider.Text(strings.TrimLeft(text, "\n"))}, nil, failed)
}

func sameModel(x, y provider.Model) bool { return x.Provider == y.Provider && x.ID == y.ID }

// builtin is a slash command the terminal UI runs itself.
type builtin struct {
	tui.Command
	run func(ic *interactive, args string)
}

func builtins() []builtin {
	return []builtin{
		{tui.Command{Name: "model", Description: "pick the model"}, func(ic *interactive, _ string) { tuiPickModel(ic) }},
		{tui.Command{Name: "settings", Description: "change and save the common settings"}, tuiSettings},
		{tui.Command{Name: "scoped-models", Description: "the models Ctrl+P cycles through", ArgHint: "[patterns]"}, tuiScopedModels},
		{tui.Command{Name: "compact", Description: "summarise the conversation to free context", ArgHint: "[instructions]"}, tuiCompact},
		{tui.Command{Name: "new", Description: "start a new session"}, func(ic *interactive, _ string) { tuiReplaced(ic, "new session", ic.h.NewSession("")) }},
		{tui.Command{Name: "clone", Description: "copy this session and go on in the copy"}, func(ic *interactive, _ string) { tuiReplaced(ic, "cloned session", ic.h.Clone()) }},
		{tui.Command{Name: "tree", Description: "continue from another point of this session"}, tuiTree},
		{tui.Command{Name: "label", Description: "label an entry of the session tree"}, tuiLabel},
		{tui.Command{Name: "fork", Description: "start a new session from an earlier message"}, tuiFork},
		{tui.Command{Name: "resume", Description: "switch to another session of this directory"}, tuiResume},
		{tui.Command{Name: "name", Description: "name this session", ArgHint: "<name>"}, tuiName},
		{tui.Command{Name: "session", Description: "file, message counts, tokens and cost"}, tuiSessionInfo},
		{tui.Command{Name: "export", Description: "write the session as HTML (or .jsonl)", ArgHint: "[file]"}, tuiExport},
		{tui.Command{Name: "copy", Description: "copy the last reply to the clipboard"}, tuiCopyLast},
		{tui.Command{Name: "reload", Description: "load the Lua scripts again"}, tuiReload},
		{tui.Command{Name: "trust", Description: "let this project's .pi/init.lua run, or not", ArgHint: "[on|off]"}, tuiTrust},
		{tui.Command{Name: "hotkeys", Description: "show the keys"}, func(ic *interactive, _ string) { ic.ui.Notify(tui.LevelInfo, ic.keys.Help()+ic.ui.ShortcutHelp()) }},
		{tui.Command{Name: "quit", Description: "leave pi"}, func(ic *interactive, _ string) { ic.cancel() }},
	}
}

// commandList is what the completion popup offers at start; the scripts' commands join it
// once they have loaded (loading goes on in the background so the first frame is not late).
func (ic *interactive) commandList() []tui.Command {
	var cmds []tui.Command
	for _, b := range builtins() {
		cmds = append(cmds, b.Command)
	}
	ic.async(func() {
		scripted, err := ic.h.Commands(ic.ctx)
		if err != nil {
			return
		}
		all := append([]tui.Command(nil), cmds...)
		for _, c := range scripted {
			all = append(all, ic.scriptCompletion(c))
		}
		select {
		case <-ic.uiReady:
			ic.ui.SetCommands(all)
			ic.ui.SetShortcuts(scriptShortcuts(ic.h.Shortcuts()))
		case <-ic.ctx.Done():
		}
	})
	return cmds
}

// scriptCompletion offers a script command; its argument completion gets a short deadline,
// since the popup asks for it on the input goroutine.
func (ic *interactive) scriptCompletion(c lua.Command) tui.Command {
	tc := tui.Command{Name: c.Name, Description: c.Description, ArgHint: c.ArgumentHint}
	if c.HasComplete {
		tc.Complete = func(arg string) []string {
			ctx, cancel := context.WithTimeout(ic.ctx, 150*time.Millisecond)
			defer cancel()
			return c.Complete(ctx, arg)
		}
	}
	return tc
}

// command runs a built-in; any other /name goes through the front door, where script
// commands, prompt templates and skills pick it up (and the rest is sent as typed), steering
// while the agent works as Enter does.
func (ic *interactive) command(name, args string) {
	if !ic.builtin(name, args) {
		ic.send(strings.TrimSpace("/"+name+" "+args), nil, live.DeliverSteer)
	}
}

// builtin runs the terminal UI's own command name, if it is one.
func (ic *interactive) builtin(name, args string) bool {
	for _, b := range builtins() {
		if b.Name == name || name == "exit" && b.Name == "quit" {
			b.run(ic, args)
			return true
		}
	}
	return false
}

func tuiCompact(ic *interactive, instructions string) {
	ic.ui.SetWorking(true)
	ic.ui.SetStatus("Compacting…")
	res, err := ic.h.Compact(ic.ctx, instructions)
	ic.ui.SetStatus("")
	ic.ui.SetWorking(false)
	if err != nil {
		ic.ui.Notify(tui.LevelError, err.Error())
		return
	}
	ic.ui.Notify(tui.LevelInfo, fmt.Sprintf("compacted: %d → %d tokens", res.TokensBefore, res.TokensAfter))
	ic.updateFooter()
}

// tuiReplaced reports a session switch and shows the conversation now in force.
func tuiReplaced(ic *interactive, what string, err error) {
	if err != nil {
		ic.ui.Notify(tui.LevelError, err.Error())
		return
	}
	ic.ui.Notify(tui.LevelInfo, fmt.Sprintf("%s: %s", what, ic.h.State().SessionID))
	ic.ui.Replay(ic.h.Agent().MessagesView(), session.ShownUserText, ic.custom)
	ic.updateQueue()
	ic.updateFooter()
}

func tuiFork(ic *interactive, _ string) {
	msgs, err := ic.h.ForkPoints()
	if err != nil || len(msgs) == 0 {
		ic.ui.Notify(tui.LevelWarning, "nothing to fork from yet")
		return
	}
	labels := make([]string, len(msgs))
	for i, m := range msgs {
		labels[i] = strings.ReplaceAll(m.Text, "\n", " ")
	}
	i, err := ic.ui.Select(ic.ctx, "Fork from which message?", labels)
	if err != nil {
		return
	}
	text, err := ic.h.ForkAt(msgs[i].EntryID)
	tuiReplaced(ic, "forked into a new session", err)
	if err == nil {
		ic.ui.SetEditorText(text)
	}
}

func tuiResume(ic *interactive, _ string) {
	dir := session.Dir(ic.h.PiHome(), ic.h.Cwd())
	if p := ic.h.State().SessionFile; p != "" {
		dir = filepath.Dir(p)
	}
	infos, err := session.ListAll(ic.ctx, dir, session.Dir(session.PiAgentDir(), ic.h.Cwd())) // pi's own too
	if err != nil || len(infos) == 0 {
		ic.ui.Notify(tui.LevelWarning, "no sessions to resume in "+dir)
		return
	}
	labels := make([]string, len(infos))
	for i, s := range infos {
		title := s.Name
		if title == "" {
			title = provider.OneLine(session.WithoutContextBlock(s.FirstPrompt), 80) // the user's words, not the date block
		}
		labels[i] = fmt.Sprintf("%s  %s · %d messages", s.Modified.Format("2006-01-02 15:04"), title, s.MessageCount)
	}
	i, err := ic.ui.Select(ic.ctx, "Resume which session?", labels)
	if err != nil {
		return
	}
	tuiReplaced(ic, "resumed session", ic.h.SwitchSession(ic.ctx, infos[i].Path))
}

func tuiName(ic *interactive, args string) {
	if err := ic.h.SetName(args); err != nil {
		ic.ui.Notify(tui.LevelError, err.Error())
		return
	}
	ic.updateFooter()
}

func tuiSessionInfo(ic *interactive, _ string) {
	s := ic.h.Stats()
	ic.ui.Notify(tui.LevelInfo, fmt.Sprintf("session %s\nfile %s\n%d messages (%d user, %d assistant, %d tool calls)\n"+
		"tokens: %d in, %d out, %d cache read, %d cache write · cost $%.4f", s.SessionID, s.SessionFile,
		s.TotalMessages, s.UserMessages, s.AssistantMessages, s.ToolCalls, s.Tokens.Input, s.Tokens.Output,
		s.Tokens.CacheRead, s.Tokens.CacheWrite, s.Cost))
}

// tuiExport writes the session as an HTML page, or copies the session file for a .jsonl name.
func tuiExport(ic *interactive, path string) {
	out, err := ic.h.Export(strings.TrimSpace(path))
	if err != nil {
		ic.ui.Notify(tui.LevelError, err.Error())
		return
	}
	ic.ui.Notify(tui.LevelInfo, "exported to "+out)
}

func tuiCopyLast(ic *interactive, _ string) {
	text, ok := ic.h.LastReply()
	if !ok {
		ic.ui.Notify(tui.LevelWarning, "no reply to copy yet")
		return
	}
	if err := ic.ui.SetClipboard(text); err != nil {
		ic.ui.Notify(tui.LevelError, err.Error())
		return
	}
	ic.ui.Notify(tui.LevelInfo, "copied the last reply")
}

func tuiReload(ic *interactive, _ string) {
	if err := ic.h.Reload(ic.ctx); err != nil {
		ic.ui.Notify(tui.LevelError, err.Error())
		return
	}
	ic.commandList()
	ic.ui.SetThemeDirs(ic.h.ThemeDirs()) // resources_discover ran again
	ic.ui.Notify(tui.LevelInfo, "scripts reloaded")
}

// tuiCycleModel is Ctrl+P: the next model of the scope (--models, /scoped-models).
func tuiCycleModel(ic *interactive, step int) {
	m, err := ic.h.CycleModel(ic.ctx, step)
	switch {
	case err != nil:
		ic.ui.Notify(tui.LevelError, err.Error())
	case m == nil:
		ic.ui.Notify(tui.LevelInfo, "no other model to cycle to (see /scoped-models)")
	default:
		ic.ui.SetStatus("model: " + (*m).Label())
	}
	ic.updateFooter()
}

// tuiScopedModels is /scoped-models [patterns]: set the models Ctrl+P cycles through, or with
// no argument show them; "all" clears the scope.
func tuiScopedModels(ic *interactive, args string) {
	args = strings.TrimSpace(args)
	if args != "" {
		patterns := splitList(args)
		if args == "all" {
			patterns = nil
		}
		if err := ic.h.SetScope(patterns); err != nil {
			ic.ui.Notify(tui.LevelError, err.Error())
			return
		}
	}
	models, scoped := ic.h.ScopedModels(ic.ctx)
	names := make([]string, len(models))
	for i, m := range models {
		names[i] = m.Label()
	}
	what := "every available model (set a scope with /scoped-models ollama/*,openai/gpt-4o)"
	if scoped {
		what = "the scope: " + strings.Join(names, ", ")
	}
	ic.ui.Notify(tui.LevelInfo, "ctrl+p cycles through "+what)
}

// tuiAskTrust asks, on the screen, whether an undecided project's script may run.
func tuiAskTrust(ic *interactive) {
	if !ic.h.TrustUndecided() {
		return
	}
	yes, err := ic.ui.Confirm(ic.ctx, "Trust this project?",
		ic.h.Cwd()+"/.pi/init.lua runs with your permissions. Let it run, now and from now on?")
	if err != nil && !errors.Is(err, tui.ErrCancelled) {
		return
	}
	tuiSetTrust(ic, yes)
}

// tuiTrust is /trust [on|off]: without an argument it asks.
func tuiTrust(ic *interactive, args string) {
	switch strings.TrimSpace(args) {
	case "on", "yes":
		tuiSetTrust(ic, true)
	case "off", "no":
		tuiSetTrust(ic, false)
	case "":
		trusted, _, _ := lua.TrustDecision(ic.h.PiHome(), ic.h.Cwd())
		i, err := ic.ui.Select(ic.ctx, fmt.Sprintf("This project's .pi/init.lua (trusted now: %v)", trusted),
			[]string{"Let it run", "Do not let it run"})
		if err == nil {
			tuiSetTrust(ic, i == 0)
		}
	default:
		ic.ui.Notify(tui.LevelError, "/trust takes on or off")
	}
}

func tuiSetTrust(ic *interactive, trusted bool) {
	msg, err := ic.h.SetTrust(ic.ctx, trusted)
	if err != nil {
		ic.ui.Notify(tui.LevelError, err.Error())
		return
	}
	ic.commandList()
	ic.ui.Notify(tui.LevelInfo, msg)
}

// tuiTree is /tree in the terminal UI: pick a point of the session tree, say whether to
// summarise the branch being left, and continue from there. It runs on its own goroutine (see
// interactive.command), so it may ask questions.
func tuiTree(ic *interactive, _ string) {
	rows, i, ok := pickTreeRow(ic, "Continue from which point? (● is where you are)")
	if !ok {
		return
	}
	if rows[i].Current {
		// The marked row may stand for a hidden leaf (a model change recorded at resume);
		// moving onto it would drop that entry from the path for nothing.
		ic.ui.Notify(tui.LevelInfo, "already there")
		return
	}
	summarize, focus, ok := tuiAskBranchSummary(ic, rows[i].ID)
	if !ok {
		return
	}
	tuiNavigate(ic, rows[i].ID, summarize, focus)
}

// pickTreeRow shows the session tree in a picker, opened on where the conversation is.
func pickTreeRow(ic *interactive, title string) ([]session.TreeRow, int, bool) {
	entries, leaf, err := ic.h.Tree()
	if err != nil {
		ic.ui.Notify(tui.LevelError, err.Error())
		return nil, 0, false
	}
	rows := session.TreeRows(entries, leaf)
	if len(rows) == 0 {
		ic.ui.Notify(tui.LevelWarning, "the session is empty: nothing to pick yet")
		return nil, 0, false
	}
	texts, current := session.RowTexts(rows)
	i, err := ic.ui.SelectFrom(ic.ctx, title, texts, current)
	return rows, i, err == nil
}

// tuiLabel is /label: name an entry of the session tree (an empty name clears it); labels
// show in /tree and in get_tree.
func tuiLabel(ic *interactive, _ string) {
	rows, i, ok := pickTreeRow(ic, "Label which entry?")
	if !ok {
		return
	}
	label, err := ic.ui.Input(ic.ctx, "Label (empty to clear)")
	if err != nil {
		return
	}
	if err := ic.h.SetLabel(rows[i].ID, label); err != nil {
		ic.ui.Notify(tui.LevelError, err.Error())
		return
	}
	ic.ui.Notify(tui.LevelInfo, "labelled")
}

// tuiAskBranchSummary offers a summary of what the move leaves behind, when it leaves messages;
// ok is false when the user cancelled.
func tuiAskBranchSummary(ic *interactive, targetID string) (summarize bool, focus string, ok bool) {
	if !ic.h.LeavesConversation(targetID) {
		return false, "", true
	}
	choice, err := ic.ui.Select(ic.ctx, "Summarise the branch you are leaving?",
		[]string{"No summary", "Summarise it", "Summarise it with a focus…"})
	if err != nil {
		return false, "", false
	}
	if choice == 2 {
		focus, err = ic.ui.Input(ic.ctx, "What should the summary focus on?")
		if err != nil {
			return false, "", false
		}
	}
	return choice > 0, focus, true
}

// tuiNavigate carries out the move and shows the conversation now in force. While the summary
// is written the UI shows it is working, so Escape reaches OnAbort, which cancels it.
func tuiNavigate(ic *interactive, targetID string, summarize bool, focus string) {
	if summarize {
		ic.ui.SetWorking(true)
		ic.ui.SetStatus("Summarising the branch… (esc to cancel)")
	}
	text, err := ic.h.NavigateTree(ic.ctx, targetID, summarize, focus)
	if summarize {
		ic.ui.SetStatus("")
		ic.ui.SetWorking(false)
	}
	switch {
	case errors.Is(err, context.Canceled) && ic.ctx.Err() == nil:
		ic.ui.Notify(tui.LevelInfo, "branch summary cancelled: the conversation stays where it was")
		return
	case err != nil:
		ic.ui.Notify(tui.LevelError, err.Error())
		return
	}
	ic.ui.Notify(tui.LevelInfo, "moved in the session tree; the conversation now reads:")
	ic.ui.Replay(ic.h.Agent().MessagesView(), session.ShownUserText, ic.custom)
	if text != "" {
		ic.ui.SetEditorText(text)
	}
	ic.updateQueue()
	ic.updateFooter()
}

// scriptShortcuts are the keys scripts bound.
func scriptShortcuts(shortcuts []lua.Shortcut) (out []tui.Shortcut) {
	for _, s := range shortcuts {
		out = append(out, tui.Shortcut{Key: s.Key, Description: s.Description})
	}
	return out
}
