package session

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"pi/provider"
)

func assistant(text string) provider.Message {
	return provider.Message{Role: provider.RoleAssistant, Content: []provider.Block{provider.Text(text)},
		API: "faux", Provider: "faux", Model: "faux-1", Usage: &provider.Usage{Input: 10, Output: 5, TotalTokens: 15},
		StopReason: provider.StopStop, Timestamp: 1}
}

func readLines(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) > 0 && data[len(data)-1] != '\n' {
		t.Fatalf("%s does not end with a newline", path)
	}
	return strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
}

func mustAppend(t *testing.T) func(string, error) string {
	return func(id string, err error) string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
}

func TestLazyCreation(t *testing.T) {
	dir := t.TempDir()
	s := Create(dir, "/home/me/proj")
	defer s.Close()
	ok := mustAppend(t)
	ok(s.AppendModelChange("faux", "faux-1"))
	ok(s.AppendMessage(provider.UserText("hi", 1)))
	if _, err := os.Stat(s.Path()); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("file exists before the first assistant message: %v", err)
	}
	// A reply that failed (no server, a refused request) is no reply: a session holding only
	// a prompt and errors gets no file, so `pi -c` and `pi sessions` never land on it.
	failed := provider.Message{Role: provider.RoleAssistant, StopReason: provider.StopError, ErrorMessage: "connection refused"}
	ok(s.AppendMessage(failed))
	ok(s.AppendMessage(provider.UserText("hi again", 2)))
	ok(s.AppendMessage(failed))
	if _, err := os.Stat(s.Path()); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("file exists when every reply failed: %v", err)
	}
	ok(s.AppendMessage(assistant("hello")))
	lines := readLines(t, s.Path())
	if len(lines) != 7 {
		t.Fatalf("file has %d lines, want header + 6 entries", len(lines))
	}
	if !strings.HasPrefix(lines[0], `{"type":"session","version":3,"id":"`) {
		t.Errorf("header = %s", lines[0])
	}
	if !strings.HasPrefix(filepath.Base(s.Path()), strings.NewReplacer(":", "-", ".", "-").Replace(s.Header().Timestamp)) {
		t.Errorf("file name %s does not start with the header timestamp", s.Path())
	}
}

func TestNoSessionWritesNothing(t *testing.T) {
	s := InMemory("/x")
	ok := mustAppend(t)
	ok(s.AppendMessage(provider.UserText("hi", 1)))
	ok(s.AppendMessage(assistant("hello")))
	if s.Path() != "" || s.Persisted() {
		t.Fatal("in-memory session claims a file")
	}
	c, err := s.Context()
	if err != nil || len(c.Messages) != 2 {
		t.Fatalf("context = %v, %v", c, err)
	}
}

