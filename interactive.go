package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"pi/agent"
	"pi/lua"
	"pi/provider"
	"pi/session"
	"pi/tui"
)

// runInteractiveMode runs the terminal UI (DESIGN.md §7) until the user quits. A resumed
// conversation is shown first; prompts from the command line are then sent, each as a
// follow-up of the one before. pickSession (-r) opens the session picker.
func runInteractiveMode(ctx context.Context, h *harness, prompts []string, pickSession bool) int {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ic := &interactive{h: h, ctx: ctx, cancel: cancel, uiReady: make(chan struct{})}
	opts := tui.Options{Cwd: h.cwd, Commands: ic.commandList()}
	err := tui.Run(ctx, ic.callbacks(), opts, func(ui *tui.App) {
		ic.ui = ui
		close(ic.uiReady)
		h.scripts.setUI(ic) // the scripts' questions and notices go to the screen
		ic.unsubscribe = h.agent.Subscribe(func(_ context.Context, ev agent.Event) {
			defer ic.guard()
			ic.onEvent(ev)
		})
		ic.replay(h.agent.MessagesView())
		ic.updateFooter()
		ui.Notify(tui.LevelInfo, "pi · "+modelLabel(h.agent.Model())+" · enter send · alt+enter follow-up · "+
			"esc interrupt · ctrl+c twice quit · /hotkeys for more")
		if h.modelProblem != "" {
			ui.Notify(tui.LevelWarning, "No model yet: "+h.modelProblem+". Then restart pi, or pick one with /model.")
		}
		if pickSession {
			go ic.resume("") // -r: the picker asks on screen, off the start callback
		}
		ic.sendPrompts(prompts)
	})
	h.scripts.setUI(nil)
	if ic.unsubscribe != nil {
		ic.unsubscribe()
	}
	if p := ic.panicked.Load(); p != nil {
		panic(p) // the terminal has been restored; now fail loudly
	}
	h.Quiesce()
	if err != nil {
		fmt.Fprintln(h.stderr, "pi:", err)
		return 1
	}
	return 0
}

// interactive adapts the agent's events to the TUI and the TUI's keys to harness calls. It
// holds no run state: what is in flight is the harness's. It is also the userInterface the
// scripts talk to.
type interactive struct {
	h           *harness
	ui          *tui.App
	uiReady     chan struct{} // closed once ui is set
	ctx         context.Context
	cancel      context.CancelFunc
	unsubscribe func()
	bangs       atomic.Int64 // numbers the boxes of !cmd runs
	panicked    atomic.Value // a panic on another goroutine, re-raised once the terminal is restored
}

// guard turns a panic on another goroutine into a clean exit: the terminal is restored before
// the panic is raised again (tui.Run only sees panics on its own goroutine).
func (ic *interactive) guard() {
	if p := recover(); p != nil {
		ic.panicked.CompareAndSwap(nil, p)
		ic.cancel()
	}
}

// async runs fn on its own goroutine: callbacks run on the input goroutine, which must stay
// free to deliver the keys that answer a question fn may ask.
func (ic *interactive) async(fn func()) {
	go func() {
		defer ic.guard()
		fn()
	}()
}

func (ic *interactive) callbacks() tui.Callbacks {
	return tui.Callbacks{
		OnSubmit:   func(text string) { ic.async(func() { ic.send(text, deliverSteer) }) },
		OnSteer:    func(text string) { ic.async(func() { ic.send(text, deliverSteer) }) },
		OnFollowUp: func(text string) { ic.async(func() { ic.send(text, deliverFollowUp) }) },
		OnAbort: func() {
			ic.h.ClearQueues() // the TUI has put the queued text back into the editor
			ic.h.Abort()       // the run, a compaction, a !cmd, a branch summary
		},
		OnCommand: func(name, args string) { ic.async(func() { ic.command(name, args) }) },
		OnBash:    func(cmd string, keep bool) { ic.async(func() { ic.bang(cmd, keep) }) },
		OnQuit:    ic.cancel,
		OnKey: func(name string) bool {
			switch name {
			case "thinking":
				ic.async(ic.cycleThinking)
			case "model":
				ic.async(ic.pickModel)
			case "tree":
				ic.async(func() { ic.treeCommand("") })
			default:
				return false
			}
			return true
		},
	}
}

// sendPrompts sends the command line's prompts: the first as a prompt, the rest queued as
// its follow-ups, each through the front door like typed text.
func (ic *interactive) sendPrompts(prompts []string) {
	if len(prompts) == 0 {
		return
	}
	ic.async(func() {
		for _, p := range prompts[1:] {
			ic.report(ic.h.Send(ic.ctx, Input{Text: p, Source: sourceInteractive, Deliver: deliverFollowUp, Queue: true}))
		}
		ic.send(prompts[0], deliverSteer)
	})
}

