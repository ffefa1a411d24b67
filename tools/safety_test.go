package tools

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"pi/provider"
)

// TestWriteRefusesUnreadFile: with WriteNeedsRead, write replaces an existing file only once
// the agent has seen it (read, edit, or its own write); new files are always fine.
func TestWriteRefusesUnreadFile(t *testing.T) {
	tests := []struct {
		name     string
		needs    bool
		before   func(env *Env)
		wantErr  bool
		wantText string
	}{
		{"unread, guard on", true, nil, true, "read it first"},
		{"unread, guard off", false, nil, false, "new"},
		{"read first", true, func(env *Env) { callTool(t, env, "read", map[string]any{"path": "old.txt"}) }, false, "new"},
		{"read a part first", true, func(env *Env) {
			callTool(t, env, "read", map[string]any{"path": "old.txt", "limit": 1})
		}, false, "new"},
		{"edited first", true, func(env *Env) {
			callTool(t, env, "edit", map[string]any{"path": "old.txt", "edits": []any{map[string]any{"oldText": "old", "newText": "older"}}})
		}, false, "new"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := testEnv(t)
			env.WriteNeedsRead = tt.needs
			writeFiles(t, env.Cwd, map[string]string{"old.txt": "old content\n"})
			if tt.before != nil {
				tt.before(env)
			}
			res := callTool(t, env, "write", map[string]any{"path": "old.txt", "content": "new"})
			data, _ := os.ReadFile(filepath.Join(env.Cwd, "old.txt"))
			if res.IsError != tt.wantErr || (tt.wantErr && !strings.Contains(resultText(res), tt.wantText)) {
				t.Fatalf("result %+v", res)
			}
			if !tt.wantErr && string(data) != tt.wantText {
				t.Fatalf("file holds %q", data)
			}
			if tt.wantErr && string(data) != "old content\n" {
				t.Fatalf("a refused write changed the file: %q", data)
			}
		})
	}
	env := testEnv(t)
	env.WriteNeedsRead = true
	for _, p := range []string{"fresh.txt", "new/dir/fresh.txt"} {
		if res := callTool(t, env, "write", map[string]any{"path": p, "content": "x"}); res.IsError {
			t.Errorf("a new file %s was refused: %s", p, resultText(res))
		}
	}
	if res := callTool(t, env, "write", map[string]any{"path": "fresh.txt", "content": "y"}); res.IsError {
		t.Errorf("rewriting a file this session wrote was refused: %s", resultText(res))
	}
}

// TestBashGetsTheEnvironGiven: the bash tool's command sees Env.Environ, not pi's environment.
func TestBashGetsTheEnvironGiven(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("bash tool test needs a POSIX shell")
	}
	t.Setenv("PI_TEST_SECRET_KEY", "sk-test-1234567890")
	env := testEnv(t)
	env.Environ = func() []string { return []string{"PATH=" + os.Getenv("PATH"), "ONLY_THIS=1"} }
	res := callTool(t, env, "bash", map[string]any{"command": "env"})
	out := resultText(res)
	if strings.Contains(out, "sk-test") || !strings.Contains(out, "ONLY_THIS=1") {
		t.Fatalf("env printed %q", out)
	}
}

func TestResultRedacted(t *testing.T) {
	redact := func(s string) (string, bool) {
		n := strings.ReplaceAll(s, "sk-secret", "[redacted]")
		return n, n != s
	}
	r := Result{Content: []provider.Block{provider.Text("key sk-secret here"), provider.Image("c2stc2VjcmV0", "image/png")},
		Details: map[string]any{"diff": "+sk-secret"}}
	got := r.Redacted(redact)
	if got.Content[0].Text != "key [redacted] here" || got.Content[1].Data != "c2stc2VjcmV0" {
		t.Errorf("content %+v", got.Content)
	}
	if d, _ := json.Marshal(got.Details); string(d) != `{"diff":"+[redacted]"}` {
		t.Errorf("details %s", d)
	}
	if r.Content[0].Text != "key sk-secret here" {
		t.Error("Redacted changed its receiver")
	}
}