// TestParentChains appends one entry of every type and checks that each is a child of the one
// before, in memory and after reloading.
func TestParentChains(t *testing.T) {
	dir := t.TempDir()
	s := Create(dir, "/p")
	ok := mustAppend(t)
	var ids []string
	ids = append(ids, ok(s.AppendMessage(provider.UserText("q", 1))))
	ids = append(ids, ok(s.AppendMessage(assistant("a"))))
	ids = append(ids, ok(s.AppendModelChange("ollama", "qwen3")))
	ids = append(ids, ok(s.AppendThinkingLevel("high")))
	ids = append(ids, ok(s.AppendCompaction(Compaction{Summary: "S", FirstKeptEntryID: ids[0], TokensBefore: 9,
		Details: CompactionDetails{ReadFiles: []string{"a"}, ModifiedFiles: []string{}}})))
	ids = append(ids, ok(s.AppendCustom("state", map[string]int{"n": 1})))
	ids = append(ids, ok(s.AppendCustomMessage("note", []provider.Block{provider.Text("n")}, true, nil)))
	ids = append(ids, ok(s.SetLabel(ids[0], "start")))
	ids = append(ids, ok(s.SetName("  my session ")))
	ids = append(ids, ok(s.BranchWithSummary(ids[1], "went elsewhere", nil, false)))
	check := func(s *Session) {
		t.Helper()
		entries, err := s.Entries()
		if err != nil {
			t.Fatal(err)
		}
		if len(entries) != len(ids) {
			t.Fatalf("%d entries, want %d", len(entries), len(ids))
		}
		for i, e := range entries {
			want := ""
			switch {
			case e.Type == TypeBranchSummary:
				want = ids[1]
			case i > 0:
				want = ids[i-1]
			}
			if e.ID != ids[i] || e.ParentID != want || len(e.ID) != 8 {
				t.Errorf("entry %d (%s) id=%s parent=%q, want id=%s parent=%q", i, e.Type, e.ID, e.ParentID, ids[i], want)
			}
		}
		if s.Name() != "my session" || s.Label(ids[0]) != "start" || s.Leaf() != ids[len(ids)-1] {
			t.Errorf("name=%q label=%q leaf=%s", s.Name(), s.Label(ids[0]), s.Leaf())
		}
	}
	check(s)
	s.Close()
	s2, err := Open(context.Background(), s.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	check(s2)
}

func TestBranchForkClone(t *testing.T) {
	dir := t.TempDir()
	s := Create(dir, "/p")
	defer s.Close()
	ok := mustAppend(t)
	u1 := ok(s.AppendMessage(provider.UserText("one", 1)))
	a1 := ok(s.AppendMessage(assistant("r1")))
	ok(s.SetLabel(u1, "first"))
	u2 := ok(s.AppendMessage(provider.UserText("two", 2)))
	ok(s.AppendMessage(assistant("r2")))

	if err := s.Branch(a1); err != nil {
		t.Fatal(err)
	}
	alt := ok(s.AppendMessage(provider.UserText("two-alt", 3)))
	if e, _ := s.Entry(alt); e.ParentID != a1 {
		t.Fatalf("branch parent = %s, want %s", e.ParentID, a1)
	}
	if kids := s.Children(a1); len(kids) != 2 { // the label (u2 hangs off it) and alt
		t.Fatalf("children of %s = %v", a1, kids)
	}
	nodes := s.Nodes()
	if len(nodes) != 6 || nodes[2].Type != TypeLabel || nodes[0].Label != "first" || nodes[5].ParentID != a1 ||
		nodes[1].Role != "assistant" {
		t.Fatalf("nodes = %+v", nodes)
	}
	if err := s.Branch("nope"); err == nil {
		t.Fatal("branch to an unknown entry succeeded")
	}

	f, err := s.ForkAt(u2)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if f.Header().ParentSession != s.Path() || f.Path() == s.Path() {
		t.Fatalf("fork header parent = %q", f.Header().ParentSession)
	}
	fe, _ := f.Entries()
	var types []string
	for _, e := range fe {
		types = append(types, string(e.Type))
	}
	if got := strings.Join(types, ","); got != "message,message,message,label" {
		t.Fatalf("fork entries = %s", got)
	}
	if f.Label(u1) != "first" || !f.Persisted() {
		t.Fatalf("fork label = %q persisted=%v", f.Label(u1), f.Persisted())
	}
	reopened, err := Open(context.Background(), f.Path())
	if !errors.Is(err, ErrLocked) {
		t.Fatalf("open of a forked session still held: %v", err)
	}
	_ = reopened

	c, err := s.Clone()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	cc, _ := c.Context()
	if got := describe(cc.Messages); strings.Join(got, "|") != "user:one|assistant:r1|user:two-alt" {
		t.Fatalf("clone context = %q", got)
	}
}

func TestOpenRefusesNonSession(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{
		"empty":  "",
		"text":   "hello world\n",
		"json":   `{"type":"message","id":"12345678"}` + "\n",
		"noid":   `{"type":"session","version":3}` + "\n",
		"binary": "\x00\x01\x02",
	} {
		p := filepath.Join(dir, name+".jsonl")
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := Open(context.Background(), p)
		if !errors.Is(err, ErrNotSession) || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: err = %v, want ErrNotSession naming the file", name, err)
		}
	}
}

func TestNewerVersionRefused(t *testing.T) {
	p := filepath.Join(t.TempDir(), "v4.jsonl")
	_ = os.WriteFile(p, []byte(`{"type":"session","version":4,"id":"x","timestamp":"t","cwd":"/"}`+"\n"), 0o600)
	if _, err := Open(context.Background(), p); !errors.Is(err, ErrNewerVersion) {
		t.Fatalf("err = %v, want ErrNewerVersion", err)
	}
}