// send delivers a line the user typed: a prompt when the agent is idle, else queued as
// deliver says.
func (ic *interactive) send(text string, deliver delivery) {
	ic.report(ic.h.Send(ic.ctx, Input{Text: text, Source: sourceInteractive, Deliver: deliver}))
}

// report shows an error of a harness call, unless pi is quitting.
func (ic *interactive) report(err error) {
	if err != nil && ic.ctx.Err() == nil {
		ic.ui.Notify(tui.LevelError, err.Error())
	}
}

func (ic *interactive) updateQueue() {
	steer, follow := ic.h.agent.QueuedMessages()
	ic.ui.SetQueue(texts(steer), texts(follow))
}

func texts(ms []provider.Message) []string {
	out := make([]string, len(ms))
	for i := range ms {
		out[i] = shownUserText(&ms[i])
	}
	return out
}

// onEvent draws one agent event. It runs on the agent's goroutine; App calls only take a lock.
func (ic *interactive) onEvent(ev agent.Event) {
	ui := ic.ui
	switch ev.Type {
	case evQueueUpdate:
		ic.updateQueue()
	case agent.EvAgentStart:
		ui.SetWorking(true)
	case agent.EvAgentEnd:
		ui.SetWorking(false)
		ic.updateFooter()
	case agent.EvMessageStart:
		ic.messageStart(ev.Message)
	case agent.EvMessageUpdate:
		if ev.Message != nil && ev.Message.Role == provider.RoleAssistant {
			ui.UpdateAssistant(ev.Message)
		}
	case agent.EvMessageEnd:
		if ev.Message != nil && ev.Message.Role == provider.RoleAssistant {
			ui.EndAssistant(ev.Message)
			ic.updateFooter()
		}
	case agent.EvToolExecutionStart:
		ui.ToolStart(ev.ToolCallID, ev.ToolName, ev.Args)
	case agent.EvToolExecutionUpdate:
		if ev.Result != nil {
			ui.ToolUpdate(ev.ToolCallID, ev.Result.Content)
		}
	case agent.EvToolExecutionEnd:
		var content []provider.Block
		var details any
		if ev.Result != nil {
			content, details = ev.Result.Content, ev.Result.Details
		}
		ui.ToolEnd(ev.ToolCallID, content, details, ev.IsError)
	case agent.EvAutoRetryStart, agent.EvAutoRetryEnd:
		ic.retry(ev)
	}
}

func (ic *interactive) retry(ev agent.Event) {
	r := ev.Retry
	if ev.Type == agent.EvAutoRetryStart {
		if r != nil {
			ic.ui.RetryStart(r.Attempt, r.MaxAttempts, time.Duration(r.DelayMs)*time.Millisecond, r.Error)
		}
		return
	}
	ic.ui.RetryEnd()
	if r != nil && !r.Success && r.Error != "" {
		ic.ui.Notify(tui.LevelError, "retry failed: "+r.Error)
	}
}

func (ic *interactive) messageStart(m *provider.Message) {
	if m == nil {
		return
	}
	switch m.Role {
	case provider.RoleUser:
		ic.ui.AddUserMessage(shownUserText(m))
		ic.updateQueue() // a queued message has just been delivered
	case provider.RoleAssistant:
		ic.ui.StartAssistant()
	}
}

// replay shows a resumed conversation: user messages, replies, and tool calls with their
// results. Other application messages (compaction summaries, shell runs) are shown as notices.
func (ic *interactive) replay(msgs []provider.Message) {
	for i := range msgs {
		m := &msgs[i]
		switch m.Role {
		case provider.RoleUser:
			ic.ui.AddUserMessage(shownUserText(m))
		case provider.RoleAssistant:
			ic.ui.StartAssistant()
			ic.ui.EndAssistant(m)
			for _, c := range m.ToolCalls() {
				ic.ui.ToolStart(c.ID, c.Name, c.Arguments)
			}
		case provider.RoleToolResult:
			var details any
			if len(m.Details) > 0 {
				details = json.RawMessage(m.Details)
			}
			ic.ui.ToolEnd(m.ToolCallID, m.Content, details, m.IsError)
		default:
			if t := m.TextContent(); t != "" {
				ic.ui.Notify(tui.LevelInfo, t)
			}
		}
	}
}

