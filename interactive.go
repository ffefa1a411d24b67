package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync/atomic"
	"time"

	"pi/agent"
	"pi/images"
	"pi/live"
	"pi/provider"
	"pi/session"
	"pi/subagent"
	"pi/termui"
	"pi/tools"
	"pi/tui"
	"pi/tui/subagents"
)

// runInteractiveMode runs the terminal UI until the user quits. A resumed
// conversation is shown first; prompts from the command line are then sent, each as a
// follow-up of the one before. pickSession (-r) opens the session picker. startDialog runs
// first of all (ollamastart.go: start the local Ollama, pull a model).
func runInteractiveMode(ctx context.Context, h *live.Session, prompts []string, imgs []provider.Block, pickSession bool,
	startDialog func(*interactive), stderr io.Writer) int {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	keys, keysProblem := tui.KeymapOr(h.Config().KeyBindings())
	ic := &interactive{h: h, ctx: ctx, cancel: cancel}
	ctrl := termui.New(ctx, localSession{ic}, keys, ic.async)
	opts := tui.Options{Cwd: h.Cwd(), Commands: ctrl.Builtins(), Keys: keys, ShowThinking: !h.Config().UI.ThinkingHidden(),
		Clipboard: images.Clipboard, HideImages: !h.Config().ShowImages(), Theme: h.Config().UI.Theme, PiHome: h.PiHome(),
		ThemeDirs: h.ThemeDirs(), ToolLabel: func(name string) string { return tools.LabelOf(h.Agent().State().Tools, name) }}
	err := tui.Run(ctx, ctrl.Callbacks(), opts, func(ui *tui.App) {
		ic.ui, ic.children = ui, subagents.Show(ui, h.Children()) // before the events that feed it
		ctrl.Start(ui)
		h.SetUI(ic) // the scripts' questions and notices go to the screen
		ic.unsubscribe = h.Agent().Subscribe(func(_ context.Context, ev agent.Event) {
			defer ic.guard()
			ic.onEvent(ev)
		})
		ic.ui.Replay(h.Agent().MessagesView(), session.ShownUserText, ic.custom)
		ic.updateFooter()
		h.OnNextRequestChange(ic.updateFooter) // a warm-up that filled the server's cache
		model := h.Agent().Model().Label()
		if h.ModelProblem() != "" {
			model = "no model yet" // not the placeholder's none/none
		}
		ui.Notify(tui.LevelInfo, "pi · "+model+"\n"+keys.StartHint())
		if picked := h.PickedModel(); picked != "" {
			ui.Notify(tui.LevelInfo, picked+"; /model picks another")
		}
		if keysProblem != "" {
			ui.Notify(tui.LevelWarning, keysProblem)
		}
		if h.ModelProblem() != "" {
			ui.Notify(tui.LevelWarning, "No model yet: "+h.ModelProblem()+". Then restart pi, or pick one with /model.")
		}
		if pickSession {
			ic.async(func() { ctrl.Command("resume", "") }) // -r: the picker asks on screen, off the start callback
		}
		ic.async(func() {
			startDialog(ic) // before the prompts: they need a model
			ctrl.AskTrust() // before the prompts: a project command among them needs its script
			ic.sendPrompts(prompts, imgs)
		})
	})
	h.SetUI(nil)
	h.OnNextRequestChange(nil)
	if ic.unsubscribe != nil {
		ic.unsubscribe()
		ic.children.Close()
	}
	if p := ic.panicked.Load(); p != nil {
		panic(p) // the terminal has been restored; now fail loudly
	}
	h.Quiesce()
	if err != nil {
		fmt.Fprintln(stderr, "pi:", err)
		return 1
	}
	return 0
}

