package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"time"

	"pi/provider"
	"pi/tui"
)

// runInteractiveMode runs the terminal UI (DESIGN.md §7) until the user quits. Prompts from
// the command line are sent first, each as a follow-up of the one before. main calls it when
// no mode is asked for, -p is not set and standard input is a terminal.
func runInteractiveMode(ctx context.Context, a *app, prompts []string) int {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ic := &interactive{app: a, ctx: ctx, cancel: cancel}
	opts := tui.Options{Cwd: a.cwd, Commands: builtinCommands()}
	err := tui.Run(ctx, ic.callbacks(), opts, func(ui *tui.App) {
		ic.ui = ui
		ic.unsubscribe = a.agent.Subscribe(func(_ context.Context, ev AgentEvent) {
			defer ic.guard()
			ic.onEvent(ev)
		})
		ic.updateFooter()
		ui.Notify(tui.LevelInfo, "pi · "+modelLabel(a.agent.State().Model)+" · enter send · alt+enter follow-up · "+
			"esc interrupt · ctrl+c twice quit · /hotkeys for more")
		for i, p := range prompts {
			if i == 0 {
				ic.submit(p)
			} else {
				a.agent.FollowUp(provider.UserText(p, time.Now().UnixMilli()))
			}
		}
	})
	if ic.unsubscribe != nil {
		ic.unsubscribe()
	}
	if p := ic.panicked.Load(); p != nil {
		panic(p) // the terminal has been restored; now fail loudly
	}
	a.agent.Abort()
	a.agent.WaitIdle()
	if err != nil {
		fmt.Fprintln(os.Stderr, "pi:", err)
		return 1
	}
	return 0
}

// interactive adapts the agent's events to the TUI and the TUI's callbacks to the agent.
type interactive struct {
	app         *app
	ui          *tui.App
	ctx         context.Context
	cancel      context.CancelFunc
	unsubscribe func()
	bangs       atomic.Int64 // numbers the boxes of !cmd runs
	panicked    atomic.Value // a panic on another goroutine, re-raised once the terminal is restored
}

// guard turns a panic on an agent goroutine into a clean exit: the terminal is restored
// before the panic is raised again (tui.Run only sees panics on its own goroutine).
func (ic *interactive) guard() {
	if p := recover(); p != nil {
		ic.panicked.CompareAndSwap(nil, p)
		ic.cancel()
	}
}

func (ic *interactive) callbacks() tui.Callbacks {
	ag := ic.app.agent
	return tui.Callbacks{
		OnSubmit: ic.submit,
		OnSteer: func(text string) {
			if !ag.IsRunning() {
				ic.submit(text)
				return
			}
			ag.Steer(provider.UserText(text, time.Now().UnixMilli()))
			ic.updateQueue()
		},
		OnFollowUp: func(text string) {
			if !ag.IsRunning() {
				ic.submit(text)
				return
			}
			ag.FollowUp(provider.UserText(text, time.Now().UnixMilli()))
			ic.updateQueue()
		},
		OnAbort: func() {
			ag.ClearQueues() // the TUI has put the queued text back into the editor
			ag.Abort()
			ic.updateQueue()
		},
		OnCommand: ic.command,
		OnBash: func(cmd string, keep bool) {
			go func() {
				defer ic.guard()
				ic.bang(cmd, keep)
			}()
		},
		OnQuit: ic.cancel,
		OnKey: func(name string) bool {
			switch name {
			case "thinking":
				ic.cycleThinking()
			case "model":
				go ic.pickModel()
			default:
				return false
			}
			return true
		},
	}
}

