package lua

import (
	"context"
	"errors"
)

// Host is what the runtime cannot know by itself: the agent, the model, the user. main
// supplies it; every field may be nil, and a nil field gets the behaviour of a run with no
// user interface (print and JSON modes), noted on each field.
//
// The functions are called from the Lua owner goroutine or from a goroutine of an awaited
// call; they must not call back into the Runtime synchronously except through Emit (which
// never waits).
type Host struct {
	// SendUserMessage queues text as a user message. deliverAs is "steer", "follow_up", or ""
	// (send now when idle, else follow up). nil: an error for the script.
	SendUserMessage func(text, deliverAs string) error
	// Notify shows a message; level is info, warning or error. nil: notices are only kept for
	// Runtime.Notices.
	Notify func(msg, level string)
	// Session reaches the live session and the screen's extension slots (session_api.go).
	// nil: pi.is_idle is true, the screen functions do nothing, the others fail.
	Session Session
	// Confirm asks a yes/no question. nil: false.
	Confirm func(ctx context.Context, title, msg string) (bool, error)
	// Select asks to pick one of options; ok is false when the user dismissed it. nil: none.
	Select func(ctx context.Context, title string, options []string) (choice string, ok bool, err error)
	// Input asks for a line of text; ok is false when dismissed. nil: none.
	Input func(ctx context.Context, title, placeholder string) (text string, ok bool, err error)
	// Model is the current model as "provider/id". nil: "".
	Model func() string
	// SetModel switches the model ("provider/id" or an id). nil: an error for the script.
	SetModel func(ctx context.Context, spec string) error
	// ActiveTools names the tools the model can call now. nil: none.
	ActiveTools func() []string
	// SetActiveTools changes them. nil: an error for the script.
	SetActiveTools func(names []string) error
	// Complete makes one model call outside the conversation. nil: an error for the script.
	Complete func(ctx context.Context, prompt string, opts CompleteOptions) (string, error)
	// Config is the [extensions.<name>] table of pi.toml, or nil; for "mcp", the [mcp] table
	// as the bundled mcp script reads it ({servers = {NAME = {…, project = bool}}}).
	Config func(name string) map[string]any
	// Permissions is what the permission policy applies: {mode, allow, ask, deny}. nil: auto
	// without rules.
	Permissions func() map[string]any
	// AskPermission lets the user decide a tool call the policy asks about; rule is what an
	// "always" answer remembers; reason is for the model when the answer is no. nil: no.
	AskPermission func(ctx context.Context, tool, summary, rule string) (ok bool, reason string, err error)
	// Subagents runs child sessions for pi.subagent (lua/subagent.go). nil: none.
	Subagents Subagents
}

// CompleteOptions tune pi.complete.
type CompleteOptions struct {
	System string // a system prompt for this call
	Model  string // "provider/id"; "" is the current model
}

var errNoUI = errors.New("not available in this mode")

func (h *Host) sendUserMessage(text, deliverAs string) error {
	if h.SendUserMessage == nil {
		return errNoUI
	}
	return h.SendUserMessage(text, deliverAs)
}

func (h *Host) confirm(ctx context.Context, title, msg string) (bool, error) {
	if h.Confirm == nil {
		return false, nil
	}
	return h.Confirm(ctx, title, msg)
}

func (h *Host) selectOne(ctx context.Context, title string, options []string) (string, bool, error) {
	if h.Select == nil {
		return "", false, nil
	}
	return h.Select(ctx, title, options)
}

func (h *Host) input(ctx context.Context, title, placeholder string) (string, bool, error) {
	if h.Input == nil {
		return "", false, nil
	}
	return h.Input(ctx, title, placeholder)
}

func (h *Host) model() string {
	if h.Model == nil {
		return ""
	}
	return h.Model()
}

func (h *Host) setModel(ctx context.Context, spec string) error {
	if h.SetModel == nil {
		return errNoUI
	}
	return h.SetModel(ctx, spec)
}

func (h *Host) activeTools() []string {
	if h.ActiveTools == nil {
		return nil
	}
	return h.ActiveTools()
}

func (h *Host) setActiveTools(names []string) error {
	if h.SetActiveTools == nil {
		return errNoUI
	}
	return h.SetActiveTools(names)
}

func (h *Host) complete(ctx context.Context, prompt string, opts CompleteOptions) (string, error) {
	if h.Complete == nil {
		return "", errNoUI
	}
	return h.Complete(ctx, prompt, opts)
}

func (h *Host) config(name string) map[string]any {
	if h.Config == nil {
		return nil
	}
	return h.Config(name)
}

func (h *Host) permissions() map[string]any {
	if h.Permissions == nil {
		return map[string]any{"mode": "auto"}
	}
	return h.Permissions()
}

func (h *Host) askPermission(ctx context.Context, tool, summary, rule string) (bool, string, error) {
	if h.AskPermission == nil {
		return false, "Tool " + tool + " was not run: nobody can be asked for permission here.", nil
	}
	return h.AskPermission(ctx, tool, summary, rule)
}