// shownUserText is what the user typed: the context block that opens a conversation is left
// out, images are shown as a marker.
func shownUserText(m *provider.Message) string {
	var parts []string
	for _, b := range m.Content {
		switch {
		case b.Type == provider.BlockText && strings.HasPrefix(b.Text, "<context>"):
		case b.Type == provider.BlockText:
			parts = append(parts, b.Text)
		case b.Type == provider.BlockImage:
			parts = append(parts, "[image]")
		}
	}
	return strings.Join(parts, "\n")
}

// updateFooter shows the session's totals; the context in use is the size of the last request,
// as the last reply reported it.
func (ic *interactive) updateFooter() {
	h := ic.h
	st := h.agent.State()
	stats := statsOf(h.rec.session(), h.agent)
	f := tui.FooterInfo{Cwd: h.cwd, Session: h.rec.session().Name(), Model: modelLabel(st.Model), Thinking: st.Thinking,
		Input: stats.Tokens.Input, Output: stats.Tokens.Output, CacheRead: stats.Tokens.CacheRead,
		CacheWrite: stats.Tokens.CacheWrite, Cost: stats.Cost, ContextWindow: st.Model.ContextWindow}
	msgs := h.agent.MessagesView()
	for i := len(msgs) - 1; i >= 0; i-- {
		if u := msgs[i].Usage; msgs[i].Role == provider.RoleAssistant && u != nil {
			f.ContextTokens = u.TotalTokens
			if f.ContextTokens == 0 {
				f.ContextTokens = u.Input + u.Output + u.CacheRead + u.CacheWrite
			}
			break
		}
	}
	ic.ui.SetFooter(f)
}

func modelLabel(m provider.Model) string {
	if m.Provider == "" {
		return m.ID
	}
	return m.Provider + "/" + m.ID
}

