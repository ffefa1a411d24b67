package sqlitestore

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"pi/provider"
	"pi/session"
)

// storeCase is one implementation of session.Store the suite runs against.
type storeCase struct {
	name string
	open func(t *testing.T) session.Store
}

func stores() []storeCase {
	return []storeCase{
		{"jsonl", func(t *testing.T) session.Store { return session.Files{Home: t.TempDir()} }},
		{"sqlite", func(t *testing.T) session.Store {
			st, err := Open(context.Background(), filepath.Join(t.TempDir(), "sessions.db"))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			return st
		}},
	}
}

func assistant(text string, blocks ...provider.Block) provider.Message {
	return provider.Message{Role: provider.RoleAssistant, API: "faux", Provider: "faux", Model: "m",
		Content: append([]provider.Block{provider.Text(text)}, blocks...), Usage: &provider.Usage{},
		StopReason: provider.StopStop, Timestamp: 2}
}

// must returns v; an error panics, which fails the test with its stack.
func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// fill writes one of every kind of entry a live session writes.
func fill(t testing.TB, s *session.Session) (leaf string) {
	t.Helper()
	first := must(s.AppendMessage(provider.UserText("Fix the parser in lexer.go", 1)))
	must(s.AppendModelChange("ollama", "qwen3:8b"))
	must(s.AppendThinkingLevel("high"))
	must(s.AppendMessage(assistant("Looking at it.", provider.ToolCall("c1", "read", map[string]any{"path": "src/lexer.go"}))))
	must(s.AppendMessage(provider.Message{Role: provider.RoleToolResult, ToolCallID: "c1", ToolName: "read",
		Content: []provider.Block{provider.Text("package lexer")}, Timestamp: 3}))
	must(s.AppendCustom("todo", map[string]any{"items": []string{"a"}}))
	must(s.AppendCustomMessage("note", []provider.Block{provider.Text("a reminder about Zebras")}, true, nil))
	must(s.SetLabel(first, "start"))
	must(s.SetName("lexer work"))
	kept := must(s.AppendMessage(provider.UserText("now the tests", 4)))
	must(s.AppendCompaction(session.Compaction{Summary: "Goal: fix the lexer", FirstKeptEntryID: kept, TokensBefore: 900,
		Details: session.CompactionDetails{ReadFiles: []string{"src/lexer.go"}}}))
	return must(s.AppendMessage(assistant("Done with the tests.")))
}

// TestStoreSuite runs the same behaviour against both stores: what is written comes back
// entry for entry, the context is the same, -c finds the session, it continues, branches and
// forks, it is listed, it is found by search, and a second writer is refused.
func TestStoreSuite(t *testing.T) {
	ctx := context.Background()
	for _, sc := range stores() {
		t.Run(sc.name, func(t *testing.T) {
			st := sc.open(t)
			s := st.New("/proj", "")
			if s.Persisted() {
				t.Fatal("a new session is stored before its first reply")
			}
			leaf := fill(t, s)
			want := must(s.Entries())
			wantCtx := must(s.Context())
			s.Close()

			again := must(st.Newest(ctx, "/proj"))
			if again == nil {
				t.Fatal("-c found no session")
			}
			got := must(again.Entries())
			if !slices.EqualFunc(got, want, func(a, b session.Entry) bool { return a.ID == b.ID && a.ParentID == b.ParentID && a.Type == b.Type }) {
				t.Fatalf("entries after reopening differ:\n%v\nwant\n%v", got, want)
			}
			if gotCtx := must(again.Context()); len(gotCtx.Messages) != len(wantCtx.Messages) {
				t.Fatalf("context has %d messages after reopening, want %d", len(gotCtx.Messages), len(wantCtx.Messages))
			}
			if again.Leaf() != leaf || again.Name() != "lexer work" || again.Label(want[0].ID) != "start" {
				t.Fatalf("leaf %q name %q label %q", again.Leaf(), again.Name(), again.Label(want[0].ID))
			}
			if _, err := st.Open(ctx, again.Path()); !errors.Is(err, session.ErrLocked) {
				t.Fatalf("a second writer got %v, want ErrLocked", err)
			}
			// Branch from the first reply and continue there.
			if err := again.Branch(want[3].ID); err != nil {
				t.Fatal(err)
			}
			branched := must(again.AppendMessage(provider.UserText("other idea", 5)))
			clone := must(again.Clone())
			again.Close()

			checkBranchesAndCopies(t, st, again.Path(), branched, clone, len(want))
			checkListed(t, st, again.ID())
			checkSearch(t, st, again.ID())
		})
	}
}

