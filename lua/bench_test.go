package lua

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"pi/internal/cputime"
)

func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(cputime.Used()-start)/float64(b.N), "cpu-ns/op")
}

func benchEnv(b *testing.B) *env {
	root := b.TempDir()
	e := &env{home: filepath.Join(root, "home"), cwd: filepath.Join(root, "project")}
	e.opts = Options{PiHome: e.home, Cwd: e.cwd}
	b.Setenv("HOME", root)
	return e
}

// BenchmarkToolCallHook is the cost one no-op Lua tool_call handler adds to a tool call.
func BenchmarkToolCallHook(b *testing.B) {
	for _, tc := range []struct{ name, src string }{
		{"none", ""},
		{"noop", `pi.on("tool_call", function(ev) end)`},
		{"inspect", `pi.on("tool_call", function(ev) if ev.input.command:find("rm -rf") then return {block = true} end end)`},
	} {
		b.Run(tc.name, func(b *testing.B) {
			e := benchEnv(b)
			e.opts.Trust = true
			writeFile(b, filepath.Join(e.cwd, ".pi", "init.lua"), tc.src)
			r, err := New(context.Background(), e.opts)
			if err != nil {
				b.Fatal(err)
			}
			defer r.Close()
			r.Ready(context.Background())
			ctx := context.Background()
			b.ReportAllocs()
			start := cputime.Used()
			for b.Loop() {
				args := map[string]any{"command": "ls -la", "timeout": 30.0}
				if block, _ := r.ToolCall(ctx, "bash", "call-1", args); block {
					b.Fatal("blocked")
				}
			}
			reportCPU(b, start)
		})
	}
}

// BenchmarkNew is the start-up cost of the runtime with the bundled scripts, in an empty
// project and in one with a few skills and prompt templates.
func BenchmarkNew(b *testing.B) {
	for _, files := range []int{0, 10} {
		b.Run(fmt.Sprintf("skills+templates=%d", files), func(b *testing.B) {
			e := benchEnv(b)
			writeFile(b, filepath.Join(e.cwd, ".git", "HEAD"), "ref: refs/heads/main\n")
			for i := 0; i < files; i++ {
				writeFile(b, filepath.Join(e.cwd, ".pi", "skills", fmt.Sprintf("s%d", i), "SKILL.md"),
					fmt.Sprintf("---\nname: s%d\ndescription: Skill number %d.\n---\nBody.\n", i, i))
				writeFile(b, filepath.Join(e.cwd, ".pi", "prompts", fmt.Sprintf("p%d.md", i)), "Do $1.\n")
			}
			ctx := context.Background()
			b.ReportAllocs()
			start := cputime.Used()
			for b.Loop() {
				r, err := New(ctx, e.opts)
				if err != nil {
					b.Fatal(err)
				}
				if err := r.Ready(ctx); err != nil {
					b.Fatal(err)
				}
				r.Close()
			}
			reportCPU(b, start)
		})
	}
}

// TestStartupTime logs how long the first New of a process takes, which is what pi's start-up
// pays (no warm caches, a small heap, so usually no garbage collection during compilation).
// Run it alone for a meaningful figure: go test ./lua/ -run TestStartupTime -v -count 1
func TestStartupTime(t *testing.T) {
	root := t.TempDir()
	t.Setenv("HOME", root)
	// Folders to search and a policy to enforce: every bundled script loads.
	opts := Options{PiHome: filepath.Join(root, "home"), Cwd: filepath.Join(root, "project"),
		Host: Host{Permissions: func() map[string]any { return map[string]any{"mode": "ask"} }}}
	for _, dir := range []string{"skills", "prompts"} {
		if err := os.MkdirAll(filepath.Join(opts.PiHome, dir), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cpu, start := cputime.Used(), time.Now()
	r, err := New(context.Background(), opts)
	returned := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Ready(context.Background()); err != nil {
		t.Fatal(err)
	}
	wall, cpuUsed := time.Since(start), cputime.Used()-cpu
	r.Close()
	t.Logf("first New with the bundled scripts: returned after %v, ready after %v wall, %v CPU", returned, wall, cpuUsed)
}

// BenchmarkCheckpointsScript is what the bundled checkpoints script adds where no file
// changes: loading it (New with it against New without), and a turn whose one tool call is
// read-only (the events it listens to, the tool_call hook that looks and returns), which
// takes no snapshot. go test -run '^$' -bench CheckpointsScript ./lua
func BenchmarkCheckpointsScript(b *testing.B) {
	for _, load := range []string{"off", "empty", "on"} {
		b.Run("load/checkpoints="+load, func(b *testing.B) {
			e := benchEnv(b)
			switch load {
			case "off":
				e.opts.Disabled = []string{"checkpoints"}
			case "empty": // an empty replacement: what any script costs (the state and the pi module)
				writeFile(b, filepath.Join(e.home, "lua", "checkpoints.lua"), "")
			}
			ctx := context.Background()
			start := cputime.Used()
			for b.Loop() {
				r, err := New(ctx, e.opts)
				if err != nil {
					b.Fatal(err)
				}
				if err := r.Ready(ctx); err != nil {
					b.Fatal(err)
				}
				r.Close()
			}
			reportCPU(b, start)
		})
	}
	for _, on := range []bool{false, true} {
		b.Run(fmt.Sprintf("read-only-turn/checkpoints=%v", on), func(b *testing.B) {
			e := benchEnv(b)
			if !on {
				e.opts.Disabled = []string{"checkpoints"}
			}
			ctx := context.Background()
			r, err := New(ctx, e.opts)
			if err != nil {
				b.Fatal(err)
			}
			defer r.Close()
			r.Ready(ctx)
			start := cputime.Used()
			for b.Loop() {
				r.Emit(ctx, "agent_start", map[string]any{})
				r.Emit(ctx, "turn_start", map[string]any{"turn_index": 0})
				r.CheckToolCall(ctx, ToolCallEvent{Name: "read", ID: "c1", Args: map[string]any{"path": "notes.txt"}, ReadOnly: true})
				r.Emit(ctx, "turn_end", map[string]any{"turn_index": 0})
				r.Emit(ctx, "agent_end", map[string]any{})
				r.Flush(ctx)
			}
			reportCPU(b, start)
		})
	}
}