func TestLock(t *testing.T) {
	p := copyFixture(t)
	s, err := Open(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Open(context.Background(), p)
	if !errors.Is(err, ErrLocked) {
		t.Fatalf("second open: %v, want ErrLocked", err)
	}
	s.Close()
	s2, err := Open(context.Background(), p)
	if err != nil {
		t.Fatalf("open after close: %v", err)
	}
	s2.Close()
}

func TestTornLastLine(t *testing.T) {
	p := copyFixture(t)
	orig, _ := os.ReadFile(p)
	torn := `{"type":"message","id":"deadbeef","parentId":"06778899","timestamp":"2026-05-07T10:14:00.000Z","message":{"role":"user","content":"half`
	if err := os.WriteFile(p, append(append([]byte(nil), orig...), torn...), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := Open(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	w := s.Warnings()
	if len(w) != 1 || w[0].Line != 25 || !strings.Contains(w[0].Reason, "torn") {
		t.Fatalf("warnings = %v", w)
	}
	if s.Len() != 23 || s.Leaf() != "06778899" {
		t.Fatalf("len=%d leaf=%s", s.Len(), s.Leaf())
	}
	if _, err := s.AppendMessage(provider.UserText("after", 5)); err != nil {
		t.Fatal(err)
	}
	s.Close()
	data, _ := os.ReadFile(p)
	if !bytes.HasPrefix(data, orig) {
		t.Fatal("content before the torn line changed")
	}
	s2, err := Open(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if len(s2.Warnings()) != 0 || s2.Len() != 24 {
		t.Fatalf("after repair: warnings=%v len=%d", s2.Warnings(), s2.Len())
	}
}

func TestWholeLastLineWithoutNewline(t *testing.T) {
	p := copyFixture(t)
	orig, _ := os.ReadFile(p)
	if err := os.WriteFile(p, bytes.TrimSuffix(orig, []byte("\n")), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := Open(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Warnings()) != 0 || s.Len() != 23 {
		t.Fatalf("warnings=%v len=%d", s.Warnings(), s.Len())
	}
	id, err := s.AppendMessage(provider.UserText("next", 5))
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	lines := readLines(t, p)
	if len(lines) != 25 || !strings.Contains(lines[24], id) {
		t.Fatalf("lines=%d last=%s", len(lines), lines[len(lines)-1])
	}
}

func TestMigration(t *testing.T) {
	v1 := `{"type":"session","id":"old-1","timestamp":"2024-12-03T14:00:00.000Z","cwd":"/p","provider":"anthropic","modelId":"m","thinkingLevel":"off"}
{"type":"message","timestamp":"2024-12-03T14:00:01.000Z","message":{"role":"user","content":"Hello","timestamp":1}}
{"type":"message","timestamp":"2024-12-03T14:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"Hi"}],"api":"a","provider":"anthropic","model":"m","usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":2}}
{"type":"compaction","timestamp":"2024-12-03T14:00:03.000Z","summary":"S","firstKeptEntryIndex":2,"tokensBefore":5}
{"type":"message","timestamp":"2024-12-03T14:00:04.000Z","message":{"role":"hookMessage","customType":"h","content":"x","display":true,"timestamp":4}}
`
	v2 := `{"type":"session","version":2,"id":"old-2","timestamp":"2024-12-03T14:00:00.000Z","cwd":"/p"}
{"type":"message","id":"aaaa0001","parentId":null,"timestamp":"2024-12-03T14:00:01.000Z","message":{"role":"user","content":"Hello","timestamp":1}}
{"type":"message","id":"aaaa0002","parentId":"aaaa0001","timestamp":"2024-12-03T14:00:04.000Z","message":{"role":"hookMessage","customType":"h","content":"x","display":true,"timestamp":4}}
`
	for name, content := range map[string]string{"v1": v1, "v2": v2} {
		t.Run(name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "s.jsonl")
			if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
				t.Fatal(err)
			}
			s, err := Open(context.Background(), p)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if s.Header().Version != 3 {
				t.Fatalf("version = %d", s.Header().Version)
			}
			entries, _ := s.Entries()
			last := entries[len(entries)-1]
			if last.Message.Role != RoleCustom || last.ParentID != entries[len(entries)-2].ID {
				t.Fatalf("last entry = %+v", last)
			}
			if name == "v1" && entries[2].FirstKeptEntryID != entries[1].ID {
				t.Fatalf("firstKeptEntryId = %q, want %q", entries[2].FirstKeptEntryID, entries[1].ID)
			}
			lines := readLines(t, p)
			if !strings.HasPrefix(lines[0], `{"type":"session","version":3,`) || strings.Contains(lines[1], "hookMessage") && name == "v2" {
				t.Fatalf("file not rewritten: %s", lines[0])
			}
		})
	}
}

func TestStore(t *testing.T) {
	home := t.TempDir()
	dir := Dir(home, "/home/me/proj")
	if want := filepath.Join(home, "sessions", "--home-me-proj--"); dir != want {
		t.Fatalf("Dir = %s, want %s", dir, want)
	}
	if p, err := FindNewest(dir); p != "" || err != nil {
		t.Fatalf("FindNewest on a missing dir = %q, %v", p, err)
	}
	ok := mustAppend(t)
	var paths []string
	for i, prompt := range []string{"first prompt", "second prompt"} {
		s := Create(dir, "/home/me/proj")
		ok(s.AppendMessage(provider.UserText(prompt, int64(i))))
		ok(s.AppendMessage(assistant("ok")))
		if i == 1 {
			ok(s.SetName("named"))
		}
		s.Close()
		paths = append(paths, s.Path())
		mtime := time.Unix(int64(1_700_000_000+i*100), 0)
		if err := os.Chtimes(s.Path(), mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	_ = os.WriteFile(filepath.Join(dir, "junk.jsonl"), []byte("nope\n"), 0o600)
	newest, err := FindNewest(dir)
	if err != nil || newest != paths[1] {
		t.Fatalf("FindNewest = %q, %v; want %q", newest, err, paths[1])
	}
	list, err := List(context.Background(), dir)
	if err != nil || len(list) != 2 {
		t.Fatalf("List = %v, %v", list, err)
	}
	if list[0].Path != paths[1] || list[0].Name != "named" || list[0].FirstPrompt != "second prompt" ||
		list[0].MessageCount != 2 || list[0].Size == 0 {
		t.Fatalf("List[0] = %+v", list[0])
	}
	s, err := Open(context.Background(), paths[0])
	if err != nil {
		t.Fatal(err)
	}
	id := s.ID()
	s.Close()
	for _, ref := range []string{paths[0], id, id[:28]} {
		got, err := Resolve(ref, dir, SessionsRoot(home))
		if err != nil || got != paths[0] {
			t.Errorf("Resolve(%q) = %q, %v", ref, got, err)
		}
	}
	if _, err := Resolve("zzzz", dir, SessionsRoot(home)); err == nil {
		t.Error("Resolve of an unknown prefix succeeded")
	}
	if _, err := Resolve("0", dir, SessionsRoot(home)); err == nil || !strings.Contains(err.Error(), "ambiguous") {
		t.Errorf("Resolve of a shared prefix: %v", err)
	}
	f, err := ForkFile(context.Background(), paths[1], Dir(home, "/other"), "/other")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h := f.Header()
	if h.ParentSession != paths[1] || h.Cwd != "/other" || f.Len() != 3 || f.Name() != "named" {
		t.Fatalf("fork: header=%+v len=%d", h, f.Len())
	}
}

func TestHeaderRoundTrip(t *testing.T) {
	in := `{"type":"session","version":3,"id":"x","timestamp":"t","cwd":"/a<b>","parentSession":"/p.jsonl"}`
	var h Header
	if err := json.Unmarshal([]byte(in), &h); err != nil {
		t.Fatal(err)
	}
	out, err := encodeLine(h)
	if err != nil || string(out) != in+"\n" {
		t.Fatalf("got %s, %v", out, err)
	}
}

func TestCreateAt(t *testing.T) {
	p := filepath.Join(t.TempDir(), "sub", "mine.jsonl")
	s := CreateAt(p, "/p")
	ok := mustAppend(t)
	ok(s.AppendMessage(provider.UserText("hi", 1)))
	if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("file written before the first reply")
	}
	ok(s.AppendMessage(assistant("hello")))
	s.Close()
	if lines := readLines(t, p); len(lines) != 3 {
		t.Fatalf("%d lines at the explicit path", len(lines))
	}
}

func TestCreateChildNamesItsParent(t *testing.T) {
	dir := t.TempDir()
	s := CreateChild(dir, "/proj", "/sessions/old.jsonl")
	if _, err := s.AppendMessage(provider.UserText("hi", 1)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.AppendMessage(provider.Message{Role: provider.RoleAssistant, Content: []provider.Block{provider.Text("hello")},
		Usage: &provider.Usage{}, StopReason: provider.StopStop, Timestamp: 2}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	again, err := Open(context.Background(), s.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	if h := again.Header(); h.ParentSession != "/sessions/old.jsonl" || h.Cwd != "/proj" {
		t.Fatalf("header %+v", h)
	}
}