// checkBranchesAndCopies reopens the session at path after a branch to branched, and checks
// its clone, a fork of it and a session made beside it.
func checkBranchesAndCopies(t *testing.T, st session.Store, path, branched string, clone *session.Session, entries int) {
	t.Helper()
	ctx := context.Background()
	third := must(st.Open(ctx, path))
	if third.Leaf() != branched {
		t.Fatalf("leaf after branching and reopening is %s, want %s", third.Leaf(), branched)
	}
	if path := must(third.PathTo(branched)); len(path) != 5 {
		t.Fatalf("branch path has %d entries, want 5", len(path))
	}
	third.Close()
	if n := len(must(clone.Entries())); n != 6 {
		t.Fatalf("clone has %d entries, want 6 (the path of 5, its label re-created)", n)
	}
	clone.Close()

	fork := must(st.Fork(ctx, path, "/other"))
	if n := len(must(fork.Entries())); n != entries+1 {
		t.Fatalf("fork has %d entries, want %d", n, entries+1)
	}
	if fork.Header().ParentSession != path {
		t.Fatalf("fork's parent is %q, want %q", fork.Header().ParentSession, path)
	}
	fork.Close()
	child := session.NewBeside(third, "/proj", third.Path())
	must(child.AppendMessage(provider.UserText("a child", 6)))
	must(child.AppendMessage(assistant("kept beside its parent")))
	child.Close()
	if reopened := must(st.Open(context.Background(), child.Path())); reopened.Len() != 2 {
		t.Fatalf("NewBeside's session reopened from its store has %d entries, want 2", reopened.Len())
	} else {
		reopened.Close()
	}
}

func checkListed(t *testing.T, st session.Store, id string) {
	t.Helper()
	infos := must(st.List(context.Background(), "/proj"))
	at := slices.IndexFunc(infos, func(in session.Info) bool { return in.ID == id })
	if len(infos) != 3 || at < 0 || infos[at].FirstPrompt != "Fix the parser in lexer.go" {
		t.Fatalf("list of /proj (the session, its clone, a child): %+v", infos)
	}
	if in := infos[at]; in.Name != "lexer work" || in.MessageCount != 6 || in.Size == 0 {
		t.Fatalf("list: name %q, %d messages, %d bytes; want lexer work, 6", in.Name, in.MessageCount, in.Size)
	}
	for _, ref := range []string{id, infos[at].Path} {
		if in, err := st.Describe(context.Background(), ref); err != nil || !reflect.DeepEqual(in, infos[at]) {
			t.Fatalf("Describe(%s) = %+v, %v; want what List says, %+v", ref, in, err, infos[at])
		}
	}
	if _, err := st.Describe(context.Background(), "ffffffff"); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("Describe of an unknown id: %v, want os.ErrNotExist", err)
	}
	if all := must(st.List(context.Background(), "")); len(all) != 4 {
		t.Fatalf("list of every folder has %d sessions, want 4 (the session, its clone, a child and its fork)", len(all))
	}
}

func checkSearch(t *testing.T, st session.Store, id string) {
	t.Helper()
	for _, tc := range []struct{ query, line string }{
		{"PARSER", "Fix the parser in lexer.go"},
		{"src/lexer.go", "read src/lexer.go"},
		{"zebra", "a reminder about Zebras"},
		{"Goal: fix", "Goal: fix the lexer"},
		{"go", ""}, // short: LIKE in SQLite, matched somewhere
	} {
		var hits []session.Hit
		err := st.Search(context.Background(), tc.query, func(h session.Hit) error {
			if h.ID == id {
				hits = append(hits, h)
			}
			return nil
		})
		if err != nil {
			t.Fatalf("search %q: %v", tc.query, err)
		}
		if len(hits) == 0 || tc.line != "" && hits[0].Line != tc.line || hits[0].Cwd != "/proj" || hits[0].Time.IsZero() {
			t.Errorf("search %q: %+v, want a hit with line %q", tc.query, hits, tc.line)
		}
	}
	if err := st.Search(context.Background(), "package lexer", func(h session.Hit) error {
		return errors.New("tool output is not searched: " + h.Line)
	}); err != nil {
		t.Error(err)
	}
}

