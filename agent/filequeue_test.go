package agent

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"pi/provider"
	"pi/provider/faux"
	"pi/tools"
)

// Calls of one reply that change one file run in the order the model sent them; the built-in
// edit and write would otherwise race (an edit then a write failed with "oldText not found").
func TestCallsOnOneFileRunInCallOrder(t *testing.T) {
	edit := func(id, path, old, nw string) provider.Block {
		return faux.Call(id, "edit", map[string]any{"path": path, "edits": []any{map[string]any{"oldText": old, "newText": nw}}})
	}
	write := func(id, path, content string) provider.Block {
		return faux.Call(id, "write", map[string]any{"path": path, "content": content})
	}
	tests := []struct {
		name  string
		calls []provider.Block
		want  string
	}{
		{"edit then write", []provider.Block{edit("e", "a.txt", "one", "two"), write("w", "a.txt", "two three\n")}, "two three\n"},
		{"write then edit", []provider.Block{write("w", "a.txt", "fresh\n"), edit("e", "./a.txt", "fresh", "edited")}, "edited\n"},
		{"two edits and a read of another file", []provider.Block{edit("e1", "a.txt", "one", "two"),
			faux.Call("r", "read", map[string]any{"path": "b.txt"}), edit("e2", "sub/../a.txt", "two", "three")}, "three\n"},
		{"through a symlink", []provider.Block{write("w", "link.txt", "via link\n"), edit("e", "a.txt", "via", "through")}, "through link\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for range 20 { // goroutines start in any order: repeat so that a race would show
				dir := t.TempDir()
				os.Mkdir(filepath.Join(dir, "sub"), 0o755)
				os.WriteFile(filepath.Join(dir, "a.txt"), []byte("one\n"), 0o644)
				os.WriteFile(filepath.Join(dir, "b.txt"), []byte("other\n"), 0o644)
				os.Symlink("a.txt", filepath.Join(dir, "link.txt"))
				env, err := tools.NewEnv(dir)
				if err != nil {
					t.Fatal(err)
				}
				var ts []tools.Tool
				for _, name := range []string{"read", "edit", "write"} {
					tool, _ := tools.New(name, env)
					ts = append(ts, tool)
				}
				a, _ := newTestAgent(t, faux.New(faux.Blocks(tc.calls...), faux.Text("done")), ts...)
				prompt(t, a, "go")
				for _, m := range lastToolResults(a) {
					if m.IsError {
						t.Fatalf("%s failed: %s", m.ToolCallID, m.Content[0].Text)
					}
				}
				if got, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(got) != tc.want {
					t.Fatalf("a.txt = %q, want %q", got, tc.want)
				}
			}
		})
	}
}

// The queue orders only calls on one file: a call on another file runs while the first change
// is still in flight, and the second change to the file starts only after the first ended.
func TestCallsOnOtherFilesStillRunAlongside(t *testing.T) {
	otherStarted := make(chan struct{})
	var mu sync.Mutex
	var log []string
	record := func(s string) { mu.Lock(); log = append(log, s); mu.Unlock() }
	changer := func(name string) *tools.Func {
		f := testTool(name, func(ctx context.Context, args map[string]any) (tools.Result, error) {
			record(fmt.Sprintf("start %v", args["x"]))
			defer record(fmt.Sprintf("end %v", args["x"]))
			if fmt.Sprint(args["x"]) == "1" {
				select { // the first change holds its file until the other call has started
				case <-otherStarted:
				case <-time.After(10 * time.Second):
					return tools.ErrorResult("the call on another file never started alongside"), nil
				}
			}
			return tools.TextResult("ok"), nil
		})
		f.Changes = func(map[string]any) []string { return []string{"/same/file"} }
		return f
	}
	other := testTool("other", func(context.Context, map[string]any) (tools.Result, error) {
		close(otherStarted)
		return tools.TextResult("ok"), nil
	})
	p := faux.New(faux.Blocks(faux.Call("c1", "change", map[string]any{"x": 1}), faux.Call("c2", "change", map[string]any{"x": 2}),
		faux.Call("o", "other", map[string]any{"x": 3})), faux.Text("done"))
	a, _ := newTestAgent(t, p, changer("change"), other)
	start := time.Now()
	prompt(t, a, "go")
	for _, m := range lastToolResults(a) {
		if m.IsError {
			t.Fatalf("%s: %s", m.ToolCallID, m.Content[0].Text)
		}
	}
	if got := strings.Join(log, ", "); got != "start 1, end 1, start 2, end 2" {
		t.Errorf("calls on one file ran as %q, want one after the other in call order", got)
	}
	t.Logf("batch took %v", time.Since(start))
}