// cycleThinking steps the thinking level (Shift+Tab).
func (ic *interactive) cycleThinking() {
	level, ok, err := ic.h.settings.cycleThinking()
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

// pickModel is the model picker (Ctrl+L, /model): every configured and discovered model.
func (ic *interactive) pickModel() {
	models := ic.h.settings.availableModels(ic.ctx)
	labels := make([]string, len(models))
	current := 0
	for i, m := range models {
		labels[i] = modelLabel(m)
		if m.ContextWindow > 0 {
			labels[i] += fmt.Sprintf("  (%dk context)", m.ContextWindow/1000)
		}
		if sameModel(m, ic.h.agent.Model()) {
			current = i
		}
	}
	i, err := ic.ui.SelectFrom(ic.ctx, "Select a model", labels, current)
	if err != nil || sameModel(models[i], ic.h.agent.Model()) {
		return
	}
	m, err := ic.h.settings.setModel(ic.ctx, models[i].Provider+"/"+models[i].ID, "set")
	if err != nil {
		ic.ui.Notify(tui.LevelError, err.Error())
		return
	}
	ic.ui.Notify(tui.LevelInfo, "model: "+modelLabel(m))
	ic.updateFooter()
}

// bang runs a !cmd line and shows it as a bash box; with keep (a single !) the model sees
// the command and its output with the next prompt, with !! it does not.
func (ic *interactive) bang(cmd string, keep bool) {
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
	res, err := ic.h.shell.run(ic.ctx, cmd, !keep, func(r bashResult) {
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

// builtin is a slash command the terminal UI runs itself.
type builtin struct {
	tui.Command
	run func(ic *interactive, args string)
}

func builtins() []builtin {
	return []builtin{
		{tui.Command{Name: "model", Description: "pick the model"}, func(ic *interactive, _ string) { ic.pickModel() }},
		{tui.Command{Name: "compact", Description: "summarise the conversation to free context", ArgHint: "[instructions]"}, (*interactive).compact},
		{tui.Command{Name: "new", Description: "start a new session"}, func(ic *interactive, _ string) { ic.replaced("new session", ic.h.NewSession("")) }},
		{tui.Command{Name: "clone", Description: "copy this session and go on in the copy"}, func(ic *interactive, _ string) { ic.replaced("cloned session", ic.h.Clone()) }},
		{tui.Command{Name: "tree", Description: "continue from another point of this session"}, (*interactive).treeCommand},
		{tui.Command{Name: "fork", Description: "start a new session from an earlier message"}, (*interactive).fork},
		{tui.Command{Name: "resume", Description: "switch to another session of this directory"}, (*interactive).resume},
		{tui.Command{Name: "name", Description: "name this session", ArgHint: "<name>"}, (*interactive).name},
		{tui.Command{Name: "session", Description: "file, message counts, tokens and cost"}, (*interactive).sessionInfo},
		{tui.Command{Name: "export", Description: "write the session as HTML (or .jsonl)", ArgHint: "[file]"}, (*interactive).export},
		{tui.Command{Name: "copy", Description: "copy the last reply to the clipboard"}, (*interactive).copyLast},
		{tui.Command{Name: "reload", Description: "load the Lua scripts again"}, (*interactive).reload},
		{tui.Command{Name: "hotkeys", Description: "show the keys"}, func(ic *interactive, _ string) { ic.ui.Notify(tui.LevelInfo, hotkeys) }},
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
	if rt := ic.h.scripts.rt; rt != nil {
		ic.async(func() {
			if rt.Ready(ic.ctx) != nil {
				return
			}
			all := append([]tui.Command(nil), cmds...)
			for _, c := range rt.Commands() {
				all = append(all, ic.scriptCompletion(c))
			}
			select {
			case <-ic.uiReady:
				ic.ui.SetCommands(all)
			case <-ic.ctx.Done():
			}
		})
	}
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

// command runs a built-in; any other /name goes through the input pipeline, where script
// commands, prompt templates and skills pick it up (and the rest is sent as typed).
func (ic *interactive) command(name, args string) {
	for _, b := range builtins() {
		if b.Name == name || name == "exit" && b.Name == "quit" {
			b.run(ic, args)
			return
		}
	}
	ic.send(strings.TrimSpace("/"+name+" "+args), "")
}

func (ic *interactive) compact(instructions string) {
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

// replaced reports a session switch and shows the conversation now in force.
func (ic *interactive) replaced(what string, err error) {
	if err != nil {
		ic.ui.Notify(tui.LevelError, err.Error())
		return
	}
	ic.ui.Notify(tui.LevelInfo, fmt.Sprintf("%s: %s", what, ic.h.rec.session().ID()))
	ic.replay(ic.h.agent.MessagesView())
	ic.updateQueue()
	ic.updateFooter()
}

func (ic *interactive) fork(string) {
	msgs, err := forkMessages(ic.h.rec.session())
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
	ic.replaced("forked into a new session", err)
	if err == nil {
		ic.ui.SetEditorText(text)
	}
}

func (ic *interactive) resume(string) {
	dir := session.Dir(ic.h.piHome, ic.h.cwd)
	if p := ic.h.rec.session().Path(); p != "" {
		dir = filepath.Dir(p)
	}
	infos, err := session.List(ic.ctx, dir)
	if err != nil || len(infos) == 0 {
		ic.ui.Notify(tui.LevelWarning, "no sessions to resume in "+dir)
		return
	}
	labels := make([]string, len(infos))
	for i, s := range infos {
		title := s.Name
		if title == "" {
			title = strings.ReplaceAll(s.FirstPrompt, "\n", " ")
		}
		labels[i] = fmt.Sprintf("%s  %s · %d messages", s.Modified.Format("2006-01-02 15:04"), title, s.MessageCount)
	}
	i, err := ic.ui.Select(ic.ctx, "Resume which session?", labels)
	if err != nil {
		return
	}
	ic.replaced("resumed session", ic.h.SwitchSession(ic.ctx, infos[i].Path))
}

func (ic *interactive) name(args string) {
	if err := nameSession(ic.h.rec.session(), args); err != nil {
		ic.ui.Notify(tui.LevelError, err.Error())
		return
	}
	ic.updateFooter()
}

func (ic *interactive) sessionInfo(string) {
	s := statsOf(ic.h.rec.session(), ic.h.agent)
	ic.ui.Notify(tui.LevelInfo, fmt.Sprintf("session %s\nfile %s\n%d messages (%d user, %d assistant, %d tool calls)\n"+
		"tokens: %d in, %d out, %d cache read, %d cache write · cost $%.4f", s.SessionID, s.SessionFile,
		s.TotalMessages, s.UserMessages, s.AssistantMessages, s.ToolCalls, s.Tokens.Input, s.Tokens.Output,
		s.Tokens.CacheRead, s.Tokens.CacheWrite, s.Cost))
}

// export writes the session as an HTML page, or copies the session file for a .jsonl name.
func (ic *interactive) export(path string) {
	path = strings.TrimSpace(path)
	if strings.HasSuffix(path, ".jsonl") {
		data, err := os.ReadFile(ic.h.rec.session().Path())
		if err == nil {
			err = os.WriteFile(path, data, 0o644)
		}
		if err != nil {
			ic.ui.Notify(tui.LevelError, fmt.Sprintf("export to %s: %v", path, err))
			return
		}
		ic.ui.Notify(tui.LevelInfo, "exported to "+path)
		return
	}
	out, err := exportHTML(ic.h.rec.session(), ic.h.agent.MessagesView(), ic.h.agent.Model().ID, ic.h.cwd, path)
	if err != nil {
		ic.ui.Notify(tui.LevelError, err.Error())
		return
	}
	ic.ui.Notify(tui.LevelInfo, "exported to "+out)
}

func (ic *interactive) copyLast(string) {
	text, ok := lastAssistantText(ic.h.agent)
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

func (ic *interactive) reload(string) {
	rt := ic.h.scripts.rt
	if rt == nil {
		ic.ui.Notify(tui.LevelWarning, "no Lua runtime to reload")
		return
	}
	if err := rt.Reload(ic.ctx); err != nil {
		ic.ui.Notify(tui.LevelError, "reload: "+err.Error())
		return
	}
	ic.h.scripts.refreshTools()
	ic.commandList()
	ic.ui.Notify(tui.LevelInfo, "scripts reloaded")
}

const hotkeys = `enter send (steers while the agent works) · alt+enter queue a follow-up · shift+enter newline
esc interrupt and take queued messages back · ctrl+c clear, twice to quit · ctrl+d quit on empty
up/down history · tab complete /commands, @files and paths · ctrl+o expand tool output
ctrl+t show thinking · shift+tab thinking level · ctrl+l model · ctrl+w/alt+d delete word
ctrl+k/ctrl+u kill · ctrl+y yank · alt+y yank-pop · ctrl+_ undo · ctrl+z suspend
!cmd run and show the model · !!cmd run only`

// Confirm, Select, Input and Notify answer the scripts (pi.confirm, pi.select, pi.input,
// pi.notify) on the screen. Escape is a cancel, not an error.
func (ic *interactive) Confirm(ctx context.Context, title, msg string) (bool, error) {
	ok, err := ic.ui.Confirm(ctx, title, msg)
	if errors.Is(err, tui.ErrCancelled) {
		return false, nil
	}
	return ok, err
}

func (ic *interactive) Select(ctx context.Context, title string, options []string) (string, bool, error) {
	i, err := ic.ui.Select(ctx, title, options)
	if errors.Is(err, tui.ErrCancelled) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	return options[i], true, nil
}

func (ic *interactive) Input(ctx context.Context, title, placeholder string) (string, bool, error) {
	if placeholder != "" {
		title += " (" + placeholder + ")"
	}
	text, err := ic.ui.Input(ctx, title)
	if errors.Is(err, tui.ErrCancelled) {
		return "", false, nil
	}
	return text, err == nil, err
}

func (ic *interactive) Notify(msg, level string) { ic.ui.Notify(level, msg) }

// treeCommand is /tree in the terminal UI: pick a point of the session tree, say whether to
// summarise the branch being left, and continue from there. It runs on its own goroutine (see
// interactive.command), so it may ask questions.
func (ic *interactive) treeCommand(string) {
	sess := ic.h.rec.session()
	entries, err := treeEntries(sess)
	if err != nil {
		ic.ui.Notify(tui.LevelError, err.Error())
		return
	}
	rows := treeRows(entries, sess.Leaf())
	if len(rows) == 0 {
		ic.ui.Notify(tui.LevelWarning, "the session is empty: nothing to navigate yet")
		return
	}
	labels := make([]string, len(rows))
	current := 0
	for i, r := range rows {
		labels[i] = r.Text
		if r.Current {
			current = i
		}
	}
	i, err := ic.ui.SelectFrom(ic.ctx, "Continue from which point? (● is where you are)", labels, current)
	if err != nil {
		return
	}
	if rows[i].Current {
		// The marked row may stand for a hidden leaf (a model change recorded at resume);
		// moving onto it would drop that entry from the path for nothing.
		ic.ui.Notify(tui.LevelInfo, "already there")
		return
	}
	summarize, focus, ok := ic.askBranchSummary(rows[i].ID)
	if !ok {
		return
	}
	ic.navigate(rows[i].ID, summarize, focus)
}

// askBranchSummary offers a summary of what the move leaves behind, when it leaves messages;
// ok is false when the user cancelled.
func (ic *interactive) askBranchSummary(targetID string) (summarize bool, focus string, ok bool) {
	if !leavesConversation(ic.h.rec.session(), targetID) {
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

// navigate carries out the move and shows the conversation now in force. While the summary
// is written the UI shows it is working, so Escape reaches OnAbort, which cancels it.
func (ic *interactive) navigate(targetID string, summarize bool, focus string) {
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
	ic.replay(ic.h.agent.MessagesView())
	if text != "" {
		ic.ui.SetEditorText(text)
	}
	ic.updateQueue()
	ic.updateFooter()
}
