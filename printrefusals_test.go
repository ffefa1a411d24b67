package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPrintModesSayWhatTheyRefused: pi -p and --mode json write one stderr line per refused
// tool call, naming the mode and what --yes does about it; a call that ran, or failed on its
// own, adds nothing.
func TestPrintModesSayWhatTheyRefused(t *testing.T) {
	script := filepath.Join(t.TempDir(), "script.json")
	os.WriteFile(script, []byte(`[
	 {"content": [{"type": "toolCall", "id": "c1", "name": "read", "arguments": {"path": "a.txt"}}]},
	 {"content": [{"type": "toolCall", "id": "c2", "name": "edit", "arguments": {"path": "a.txt", "edits": [{"oldText": "one", "newText": "two"}]}},
	              {"type": "toolCall", "id": "c3", "name": "read", "arguments": {"path": "missing.txt"}}]},
	 {"content": [{"type": "text", "text": "done"}]}]`), 0o644)
	cases := []struct {
		name  string
		args  []string
		lines int
		want  string
	}{
		{"ask", []string{"--permissions", "ask"}, 1, "refused a call to edit: permissions are in ask mode and pi has nobody to ask here (print or JSON mode); pass --yes"},
		{"read-only", []string{"--permissions", "read-only"}, 1, "--yes would not change that"},
		{"ask with --yes", []string{"--permissions", "ask", "--yes"}, 0, ""},
		{"auto", nil, 0, ""},
	}
	for _, c := range cases {
		for _, mode := range []struct{ name, flag string }{{"print", "-p"}, {"JSON", "--mode=json"}} {
			t.Run(c.name+"/"+mode.name, func(t *testing.T) {
				dir, home := t.TempDir(), t.TempDir()
				t.Setenv("PI_HOME", home)
				t.Chdir(dir)
				os.WriteFile(filepath.Join(dir, "a.txt"), []byte("one\n"), 0o644)
				var stdout, stderr bytes.Buffer
				args := append(append([]string{"--no-session", "--faux-script", script}, c.args...), mode.flag, "change a.txt")
				if code := run(context.Background(), args, strings.NewReader(""), &stdout, &stderr); code != 0 {
					t.Fatalf("exit %d: %s", code, stderr.String())
				}
				got := strings.Count(stderr.String(), "mode refused")
				if got != c.lines || !strings.Contains(stderr.String(), c.want) || !strings.Contains(stderr.String(), mode.name+" mode") == (c.lines > 0) {
					t.Fatalf("%d refusal lines, want %d with %q; stderr:\n%s", got, c.lines, c.want, stderr.String())
				}
			})
		}
	}
}