// interactive draws the agent's events on the screen; the keys and commands are termui's
// controller's, over localSession. It holds no run state: what is in flight is the live
// session's. It is also the UI the scripts talk to.
type interactive struct {
	h           *live.Session
	ui          *tui.App
	children    *subagents.Screen
	ctx         context.Context
	cancel      context.CancelFunc
	unsubscribe func()
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

// sendPrompts sends the command line's prompts: the first as a prompt (with the @file
// images), the rest queued as its follow-ups, each through the front door like typed text.
func (ic *interactive) sendPrompts(prompts []string, images []provider.Block) {
	if len(prompts) == 0 {
		return
	}
	for _, p := range prompts[1:] {
		ic.report(ic.h.Send(ic.ctx, live.Input{Text: p, Source: live.SourceInteractive, Deliver: live.DeliverFollowUp, Queue: true}))
	}
	ic.report(ic.h.Send(ic.ctx, live.Input{Text: prompts[0], Images: images, Source: live.SourceInteractive, Deliver: live.DeliverSteer}))
}

// report shows an error of a call of the live session, unless pi is quitting.
func (ic *interactive) report(err error) {
	if err != nil && ic.ctx.Err() == nil {
		ic.ui.Notify(tui.LevelError, err.Error())
	}
}

func (ic *interactive) updateQueue() {
	steer, follow := ic.h.Agent().QueuedMessages()
	ic.ui.SetQueue(session.ShownUserTexts(steer), session.ShownUserTexts(follow))
}

// onEvent draws one agent event. It runs on the agent's goroutine; App calls only take a lock.
func (ic *interactive) onEvent(ev agent.Event) {
	ui := ic.ui
	switch ev.Type {
	case live.EvQueueUpdate:
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
	case agent.EvSubagent:
		ic.children.Event(ev)
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
		ic.ui.AddUserMessage(session.ShownUserText(m))
		ic.updateQueue() // a queued message has just been delivered
	case provider.RoleAssistant:
		ic.ui.StartAssistant()
	case session.RoleCustom:
		switch c, _ := ic.custom(m); {
		case c.Notice:
			ic.ui.Notify(tui.LevelInfo, c.Text) // as Replay shows it when the session is resumed
		case !c.Hidden:
			ic.ui.AddCustomMessage(c.Type, c.Text, c.Render)
		}
	}
}

// custom is how a script's custom message shows: through the renderer a script registered
// for its type, unless it asks not to be shown. The session's own notices about background
// children show as notices, never as if the user had typed them. Other roles are not custom
// messages.
func (ic *interactive) custom(m *provider.Message) (tui.CustomMessage, bool) {
	c := *m
	if session.CustomType(&c) == subagent.NoticeType {
		return tui.CustomMessage{Type: subagent.NoticeType, Text: session.ShownUserText(&c), Notice: true}, c.Role == session.RoleCustom
	}
	return tui.CustomMessage{Type: session.CustomType(&c), Text: c.TextContent(), Hidden: !session.Displayed(&c),
		Render: func(x bool) []string { l, _ := ic.h.RenderMessage(ic.ctx, &c, x); return l }}, c.Role == session.RoleCustom
}

// updateFooter shows the session's totals and what the next request costs; the context in use
// is the size of the last request, as the last reply reported it.
func (ic *interactive) updateFooter() {
	h := ic.h
	st, stats := h.State(), h.Stats()
	model := st.Model.Label()
	if h.ModelProblem() != "" {
		model = "no model yet" // not the placeholder's none/none
	}
	f := tui.FooterInfo{Cwd: h.Cwd(), Session: st.SessionName, Model: model, Thinking: st.Thinking,
		Input: stats.Tokens.Input, Output: stats.Tokens.Output, CacheRead: stats.Tokens.CacheRead,
		CacheWrite: stats.Tokens.CacheWrite, Cost: stats.Cost, ContextWindow: st.Model.ContextWindow}
	f.ContextTokens = provider.ContextTokens(h.Agent().MessagesView())
	next := h.NextRequest()
	f.Reprocess, f.ReprocessSeconds = next.Reprocess, next.Seconds()
	ic.ui.SetFooter(f)
}

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

// ExtensionUI and Editor are the scripts' places on the screen (pi.set_status, pi.editor, …).
func (ic *interactive) ExtensionUI(m string, f map[string]any) { ic.ui.ExtensionUI(m, f) }
func (ic *interactive) Editor(ctx context.Context, title, prefill string) (string, bool, error) {
	return ic.ui.Editor(ctx, title, prefill)
}
