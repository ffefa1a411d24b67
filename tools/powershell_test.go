//go:build unix

package tools

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// standInPwsh puts a `pwsh` on PATH that runs its -c command with sh and records its flags:
// Debian has no PowerShell package.
func standInPwsh(t *testing.T) string {
	dir := t.TempDir()
	script := "#!/bin/sh\necho \"$@\" > \"$(dirname \"$0\")/args\"\n" +
		"while [ \"$1\" != \"-c\" ]; do shift; done\nshift\nexec sh -c \"$1\"\n"
	if err := os.WriteFile(filepath.Join(dir, "pwsh"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return dir
}

func TestPowerShellTool(t *testing.T) {
	t.Setenv("PATH", t.TempDir()) // nothing: the tool is not offered
	if slices.Contains(Offered(), "powershell") || PowerShell() != "" {
		t.Fatalf("offered without PowerShell: %v", Offered())
	}
	dir := standInPwsh(t)
	t.Setenv("PATH", dir+string(os.PathListSeparator)+"/usr/bin:/bin")
	if !slices.Contains(Offered(), "powershell") {
		t.Fatalf("not offered with pwsh on PATH: %v", Offered())
	}
	env, err := NewEnv(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	tool, err := New("powershell", env)
	if err != nil {
		t.Fatal(err)
	}
	res, err := tool.Execute(context.Background(), "c1", map[string]any{"command": "echo from-pwsh; exit 3"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	text := res.Content[0].Text
	if !strings.Contains(text, "from-pwsh") || !strings.Contains(text, "Command exited with code 3") || !res.IsError {
		t.Fatalf("result %+v", res)
	}
	args, _ := os.ReadFile(filepath.Join(dir, "args"))
	if !strings.HasPrefix(string(args), "-NoProfile -NonInteractive -c ") {
		t.Fatalf("pwsh was run with %q", args)
	}
	if g := tool.Info().Guidelines; len(g) == 0 || !strings.Contains(g[0], "powershell") {
		t.Fatalf("guidelines %q", g)
	}
}
