package tools

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"pi/internal/proc"
	"pi/provider"
)

// testEnv is an Env rooted in a fresh temporary directory.
func testEnv(t *testing.T) *Env {
	t.Helper()
	env, err := NewEnv(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	env.Spill = proc.NewSpillDir(t.TempDir())
	t.Cleanup(func() { env.Close() })
	return env
}

// callTool runs the built-in name with args and folds an error return into an error result,
// as the loop does.
func callTool(t *testing.T, env *Env, name string, args map[string]any) Result {
	t.Helper()
	tool, err := New(name, env)
	if err != nil {
		t.Fatal(err)
	}
	res, err := tool.Execute(context.Background(), "call-1", args, nil)
	if err != nil {
		return ErrorResult(err.Error())
	}
	return res
}

func resultText(r Result) string {
	s := ""
	for _, b := range r.Content {
		if b.Type == provider.BlockText {
			s += b.Text
		}
	}
	return s
}

// writeFiles creates files (relative path → content) below dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func readFileT(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
