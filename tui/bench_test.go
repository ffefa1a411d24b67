package tui

import (
	"fmt"
	"strings"
	"testing"

	"pi/internal/cputime"
)

// benchReply is a typical markdown reply: headings, prose with emphasis, a list, a code block
// and a table.
func benchReply() string {
	var b strings.Builder
	for s := 0; s < 3; s++ {
		fmt.Fprintf(&b, "## Step %d\n\nThe **loop** reads the `session` file, checks the *context* window and "+
			"calls the model again when a tool result arrives; this paragraph is long enough to wrap.\n\n", s+1)
		b.WriteString("- first point about the change\n- second point, with `code`\n- third point\n\n")
		b.WriteString("```go\nfunc (a *Agent) run(ctx context.Context) error {\n\tfor {\n\t\tif err := a.turn(ctx); err != nil {\n\t\t\treturn err // stop\n\t\t}\n\t}\n}\n```\n\n")
		b.WriteString("| file | change | lines |\n|------|--------|------:|\n| loop.go | retry | 12 |\n| tui/app.go | render | 340 |\n\n")
	}
	return b.String()
}

// benchApp returns an App at 120×40 whose scrollback already holds about lines lines.
func benchApp(b *testing.B, lines int) (*App, *countWriter) {
	w := &countWriter{}
	app := NewApp(w, 120, 40, Callbacks{}, Options{ManualFrames: true})
	app.SetFooter(FooterInfo{Cwd: "/work/proj", Model: "qwen3:8b", Input: 1000, Output: 200})
	para := strings.Repeat("history line ", 8)
	for n := 0; n < lines; n += 50 {
		app.AddUserMessage("question")
		var t strings.Builder
		for range 24 {
			t.WriteString(para + "\n\n")
		}
		app.StartAssistant()
		app.EndAssistant(assistant(t.String()))
		app.Flush()
	}
	return app, w
}

type countWriter struct {
	n      int64
	clears int
}

func (c *countWriter) Write(p []byte) (int, error) {
	c.n += int64(len(p))
	c.clears += strings.Count(string(p), "\x1b[2J") + strings.Count(string(p), "\x1b[3J")
	return len(p), nil
}

// BenchmarkStreamChunk measures one streamed 16-character chunk of a markdown reply, drawn
// as a frame, at 120×40, after transcripts of 100 and 10,000 lines.
func BenchmarkStreamChunk(b *testing.B) {
	reply := benchReply()
	for _, lines := range []int{100, 10000} {
		b.Run(fmt.Sprintf("transcript=%d", lines), func(b *testing.B) {
			app, w := benchApp(b, lines)
			app.SetWorking(true)
			app.StartAssistant()
			start, pos := w.n, 0
			cpu0 := cputime.Used()
			b.ResetTimer()
			for range b.N {
				pos += 16
				if pos > len(reply) {
					app.EndAssistant(assistant(reply))
					app.StartAssistant()
					pos = 16
				}
				app.UpdateAssistant(assistant(reply[:pos]))
				app.Flush()
			}
			b.StopTimer()
			b.ReportMetric(float64(cputime.Used()-cpu0)/float64(b.N), "cpu-ns/chunk")
			b.ReportMetric(float64(w.n-start)/float64(b.N), "B/chunk")
			if w.clears != 0 {
				b.Fatalf("%d screen clears", w.clears)
			}
		})
	}
}

// BenchmarkStreamLongCodeBlock measures a chunk streamed at the end of a 300-line code block,
// the worst case for the open-chunk re-render.
func BenchmarkStreamLongCodeBlock(b *testing.B) {
	var code strings.Builder
	code.WriteString("Here is the file:\n\n```go\n")
	for i := range 300 {
		fmt.Fprintf(&code, "\tx%d := compute(%d) // step %d of the long function\n", i, i, i)
	}
	prefix := code.String()
	app, w := benchApp(b, 100)
	app.StartAssistant()
	start := w.n
	cpu0 := cputime.Used()
	b.ResetTimer()
	for i := range b.N {
		app.UpdateAssistant(assistant(prefix + strings.Repeat("y", i%64)))
		app.Flush()
	}
	b.StopTimer()
	b.ReportMetric(float64(cputime.Used()-cpu0)/float64(b.N), "cpu-ns/chunk")
	b.ReportMetric(float64(w.n-start)/float64(b.N), "B/chunk")
}

// BenchmarkStreamLongReply measures a chunk of a reply that keeps growing (by the end about
// 5,000 lines of markdown, far taller than the screen): a frame costs what the reply's last
// lines cost, not what all of it does.
func BenchmarkStreamLongReply(b *testing.B) {
	reply := benchReply()
	for len(reply) < 16*(b.N+1) {
		reply += benchReply()
	}
	app, w := benchApp(b, 1000)
	app.SetWorking(true)
	app.StartAssistant()
	start := w.n
	cpu0 := cputime.Used()
	b.ResetTimer()
	for i := range b.N {
		app.UpdateAssistant(assistant(reply[:16*(i+1)]))
		app.Flush()
	}
	b.StopTimer()
	b.ReportMetric(float64(cputime.Used()-cpu0)/float64(b.N), "cpu-ns/chunk")
	b.ReportMetric(float64(w.n-start)/float64(b.N), "B/chunk")
}
