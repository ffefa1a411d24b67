package sqlitestore

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"pi/session"
)

// TestCommand runs `pi sessions import-jsonl|search|export-jsonl` as the CLI does, in order
// on one $PI_HOME: each step's exit code and what it prints.
func TestCommand(t *testing.T) {
	home := t.TempDir()
	files := session.Files{Home: home}
	var ids []string
	for range 3 {
		s := files.New("/proj", "")
		fill(t, s)
		ids = append(ids, s.ID())
		s.Close()
	}
	db := filepath.Join(home, "sessions.db")
	withDB, withoutDB := CommandEnv{Home: home, DB: db}, CommandEnv{Home: home}
	out := filepath.Join(t.TempDir(), "out")
	for _, tc := range []struct {
		name     string
		env      CommandEnv
		args     []string
		code     int
		want     string // in stdout, or stderr for a failure
		afterAll func(t *testing.T)
	}{
		{name: "no word", env: withDB, args: nil, code: 2, want: "want one of search, import-jsonl, export-jsonl"},
		{name: "import without the store", env: withoutDB, args: []string{"import-jsonl", "--all"}, code: 1, want: `store = "sqlite"`},
		{name: "import nothing", env: withDB, args: []string{"import-jsonl"}, code: 1, want: "or --all"},
		{name: "import all", env: withDB, args: []string{"import-jsonl", "--all"}, code: 0, want: "3 imported"},
		{name: "import again", env: withDB, args: []string{"import-jsonl", "--all"}, code: 0, want: "already in the database"},
		{name: "search the files", env: withoutDB, args: []string{"search", "zebras"}, code: 0, want: ids[0][:8]},
		{name: "search the database", env: withDB, args: []string{"search", "--limit", "1", "Zebras"}, code: 0, want: "… and 2 more"},
		{name: "search nothing", env: withDB, args: []string{"search", " "}, code: 1, want: "nothing to search for"},
		{name: "search no match", env: withDB, args: []string{"search", "quokka"}, code: 0, want: "no session mentions that"},
		{name: "export unknown", env: withDB, args: []string{"export-jsonl", "fffff"}, code: 1, want: "no session with an id starting with"},
		{name: "export all", env: withDB, args: []string{"export-jsonl", "--dir", out, "--all"}, code: 0, want: out, afterAll: func(t *testing.T) {
			for _, id := range ids {
				got, _ := filepath.Glob(filepath.Join(out, "*_"+id+".jsonl"))
				want, _ := filepath.Glob(filepath.Join(session.Dir(home, "/proj"), "*_"+id+".jsonl"))
				if len(got) != 1 || len(want) != 1 || !bytes.Equal(must(os.ReadFile(got[0])), must(os.ReadFile(want[0]))) {
					t.Fatalf("session %s: exported %v, the original %v differ", id, got, want)
				}
			}
		}},
		{name: "export over existing files", env: withDB, args: []string{"export-jsonl", "--dir", out, ids[0]}, code: 1, want: "file exists"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := Command(context.Background(), tc.env, tc.args, &stdout, &stderr)
			shown := stdout.String()
			if code != 0 {
				shown = stderr.String()
			}
			if code != tc.code || !strings.Contains(shown, tc.want) {
				t.Fatalf("exit %d, want %d; stdout:\n%s\nstderr:\n%s\nwant %q", code, tc.code, stdout.String(), stderr.String(), tc.want)
			}
			if tc.afterAll != nil {
				tc.afterAll(t)
			}
		})
	}
}
