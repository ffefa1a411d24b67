package subagent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The session file an Agent call names must be a .jsonl file in the project or its sessions
// folder, after symbolic links; anything else is refused with the reason.
func TestSessionFileMustLieInTheProjectOrItsSessions(t *testing.T) {
	project, sessions, elsewhere := t.TempDir(), t.TempDir(), t.TempDir()
	if err := os.Symlink(elsewhere, filepath.Join(project, "link")); err != nil {
		t.Fatal(err)
	}
	m := &Manager{opts: Options{Cwd: project, SessionsDir: sessions}}
	cases := []struct {
		path, want, refusal string // want "" with a refusal: refused
	}{
		{"child.jsonl", filepath.Join(project, "child.jsonl"), ""},
		{filepath.Join(project, "sub", "..", "c.jsonl"), filepath.Join(project, "c.jsonl"), ""},
		{filepath.Join(sessions, "x.jsonl"), filepath.Join(sessions, "x.jsonl"), ""},
		{filepath.Join(elsewhere, "x.jsonl"), "", "not in this project"},
		{"../x.jsonl", "", "not in this project"},
		{"link/x.jsonl", "", "not in this project"}, // the folder is a link out of the project
		{"notes.txt", "", "ends in .jsonl"},
		{filepath.Join(project, "no", "such", "folder", "x.jsonl"), "", "its folder"},
	}
	for _, tc := range cases {
		got, err := m.sessionFile(tc.path)
		switch {
		case tc.refusal == "" && (err != nil || got != tc.want):
			t.Errorf("sessionFile(%q) = %q, %v; want %q", tc.path, got, err, tc.want)
		case tc.refusal != "" && (err == nil || !strings.Contains(err.Error(), tc.refusal)):
			t.Errorf("sessionFile(%q) = %q, %v; want a refusal saying %q", tc.path, got, err, tc.refusal)
		}
	}
}
