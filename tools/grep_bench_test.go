//go:build unix

package tools

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"pi/internal/cputime"
)

// grepBenchCases are searched across the Go distribution's source tree, by our grep and by
// ripgrep in the same run: go test -run '^$' -bench GrepGoSrc ./tools/
// Besides wall time each reports cpu-ms/op (user + system), which a loaded machine disturbs
// less.
var grepBenchCases = []struct {
	name, pattern string
	literal       bool
}{
	{"literal", "context.Context", true},
	{"regex", `func \w+\(ctx context\.Context`, false},
	{"regex-inner-literal", `\w+Error\(`, false},
	{"regex-no-literal", `[A-Z][a-z]+[0-9]{3}`, false},
	{"ignore-case", `(?i)deadline exceeded`, false},
	{"word-boundary-no-literal", `\b[A-Z][A-Z0-9_]{7,}\b`, false},
}

func BenchmarkGrepGoSrc(b *testing.B) {
	root := filepath.Join(runtime.GOROOT(), "src")
	if _, err := os.Stat(root); err != nil {
		b.Skip("no Go source tree:", err)
	}
	env, err := NewEnv(root)
	if err != nil {
		b.Fatal(err)
	}
	rg, rgErr := exec.LookPath("rg")
	for _, c := range grepBenchCases {
		b.Run(c.name+"/pi", func(b *testing.B) {
			tool, _ := New("grep", env)
			args := map[string]any{"pattern": c.pattern, "literal": c.literal, "limit": float64(1 << 30)}
			before := cputime.Used()
			for b.Loop() {
				if res, err := tool.Execute(context.Background(), "b", args, nil); err != nil || res.IsError {
					b.Fatal(err, resultText(res))
				}
			}
			b.ReportMetric(float64(cputime.Used()-before)/float64(b.N)/1e6, "cpu-ms/op")
		})
		b.Run(c.name+"/rg", func(b *testing.B) {
			if rgErr != nil {
				b.Skip("ripgrep not installed")
			}
			flags := []string{"--line-number", "--color=never", "--hidden", "--no-require-git"}
			if c.literal {
				flags = append(flags, "--fixed-strings")
			}
			var cpu time.Duration
			for b.Loop() {
				cmd := exec.Command(rg, append(flags, "--", c.pattern, root)...)
				cmd.Stdout = io.Discard
				if err := cmd.Run(); err != nil {
					b.Fatal(err)
				}
				cpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
			}
			b.ReportMetric(float64(cpu)/float64(b.N)/1e6, "cpu-ms/op")
		})
	}
}
