// Package tools owns the Tool interface, the built-in tools (read, write, edit, bash, grep,
// find, ls), output truncation, and the validation and repair of the arguments models send.
//
// It may import provider (for content blocks), internal/gitwalk (for grep and find),
// internal/proc (for bash's process) and images (to fit the pictures read and @file take in),
// and nothing else of this module. It knows nothing of the
// agent loop, sessions, Lua or the terminal.
package tools

import (
	"context"
	"encoding/json"

	"pi/provider"
)

// Info describes a tool to the model and to the loop.
type Info struct {
	Name        string
	Label       string // a name for people (pi's label); "" shows Name
	Description string
	Parameters  json.RawMessage // a JSON Schema object
	// Sequential tools never run alongside others: a batch with one runs one call at a time.
	Sequential bool
	// ReadOnly tools change nothing (files, processes, the world): permission modes let them
	// run without asking.
	ReadOnly bool
	// Snippet is the one line the system prompt lists for this tool; Guidelines are short
	// bullets added to the prompt's guidelines while the tool is active.
	Snippet    string
	Guidelines []string
	// NoConstrainedSampling keeps the arguments free where the server would otherwise be asked
	// to constrain them to Parameters.
	NoConstrainedSampling bool
	// Deferred tools are offered only once asked for (added_tools, set_active_tools, an
	// allow-list naming them): their declarations cost the window nothing until then.
	Deferred bool
}

// DeclTokens estimates what the tool's declaration costs the window: its name, description
// and schema at four characters a token, as pi estimates messages.
func (i *Info) DeclTokens() int {
	return (len(i.Name) + len(i.Description) + len(i.Parameters) + 3) / 4
}

// Def is what a provider sends to a model for this tool.
func (i *Info) Def() provider.ToolDef {
	return provider.ToolDef{Name: i.Name, Description: i.Description, Parameters: i.Parameters,
		NoConstrainedSampling: i.NoConstrainedSampling}
}

// Result is what a tool call produced.
type Result struct {
	Content []provider.Block
	Details any // JSON-encodable; shown to the UI, never to the model
	IsError bool
	// Terminate asks the loop not to call the model again after this batch; it takes effect only
	// when every result of the batch asks for it.
	Terminate bool
	// Usage is the tool's own model usage (a script that asked a model): kept with the result and
	// counted in the session's cost, never in the context's size.
	Usage *provider.Usage
	// AddedTools names tools this result makes available: they are active from the next model
	// call, which is told of them.
	AddedTools []string
}

// ArgumentPreparer is a tool that rewrites the model's arguments before they are checked
// against Parameters (pi's prepareArguments): a shim for an older or sloppier shape. It gets
// a copy and returns what is checked and run.
type ArgumentPreparer interface {
	PrepareArguments(ctx context.Context, args map[string]any) map[string]any
}

// RenderCallKey and RenderResultKey, in a result's Details map, carry the short text a
// script's render_call and render_result made: the terminal UI shows it in place of its own
// summary of the arguments and of the output.
// RenderShellKey is there with "self" when the tool draws its whole box (render_shell =
// "self"): the terminal UI then shows those texts without its own frame.
const (
	RenderCallKey   = "pi_render_call"
	RenderResultKey = "pi_render_result"
	RenderShellKey  = "pi_render_shell"
)

// TextResult is a result holding one text block.
func TextResult(text string) Result {
	return Result{Content: []provider.Block{provider.Text(text)}}
}

// ErrorResult is an error result holding one text block.
func ErrorResult(text string) Result {
	return Result{Content: []provider.Block{provider.Text(text)}, IsError: true}
}

// Tool is something the model can call. Execute gets validated arguments; it reports partial
// output through onUpdate (which may be nil-safe called at any rate) and honours ctx. An error
// return becomes an error result carrying the error's text.
type Tool interface {
	Info() *Info
	Execute(ctx context.Context, callID string, args map[string]any, onUpdate func(Result)) (Result, error)
}

// Func adapts a function to Tool; tests and small tools use it.
type Func struct {
	Spec Info
	Run  func(ctx context.Context, callID string, args map[string]any, onUpdate func(Result)) (Result, error)
	// Changes, when set, names the files a call may change (see FileChanger).
	Changes func(args map[string]any) []string
}

// Info returns the tool's description.
func (f *Func) Info() *Info { return &f.Spec }

// Execute calls Run.
func (f *Func) Execute(ctx context.Context, callID string, args map[string]any, onUpdate func(Result)) (Result, error) {
	return f.Run(ctx, callID, args, onUpdate)
}

// Redacted returns r with redact applied to its text blocks and to its details as JSON (the
// details become that JSON when redact changed them); r itself is left as it was.
func (r Result) Redacted(redact func(string) (string, bool)) Result {
	out := r
	if r.Content != nil {
		out.Content = make([]provider.Block, len(r.Content))
	}
	for i, b := range r.Content {
		if b.Type == provider.BlockText {
			b.Text, _ = redact(b.Text)
		}
		out.Content[i] = b
	}
	if r.Details == nil {
		return out
	}
	data, ok := r.Details.(json.RawMessage)
	if !ok {
		var err error
		if data, err = json.Marshal(r.Details); err != nil {
			return out
		}
	}
	if text, changed := redact(string(data)); changed {
		out.Details = json.RawMessage(text)
	}
	return out
}

// LabelOf is the label of the tool called name among ts, "" when it has none or is not there.
func LabelOf(ts []Tool, name string) string {
	for _, t := range ts {
		if info := t.Info(); info.Name == name {
			return info.Label
		}
	}
	return ""
}
