package tools

import (
	"context"
	"fmt"

	"pi/provider"
)

// Limits bound the text of one tool result.
type Limits struct {
	MaxLines, MaxBytes int
}

// DefaultLimits are pi's: 2,000 lines or 50 KB.
func DefaultLimits() Limits { return Limits{MaxLines: DefaultMaxLines, MaxBytes: DefaultMaxBytes} }

// Budget constants: one result may take a quarter of the model's context window, in tokens
// estimated at bytesPerToken (pi's estimate, also the compaction's), less room for the notice
// that says how to page on; never less than minResultBytes.
const (
	bytesPerToken  = 4
	noticeBytes    = 256
	minResultBytes = 1024
)

// LimitsFor returns the limits of one tool result for a model whose context window is window
// tokens: a quarter of the window, never above pi's limits. A window of 0 (unknown) gets pi's.
// An 8,192-token window allows 7,936 bytes (about 2,000 tokens with the notice); from about
// 200k tokens up pi's 50 KB hold.
func LimitsFor(window int) Limits {
	l := DefaultLimits()
	if window <= 0 {
		return l
	}
	l.MaxBytes = min(l.MaxBytes, max(minResultBytes, window/4*bytesPerToken-noticeBytes))
	return l
}

// Limits are the limits of one result for the current model, as the built-in tools apply them:
// Window's, else pi's.
func (e *Env) Limits() Limits {
	if e == nil || e.Window == nil {
		return DefaultLimits()
	}
	return LimitsFor(e.Window())
}

// Fit cuts the text of a result to the limits, keeping its start, with a notice of what was
// left out. It is for tools that do not size their own output (script tools); the built-ins
// already do.
func Fit(res Result, l Limits) Result {
	total := 0
	for _, b := range res.Content {
		if b.Type == provider.BlockText {
			total += len(b.Text)
		}
	}
	if total <= l.MaxBytes && len(res.Content) > 0 {
		lines := 0
		for _, b := range res.Content {
			lines += countLines(b.Text)
		}
		if lines <= l.MaxLines {
			return res
		}
	}
	budget := l.MaxBytes
	out := make([]provider.Block, 0, len(res.Content)+1)
	var tr Truncation
	for _, b := range res.Content {
		if b.Type != provider.BlockText {
			out = append(out, b)
			continue
		}
		var cut Truncation
		b.Text, cut = TruncateHead(b.Text, l.MaxLines, max(budget, 0))
		budget -= len(b.Text)
		tr.Truncated = tr.Truncated || cut.Truncated
		tr.OutputBytes += cut.OutputBytes
		tr.OutputLines += cut.OutputLines
		out = append(out, b)
	}
	if !tr.Truncated {
		return res
	}
	out = append(out, provider.Text(fmt.Sprintf("\n\n[Output cut to %s of %s (the limit for this model's context window); ask for less, e.g. a narrower query or a page of it.]",
		FormatSize(tr.OutputBytes), FormatSize(total))))
	res.Content = out
	return res
}

// budgeted is a tool whose results Fit the limits of the moment.
type budgeted struct {
	Tool
	limits func() Limits
}

// Budgeted wraps t so that every result, partial ones too, fits limits() (Env.Limits for the
// current model). Script tools get it; the built-ins size their own output.
func Budgeted(t Tool, limits func() Limits) Tool {
	if _, ok := t.(*budgeted); ok || limits == nil {
		return t
	}
	return &budgeted{Tool: t, limits: limits}
}

func (b *budgeted) Execute(ctx context.Context, callID string, args map[string]any, onUpdate func(Result)) (Result, error) {
	if onUpdate != nil {
		inner := onUpdate
		onUpdate = func(r Result) { inner(Fit(r, b.limits())) }
	}
	res, err := b.Tool.Execute(ctx, callID, args, onUpdate)
	if err != nil {
		return res, err
	}
	return Fit(res, b.limits()), nil
}

// PrepareArguments passes the wrapped tool's shim on (ArgumentPreparer).
func (b *budgeted) PrepareArguments(ctx context.Context, args map[string]any) map[string]any {
	if p, ok := b.Tool.(ArgumentPreparer); ok {
		return p.PrepareArguments(ctx, args)
	}
	return args
}

// BudgetAll wraps each tool of ts with Budgeted, in place, and returns ts.
func BudgetAll(ts []Tool, limits func() Limits) []Tool {
	for i, t := range ts {
		ts[i] = Budgeted(t, limits)
	}
	return ts
}
