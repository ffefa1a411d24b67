package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"pi/server"
	"pi/session"
)

// TestSessionStoreCommands moves pi's own session into the SQLite store and out again through
// the binary built with -tags sqlite: the exported file, in its folder under $PI_HOME, is the
// fixture byte for byte, search finds it in the database and in the files, and --session continues the exported file. The
// default binary searches the files and says how to get the SQLite store.
func TestSessionStoreCommands(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary twice: skipped in -short mode")
	}
	plain := buildPi(t)
	withSQLite := filepath.Join(t.TempDir(), "pi")
	build := exec.Command("go", "build", "-tags", "sqlite", "-o", withSQLite, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build -tags sqlite: %v\n%s", err, out)
	}
	dir := shortTempDir(t) // pi serve's socket goes in it
	home := filepath.Join(dir, ".pihome")
	fixture, _ := filepath.Abs(filepath.Join("testdata", "sessions", "pi-0.73.jsonl"))
	run := func(bin string, wantCode int, args ...string) string {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Dir, cmd.Env = dir, append(os.Environ(), "PI_HOME="+home)
		out, err := cmd.CombinedOutput()
		if code := cmd.ProcessState.ExitCode(); code != wantCode {
			t.Fatalf("pi %v: exit %d (%v), want %d\n%s", args, code, err, wantCode, out)
		}
		return string(out)
	}
	if out := run(plain, 1, "sessions", "import-jsonl", fixture); !strings.Contains(out, "-tags sqlite") {
		t.Fatalf("the default binary's import-jsonl does not say how to get the store:\n%s", out)
	}
	os.MkdirAll(home, 0o700)
	os.WriteFile(filepath.Join(home, "pi.toml"), []byte("[session]\nstore = \"sqlite\"\n"), 0o600)
	if out := run(withSQLite, 0, "sessions", "import-jsonl", fixture); !strings.Contains(out, "1 imported") {
		t.Fatalf("import-jsonl:\n%s", out)
	}
	h, err := session.ReadHeader(fixture)
	if err != nil {
		t.Fatal(err)
	}
	if out := run(withSQLite, 0, "sessions", "search", "FAILING test"); !strings.Contains(out, h.ID[:8]) {
		t.Fatalf("search in the database does not find the imported session:\n%s", out)
	}
	exported := strings.TrimSpace(run(withSQLite, 0, "sessions", "export-jsonl", h.ID[:8]))
	if filepath.Dir(exported) != session.Dir(home, h.Cwd) {
		t.Fatalf("exported to %s, want the folder of its cwd, %s", exported, session.Dir(home, h.Cwd))
	}
	if got, want := mustRead(t, exported), mustRead(t, fixture); !bytes.Equal(got, want) {
		t.Fatalf("exported %s differs from the fixture", exported)
	}
	hello, _ := filepath.Abs(filepath.Join("testdata", "faux", "hello.json"))
	run(withSQLite, 0, "--faux-script", hello, "-p", "a new one in the database") // the live session writes there
	run(withSQLite, 0, "-c", "--faux-script", hello, "-p", "and continued")
	if out := run(withSQLite, 0, "sessions", "search", "and continued"); !strings.Contains(out, "and continued") {
		t.Fatalf("a session the run wrote, continued with -c, is not in the database:\n%s", out)
	}
	if out := run(withSQLite, 0, "sessions"); !strings.Contains(out, "a new one in the database") {
		t.Fatalf("pi sessions does not list the database's session of this folder:\n%s", out)
	}
	servedFromTheDatabase(t, withSQLite, dir, hello)
	if files, _ := filepath.Glob(filepath.Join(session.Dir(home, dir), "*.jsonl")); len(files) != 0 {
		t.Fatalf("with the SQLite store the run wrote session files: %v", files)
	}
	os.Remove(filepath.Join(home, "pi.toml"))
	if out := run(plain, 0, "sessions", "search", "failing TEST"); !strings.Contains(out, h.ID[:8]) {
		t.Fatalf("search of the files does not find the exported session:\n%s", out)
	}
	run(plain, 0, "--session", exported, "--faux-script", hello, "-p", "go on")
	if after := mustRead(t, exported); !bytes.Contains(after, []byte("go on")) {
		t.Fatal("--session did not continue the exported file")
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// servedFromTheDatabase: pi serve with [session] store = "sqlite" lists the session a run wrote
// into the database, and continues it by a prefix of its id, in the database.
func servedFromTheDatabase(t *testing.T, bin, dir, script string) {
	t.Helper()
	sock := startServe(t, bin, dir, "--faux-script", script)
	c, ctx := dialServed(t, sock)
	list, err := c.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	at := slices.IndexFunc(list, func(m server.SessionMetadata) bool { return m.Cwd == dir })
	if at < 0 {
		t.Fatalf("pi serve does not list the database's session of %s: %+v", dir, list)
	}
	prefix := list[at].ID[:13]
	if r := runPi(t, bin, dir, "-p", "--connect", sock, "--session", prefix, "a served turn"); r.code != 0 {
		t.Fatalf("pi -p --connect --session %s: code %d, stderr %q", prefix, r.code, r.stderr)
	}
	if r := runPi(t, bin, dir, "sessions", "search", "a served turn"); !strings.Contains(r.stdout, list[at].ID[:8]) {
		t.Fatalf("the served turn is not in the database's session %s:\n%s%s", list[at].ID, r.stdout, r.stderr)
	}
}
