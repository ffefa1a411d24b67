package tools

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// The loop queues calls by the files they change: each spelling of one file gives one key.
func TestChangedFiles(t *testing.T) {
	env := testEnv(t)
	writeFiles(t, env.Cwd, map[string]string{"a.txt": "", "sub/b.go": ""})
	if err := os.Symlink("a.txt", filepath.Join(env.Cwd, "link.txt")); err != nil {
		t.Fatal(err)
	}
	cwd, _ := filepath.EvalSymlinks(env.Cwd)
	a, b, fresh := filepath.Join(cwd, "a.txt"), filepath.Join(cwd, "sub/b.go"), filepath.Join(cwd, "sub/new.txt")
	tests := []struct {
		tool string
		args map[string]any
		want []string
	}{
		{"edit", map[string]any{"path": "a.txt"}, []string{a}},
		{"edit", map[string]any{"path": "./sub/../a.txt"}, []string{a}},
		{"write", map[string]any{"path": "link.txt"}, []string{a}},
		{"write", map[string]any{"path": "@sub/new.txt"}, []string{fresh}},
		{"write", map[string]any{}, nil},
		{"bash", map[string]any{"command": `sed -i 's/x/y/' a.txt && gofmt -w "sub/b.go" > sub/new.txt`}, []string{a, b, fresh}},
		{"bash", map[string]any{"command": "ls -la $HOME *.go nowhere/x"}, nil},
		{"read", map[string]any{"path": "a.txt"}, nil},
	}
	for _, tc := range tests {
		tool, _ := New(tc.tool, env)
		var got []string
		if changer, ok := tool.(FileChanger); ok {
			got = changer.ChangedFiles(tc.args)
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s %v changes %q, want %q", tc.tool, tc.args, got, tc.want)
		}
	}
}