// submit sends a prompt; while a run is going it steers instead.
func (ic *interactive) submit(text string) {
	ag := ic.app.agent
	if ag.IsRunning() {
		ag.Steer(provider.UserText(text, time.Now().UnixMilli()))
		ic.updateQueue()
		return
	}
	opens := len(ag.State().Messages) == 0
	msg := FirstUserMessage(text, nil, opens, ic.app.cwd, time.Now())
	go func() {
		defer ic.guard()
		err := ag.Prompt(ic.ctx, msg)
		if errors.Is(err, ErrAgentBusy) {
			ag.Steer(provider.UserText(text, time.Now().UnixMilli()))
			ic.updateQueue()
		} else if err != nil && ic.ctx.Err() == nil {
			ic.ui.Notify(tui.LevelError, err.Error())
		}
	}()
}

// onEvent draws one agent event. It runs on the agent's goroutine; App calls only take a lock.
func (ic *interactive) onEvent(ev AgentEvent) {
	ui := ic.ui
	switch ev.Type {
	case EvAgentStart:
		ui.SetWorking(true)
	case EvAgentEnd:
		ui.SetWorking(false)
		ic.updateFooter()
	case EvMessageStart:
		ic.messageStart(ev.Message)
	case EvMessageUpdate:
		if ev.Message != nil && ev.Message.Role == provider.RoleAssistant {
			ui.UpdateAssistant(ev.Message)
		}
	case EvMessageEnd:
		if ev.Message != nil && ev.Message.Role == provider.RoleAssistant {
			ui.EndAssistant(ev.Message)
			ic.updateFooter()
		}
	case EvToolExecutionStart:
		ui.ToolStart(ev.ToolCallID, ev.ToolName, ev.Args)
	case EvToolExecutionUpdate:
		if ev.Result != nil {
			ui.ToolUpdate(ev.ToolCallID, ev.Result.Content)
		}
	case EvToolExecutionEnd:
		var content []provider.Block
		var details any
		if ev.Result != nil {
			content, details = ev.Result.Content, ev.Result.Details
		}
		ui.ToolEnd(ev.ToolCallID, content, details, ev.IsError)
	case EvAutoRetryStart:
		if r := ev.Retry; r != nil {
			ui.RetryStart(r.Attempt, r.MaxAttempts, time.Duration(r.DelayMs)*time.Millisecond, r.Error)
		}
	case EvAutoRetryEnd:
		ui.RetryEnd()
		if r := ev.Retry; r != nil && !r.Success && r.Error != "" {
			ui.Notify(tui.LevelError, "retry failed: "+r.Error)
		}
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

func (ic *interactive) updateQueue() {
	steer, follow := ic.app.agent.QueuedMessages()
	ic.ui.SetQueue(texts(steer), texts(follow))
}

func texts(ms []provider.Message) []string {
	out := make([]string, len(ms))
	for i := range ms {
		out[i] = ms[i].TextContent()
	}
	return out
}

// updateFooter sums usage over the session's replies; the context in use is the size of the
// last request, as the last reply reported it.
func (ic *interactive) updateFooter() {
	st := ic.app.agent.State()
	f := tui.FooterInfo{Cwd: ic.app.cwd, Model: modelLabel(st.Model), Thinking: st.Thinking,
		ContextWindow: st.Model.ContextWindow}
	for i := range st.Messages {
		u := st.Messages[i].Usage
		if st.Messages[i].Role != provider.RoleAssistant || u == nil {
			continue
		}
		f.Input += u.Input
		f.Output += u.Output
		f.CacheRead += u.CacheRead
		f.CacheWrite += u.CacheWrite
		f.Cost += u.Cost.Total
		f.ContextTokens = u.TotalTokens
		if f.ContextTokens == 0 {
			f.ContextTokens = u.Input + u.Output + u.CacheRead + u.CacheWrite
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

var thinkingLevels = [...]string{"off", "minimal", "low", "medium", "high"}

// cycleThinking steps the thinking level (Shift+Tab).
func (ic *interactive) cycleThinking() {
	cur := ic.app.agent.State().Thinking
	next := thinkingLevels[0]
	for i, l := range thinkingLevels {
		if l == cur || (cur == "" && l == "off") {
			next = thinkingLevels[(i+1)%len(thinkingLevels)]
		}
	}
	ic.app.agent.SetThinking(next)
	ic.updateFooter()
}

// pickModel shows the model picker (Ctrl+L, /model). Until model discovery is wired in, the
// list holds the current model only.
func (ic *interactive) pickModel() {
	cur := ic.app.agent.State().Model
	models := []provider.Model{cur}
	labels := make([]string, len(models))
	for i, m := range models {
		labels[i] = modelLabel(m)
	}
	i, err := ic.ui.Select(ic.ctx, "Select a model", labels)
	if err != nil {
		return
	}
	ic.app.agent.SetModel(models[i])
	ic.updateFooter()
}

// bang runs a !cmd line with bash in the working directory and shows it as a bash box; with
// keep (a single !) the command and its output are added to the conversation as a user
// message, so the model sees them in its next turn.
func (ic *interactive) bang(cmd string, keep bool) {
	id := fmt.Sprintf("bang-%d", ic.bangs.Add(1))
	ic.ui.ToolStart(id, "bash", map[string]any{"command": cmd})
	ctx, cancel := context.WithTimeout(ic.ctx, 2*time.Minute)
	defer cancel()
	c := exec.CommandContext(ctx, "bash", "-c", cmd)
	c.Dir = ic.app.cwd
	out, err := c.CombinedOutput()
	text := strings.TrimRight(string(out), "\n")
	if err != nil {
		text = strings.TrimSpace(text + "\n" + err.Error())
	}
	ic.ui.ToolEnd(id, []provider.Block{provider.Text(text)}, nil, err != nil)
	if !keep {
		return
	}
	if ic.app.agent.IsRunning() {
		ic.ui.Notify(tui.LevelWarning, "the agent is working: the output of !"+cmd+" was not added to the conversation")
		return
	}
	msg := provider.UserText(fmt.Sprintf("I ran `%s`:\n```\n%s\n```", cmd, text), time.Now().UnixMilli())
	ic.app.agent.ReplaceMessages(append(ic.app.agent.State().Messages, msg))
}

func builtinCommands() []tui.Command {
	return []tui.Command{
		{Name: "model", Description: "pick the model"},
		{Name: "new", Description: "start a new conversation"},
		{Name: "session", Description: "show messages, tokens and cost of this session"},
		{Name: "hotkeys", Description: "show the keys"},
		{Name: "quit", Description: "leave pi"},
	}
}

const hotkeys = `enter send (steers while the agent works) · alt+enter queue a follow-up · shift+enter newline
esc interrupt and take queued messages back · ctrl+c clear, twice to quit · ctrl+d quit on empty
up/down history · tab complete /commands and @files · ctrl+o expand tool output · ctrl+t thinking
shift+tab thinking level · ctrl+l model · ctrl+w/alt+d delete word · ctrl+k/ctrl+u kill · ctrl+y yank
alt+y yank-pop · ctrl+_ undo · ctrl+z suspend · !cmd run and keep output · !!cmd run only`

// command runs a built-in slash command.
func (ic *interactive) command(name, args string) {
	switch name {
	case "quit", "exit":
		ic.cancel()
	case "hotkeys":
		ic.ui.Notify(tui.LevelInfo, hotkeys)
	case "model":
		go ic.pickModel()
	case "new":
		ic.app.agent.Abort()
		ic.app.agent.WaitIdle()
		ic.app.agent.ReplaceMessages(nil)
		ic.updateFooter()
		ic.ui.Notify(tui.LevelInfo, "new conversation")
	case "session":
		st := ic.app.agent.State()
		ic.ui.Notify(tui.LevelInfo, fmt.Sprintf("%d messages · model %s · cwd %s", len(st.Messages),
			modelLabel(st.Model), ic.app.cwd))
	default:
		ic.ui.Notify(tui.LevelWarning, "unknown command /"+name)
	}
}