// TestImportExportFixture imports pi's own session files and exports them again: the same
// bytes, entry for entry, and the imported session opens with pi's context.
func TestImportExportFixture(t *testing.T) {
	ctx := context.Background()
	files, _ := filepath.Glob("../../testdata/sessions/pi-*.jsonl")
	if len(files) == 0 {
		t.Fatal("no fixtures")
	}
	st := stores()[1].open(t).(*Store)
	for _, f := range files {
		id, warnings, err := st.Import(ctx, f)
		if err != nil || len(warnings) != 0 {
			t.Fatalf("import %s: %v %v", f, err, warnings)
		}
		var out bytes.Buffer
		if err := st.Export(ctx, id, &out); err != nil {
			t.Fatal(err)
		}
		orig := must(os.ReadFile(f))
		a, b := strings.Split(string(orig), "\n"), strings.Split(out.String(), "\n")
		for i := range max(len(a), len(b)) {
			if i >= len(a) || i >= len(b) || a[i] != b[i] {
				t.Fatalf("%s: line %d differs after import and export", f, i+1)
			}
		}
		fromFile := must(session.Open(ctx, copyTo(t, f)))
		fromDB := must(st.Open(ctx, id))
		c1, c2 := must(fromFile.Context()), must(fromDB.Context())
		if len(c1.Messages) != len(c2.Messages) || fromFile.Leaf() != fromDB.Leaf() {
			t.Fatalf("%s: context of %d messages (leaf %s) from the database, %d (leaf %s) from the file",
				f, len(c2.Messages), fromDB.Leaf(), len(c1.Messages), fromFile.Leaf())
		}
		fromFile.Close()
		fromDB.Close()
		if _, _, err := st.Import(ctx, f); err == nil {
			t.Fatalf("%s imported twice", f)
		}
	}
}

func copyTo(t *testing.T, f string) string {
	p := filepath.Join(t.TempDir(), filepath.Base(f))
	if err := os.WriteFile(p, must(os.ReadFile(f)), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestChooseInStore: session.Choose with a Store: -c continues the newest session of the
// folder (a new one when it has none), --session opens by id prefix, --fork copies, and
// --no-session stays in memory, a JSONL session outside the database still opens by its id
// prefix; FirstHits names each matching session once.
func TestChooseInStore(t *testing.T) {
	ctx := context.Background()
	for _, sc := range stores() {
		t.Run(sc.name, func(t *testing.T) {
			st := sc.open(t)
			fresh := must(session.Choose(ctx, session.Choice{Store: st, Cwd: "/proj", Continue: true}))
			if fresh.Len() != 0 || fresh.Persisted() {
				t.Fatalf("-c in an empty folder: %d entries", fresh.Len())
			}
			fill(t, fresh)
			fresh.Close()
			for _, c := range []session.Choice{
				{Store: st, Cwd: "/proj", Continue: true},
				{Store: st, Cwd: "/proj", Ref: fresh.ID()[:13]},
			} {
				s := must(session.Choose(ctx, c))
				if s.ID() != fresh.ID() || s.Len() != 12 {
					t.Fatalf("%+v opened %s with %d entries, want %s with 12", c, s.ID(), s.Len(), fresh.ID())
				}
				s.Close()
			}
			fork := must(session.Choose(ctx, session.Choice{Store: st, Cwd: "/proj", Fork: fresh.Path()}))
			if fork.ID() == fresh.ID() || fork.Len() != 12 {
				t.Fatalf("--fork gave %s with %d entries", fork.ID(), fork.Len())
			}
			fork.Close()
			if mem := must(session.Choose(ctx, session.Choice{Store: st, Cwd: "/proj", InMemory: true})); mem.Path() != "" {
				t.Fatalf("--no-session has a path: %s", mem.Path())
			}
			if sc.name == "sqlite" { // a JSONL session the database does not hold continues by its id prefix
				home := t.TempDir()
				file := session.Files{Home: home}.New("/proj", "")
				fill(t, file)
				file.Close()
				byPrefix := must(session.Choose(ctx, session.Choice{Store: st, Home: home, Cwd: "/proj", Ref: file.ID()[:13]}))
				if byPrefix.Path() != file.Path() {
					t.Fatalf("--session of a JSONL session opened %s, want %s", byPrefix.Path(), file.Path())
				}
				byPrefix.Close()
			}
			hits := must(session.FirstHits(ctx, st, "lexer"))
			if len(hits) != 2 || hits[fresh.Path()].ID != fresh.ID() || hits[fork.Path()].ID != fork.ID() {
				t.Fatalf("FirstHits(lexer) = %v, want the session and its fork", hits)
			}
		})
	}
}
