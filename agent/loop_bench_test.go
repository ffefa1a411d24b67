package agent

import (
	"context"
	"testing"

	"pi/provider"
	"pi/provider/faux"
	"pi/tools"

	"pi/internal/cputime"
)

// BenchmarkToolTurn measures the loop's own cost of one tool turn: a streamed reply with one
// tool call, validation, a no-op tool, the result message and every event, with one
// subscriber attached. The faux provider's scripted usage keeps its own work constant.
func BenchmarkToolTurn(b *testing.B) {
	usage := &provider.Usage{Input: 100, Output: 10, TotalTokens: 110}
	turn := faux.Blocks(faux.Call("c1", "noop", map[string]any{"x": 1}))
	turn.Usage = usage
	final := faux.Text("done")
	final.Usage = usage
	calls := 0
	n := b.N
	p := faux.New()
	p.Append(faux.Reply(func(*provider.Request) provider.Message { return turn }))
	for i := 1; i < n; i++ {
		p.Append(faux.Reply(func(*provider.Request) provider.Message { return turn }))
	}
	p.Append(final)
	noop := &tools.Func{Spec: tools.Info{Name: "noop", Description: "does nothing", Parameters: intSchema},
		Run: func(context.Context, string, map[string]any, func(tools.Result)) (tools.Result, error) {
			calls++
			return tools.Result{}, nil
		}}
	a := New(Config{Provider: p, Model: provider.Model{ID: "faux-1", API: "faux"}, Tools: []tools.Tool{noop}})
	a.Subscribe(func(context.Context, Event) {})
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cputime.Used()
	if err := a.Prompt(context.Background(), provider.UserText("go", 1)); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	// CPU time is reported beside wall time because a shared machine inflates the latter.
	b.ReportMetric(float64((cputime.Used()-cpu0).Nanoseconds())/float64(n), "cpu-ns/op")
	if calls != n {
		b.Fatalf("tool ran %d times, want %d", calls, n)
	}
}
