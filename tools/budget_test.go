package tools

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"pi/provider"
)

// TestResultsSizedToTheWindow reads a 5 MB file, and runs bash, grep, find and ls over big
// output, with an 8,192-token window and a 128k one: the small window gets at most a quarter of
// itself (estimated at 4 bytes a token) with the paging notice; the large one gets pi's limits.
func TestResultsSizedToTheWindow(t *testing.T) {
	env := testEnv(t)
	var big strings.Builder
	for i := 0; big.Len() < 5<<20; i++ {
		fmt.Fprintf(&big, "line %07d: the quick brown fox jumps over the lazy dog, again and again and again\n", i)
	}
	files := map[string]string{"big.txt": big.String()}
	for i := 0; i < 3000; i++ {
		files[fmt.Sprintf("d/file-with-a-longish-name-%04d.txt", i)] = "x\n"
	}
	writeFiles(t, env.Cwd, files)
	calls := []struct {
		tool   string
		args   map[string]any
		notice string
	}{
		{"read", map[string]any{"path": "big.txt"}, "Continue with offset="},
		{"bash", map[string]any{"command": "cat big.txt"}, "Full output: "},
		{"grep", map[string]any{"pattern": "fox", "path": "big.txt", "limit": 100000}, "Output cut at the"},
		{"find", map[string]any{"pattern": "*.txt", "limit": 100000}, "Output cut at the"},
		{"ls", map[string]any{"path": "d", "limit": 100000}, "Output cut at the"},
	}
	for _, window := range []int{8192, 128000} {
		env.Window = func() int { return window }
		for _, c := range calls {
			t.Run(fmt.Sprintf("%s/%d", c.tool, window), func(t *testing.T) {
				text := resultText(callTool(t, env, c.tool, c.args))
				tokens := len(text) / bytesPerToken
				t.Logf("%s with a %d-token window: %d bytes, about %d tokens", c.tool, window, len(text), tokens)
				if !strings.Contains(text, c.notice) {
					t.Fatalf("no paging notice %q in the last bytes %q", c.notice, text[max(0, len(text)-200):])
				}
				switch window {
				case 8192:
					if tokens > window/4 {
						t.Errorf("%d tokens, over a quarter of the window", tokens)
					}
				default:
					if len(text) > DefaultMaxBytes+noticeBytes || len(text) < DefaultMaxBytes*9/10 {
						t.Errorf("%d bytes, want pi's %d-byte limit", len(text), DefaultMaxBytes)
					}
				}
			})
		}
	}
}

func TestLimitsFor(t *testing.T) {
	for _, tc := range []struct{ window, bytes int }{
		{0, DefaultMaxBytes}, {2048, 1792}, {8192, 7936}, {32768, 32512}, {128000, DefaultMaxBytes}, {1000, minResultBytes},
	} {
		if l := LimitsFor(tc.window); l.MaxBytes != tc.bytes || l.MaxLines != DefaultMaxLines {
			t.Errorf("window %d: %+v, want %d bytes", tc.window, l, tc.bytes)
		}
	}
}

// TestBudgetedScriptTool checks the wrapper script tools get: a result over the limits is cut
// with a notice, partial results too; one within them is untouched.
func TestBudgetedScriptTool(t *testing.T) {
	out := strings.Repeat("0123456789\n", 2000)
	inner := &Func{Spec: Info{Name: "dump"}, Run: func(_ context.Context, _ string, args map[string]any, up func(Result)) (Result, error) {
		up(TextResult(out))
		if args["small"] == true {
			return TextResult("ok"), nil
		}
		return Result{Content: []provider.Block{provider.Text(out), provider.Image("AAAA", "image/png")}}, nil
	}}
	tool := Budgeted(inner, func() Limits { return LimitsFor(4096) })
	var partial Result
	res, err := tool.Execute(context.Background(), "c", map[string]any{}, func(r Result) { partial = r })
	text := resultText(res)
	if err != nil || len(text) > 4096 || !strings.Contains(text, "[Output cut to") || res.Content[1].Type != provider.BlockImage {
		t.Fatalf("result of %d bytes: %q… (%v)", len(text), text[:min(len(text), 80)], err)
	}
	if len(resultText(partial)) > 4096 {
		t.Errorf("partial result not cut: %d bytes", len(resultText(partial)))
	}
	if res, _ := tool.Execute(context.Background(), "c", map[string]any{"small": true}, func(Result) {}); resultText(res) != "ok" {
		t.Errorf("small result changed: %q", resultText(res))
	}
}
