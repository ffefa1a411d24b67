package session

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"pi/provider"
)

// damageBase is a linear session: a model change, then three turns. Line numbers: the header
// is line 1, m0000001 line 2, u0000001 line 3, … a0000003 line 8.
func damageBase(t testing.TB) []string {
	t.Helper()
	u, a := provider.RoleUser, provider.RoleAssistant
	entries := []Entry{modelEntry("m0000001", "", "faux", "faux-1"),
		msgEntry("u0000001", "m0000001", u, "one"), msgEntry("a0000001", "u0000001", a, "r1"),
		msgEntry("u0000002", "a0000001", u, "two"), msgEntry("a0000002", "u0000002", a, "r2"),
		msgEntry("u0000003", "a0000002", u, "three"), msgEntry("a0000003", "u0000003", a, "r3")}
	h, err := encodeLine(Header{Version: 3, ID: "0000-s1", Timestamp: ts, Cwd: "/p"})
	if err != nil {
		t.Fatal(err)
	}
	lines := []string{strings.TrimSuffix(string(h), "\n")}
	for i := range entries {
		l, err := encodeLine(&entries[i])
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, strings.TrimSuffix(string(l), "\n"))
	}
	return lines
}

type damageCase struct {
	name    string
	damage  func(l []string) []string // l[i] is line i+1
	torn    bool                      // the file ends without its last newline
	warn    []string                  // "line N: regexp", in line order
	context []string                  // the context's messages, as describe renders them
}

// all6() is the base session's context; without2 lacks the damaged "two".
func all6() []string {
	return []string{"user:one", "assistant:r1", "user:two", "assistant:r2", "user:three", "assistant:r3"}
}

func without2() []string {
	return []string{"user:one", "assistant:r1", "assistant:r2", "user:three", "assistant:r3"}
}

func damageCases() []damageCase {
	set := func(i int, f func(string) string) func([]string) []string {
		return func(l []string) []string { l[i] = f(l[i]); return l }
	}
	swap := func(i int, old, new string) func([]string) []string {
		return set(i, func(s string) string { return strings.Replace(s, old, new, 1) })
	}
	skipped5 := "line 6: parent u0000002 was skipped \\(line 5\\); attached to a0000001 \\(line 4\\), that line's parent"
	unknown5 := "line 6: parent u0000002 is not an earlier entry; attached to a0000001 \\(line 4\\), the entry before it"
	return []damageCase{
		{name: "NUL byte in a string", damage: swap(4, `"two"`, "\"t\x00wo\""),
			warn: []string{"line 5: skipped: .*control character 0x00", skipped5}, context: without2()},
		{name: "NUL byte between fields", damage: swap(4, `,"message"`, ",\x00\"message\""),
			warn: []string{"line 5: skipped: byte 92 of the line: expected a key", skipped5}, context: without2()},
		{name: "truncated JSON mid-file", damage: set(4, func(s string) string { return s[:len(s)-30] }),
			warn: []string{"line 5: skipped: the line ends inside the JSON", skipped5}, context: without2()},
		{name: "invalid UTF-8", damage: swap(4, `"two"`, "\"tw\xffo\""),
			warn: []string{"line 5: skipped: .*invalid UTF-8", skipped5}, context: without2()},
		{name: "valid JSON, not an object", damage: set(4, func(string) string { return `[1,2,3]` }),
			warn: []string{"line 5: skipped: not a session entry \\(not a JSON object\\)", unknown5}, context: without2()},
		{name: "valid JSON, no type", damage: set(4, func(string) string { return `{"note":"hello"}` }),
			warn: []string{`line 5: skipped: not a session entry \(no "type"\)`, unknown5}, context: without2()},
		{name: "a second header", damage: set(4, func(string) string {
			return `{"type":"session","version":3,"id":"0000-s2","timestamp":"t","cwd":"/q"}`
		}), warn: []string{"line 5: skipped: not an entry: a second session header", unknown5}, context: without2()},
		{name: "payload that does not decode", damage: swap(4, `"content":"two"`, `"content":5`),
			warn:    []string{"line 5: unreadable entry u0000002 skipped: .*; what hung from it now hangs from a0000001 \\(line 4\\)"},
			context: without2()},
		{name: "content block of an unknown type", damage: swap(5, `{"type":"text","text":"r2"}`, `{"type":"hologram"}`),
			warn:    []string{"line 6: unreadable entry a0000002 skipped: .*hologram"},
			context: []string{"user:one", "assistant:r1", "user:two", "user:three", "assistant:r3"}},
		{name: "line written twice", damage: func(l []string) []string { return append(l[:4:4], append([]string{l[3]}, l[4:]...)...) },
			warn: []string{"line 5: skipped: entry id a0000001 is already used by line 4"}, context: all6()},
		{name: "duplicated id", damage: swap(4, `"id":"u0000002"`, `"id":"a0000001"`),
			warn: []string{"line 5: skipped: entry id a0000001 is already used by line 4", unknown5}, context: without2()},
		{name: "parent cycle", damage: swap(2, `"parentId":"m0000001"`, `"parentId":"a0000003"`),
			warn:    []string{"line 3: parent a0000003 is not an earlier entry; attached to m0000001 \\(line 2\\), the entry before it"},
			context: all6()},
		{name: "its own parent", damage: swap(4, `"parentId":"a0000001"`, `"parentId":"u0000002"`),
			warn:    []string{"line 5: parent u0000002 is not an earlier entry; attached to a0000001 \\(line 4\\), the entry before it"},
			context: all6()},
		{name: "parent never in the file", damage: swap(4, `"parentId":"a0000001"`, `"parentId":"ffffffff"`),
			warn:    []string{"line 5: parent ffffffff is not an earlier entry; attached to a0000001 \\(line 4\\), the entry before it"},
			context: all6()},
		{name: "damaged first entry", damage: swap(1, `"faux-1"`, "\"faux\x00\""),
			warn:    []string{"line 2: skipped", "line 3: parent m0000001 was skipped \\(line 2\\); made a root, as that line was"},
			context: all6()},
		{name: "damaged last line", damage: swap(7, `"r3"`, "\"r\x003\""),
			warn: []string{"line 8: skipped"}, context: all6()[:5]},
		{name: "last entry's payload does not decode", damage: swap(7, `"content":[{"type":"text","text":"r3"}]`, `"content":{}`),
			warn: []string{"line 8: unreadable entry a0000003 skipped"}, context: all6()[:5]},
		{name: "torn last line", torn: true, damage: set(7, func(s string) string { return s[:40] }),
			warn: []string{"line 8: torn last line .*; removed from the file"}, context: all6()[:5]},
	}
}

// TestDamagedLines damages one line of a session in each way a file can be damaged and checks
// that every reader skips the same line with a warning naming it and keeps every readable
// message, re-linked around the gap.
func TestDamagedLines(t *testing.T) {
	for _, tc := range damageCases() {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			lines := tc.damage(damageBase(t))
			data := strings.Join(lines, "\n")
			if !tc.torn {
				data += "\n"
			}
			path := filepath.Join(dir, "2025-01-01T00-00-00-000Z_0000-s1.jsonl")
			if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
				t.Fatal(err)
			}
			checkListing(t, dir, tc)
			newest, err := FindNewest(dir) // what -c opens
			if err != nil || newest != path {
				t.Fatalf("FindNewest = %q, %v; want %s", newest, err, path)
			}
			s, err := Open(context.Background(), newest)
			if err != nil {
				t.Fatal(err)
			}
			checkWarnings(t, s.Warnings(), tc.warn)
			checkSessionReaders(t, s, tc.context)
			s.Close()
			checkFork(t, path, tc)
		})
	}
}

func checkWarnings(t *testing.T, got []Warning, want []string) {
	t.Helper()
	ok := len(got) == len(want)
	for i := 0; ok && i < len(want); i++ {
		ok = regexp.MustCompile("^" + want[i]).MatchString(lineAndReason(got[i]))
	}
	if !ok {
		t.Fatalf("warnings:\n%s\nwant:\n%s", warningList(got), strings.Join(want, "\n"))
	}
}

func lineAndReason(w Warning) string { return "line " + strconv.Itoa(w.Line) + ": " + w.Reason }

func warningList(ws []Warning) string {
	var b strings.Builder
	for _, w := range ws {
		b.WriteString(lineAndReason(w) + "\n")
	}
	return b.String()
}

// checkSessionReaders checks the context and every other view of the session's tree.
func checkSessionReaders(t *testing.T, s *Session, want []string) {
	t.Helper()
	c, err := s.Context()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(describe(c.Messages), "|"); got != strings.Join(want, "|") {
		t.Fatalf("context = %s\nwant      %s", got, strings.Join(want, "|"))
	}
	entries, err := s.Entries()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, e := range entries {
		if e.ParentID != "" && !seen[e.ParentID] {
			t.Fatalf("entry %s hangs from %q, which is not an earlier entry", e.ID, e.ParentID)
		}
		seen[e.ID] = true
	}
	if got := strings.Join(describe(BuildContext(entries, s.Leaf()).Messages), "|"); got != strings.Join(want, "|") {
		t.Fatalf("BuildContext over Entries = %s", got)
	}
	path, err := s.PathTo(s.Leaf())
	if err != nil || len(path) != len(entries) {
		t.Fatalf("path to the leaf has %d entries (%v), want all %d: the session is linear", len(path), err, len(entries))
	}
	roots, err := s.Tree()
	if err != nil || len(roots) != 1 || len(s.Children("")) != 1 {
		t.Fatalf("tree has %d roots (%v), Children(\"\") %v; want one", len(roots), err, s.Children(""))
	}
	for n := roots[0]; ; n = n.Children[0] {
		if len(n.Children) == 0 {
			break
		}
		if len(n.Children) != 1 {
			t.Fatalf("%s has %d children in the tree", n.Entry.ID, len(n.Children))
		}
	}
	if nodes := s.Nodes(); len(nodes) != len(entries) || s.Len() != len(entries) {
		t.Fatalf("Nodes has %d, Len %d, Entries %d", len(nodes), s.Len(), len(entries))
	}
}

// checkListing checks what pi sessions shows: the messages Open keeps.
func checkListing(t *testing.T, dir string, tc damageCase) {
	t.Helper()
	infos, err := List(context.Background(), dir)
	if err != nil || len(infos) != 1 {
		t.Fatalf("List = %v, %v", infos, err)
	}
	want := len(tc.context)
	if strings.Contains(tc.name, "decode") || strings.Contains(tc.name, "unknown type") {
		want++ // a payload that does not decode is only found when it is read
	}
	if infos[0].MessageCount != want || infos[0].FirstPrompt != "one" || infos[0].ID != "0000-s1" {
		t.Fatalf("List: %d messages, first prompt %q, id %s; want %d, \"one\"", infos[0].MessageCount,
			infos[0].FirstPrompt, infos[0].ID, want)
	}
}

// checkFork forks the damaged file: the copy leaves the damage behind and loads clean.
func checkFork(t *testing.T, path string, tc damageCase) {
	t.Helper()
	ctx := context.Background()
	f, err := ForkFile(ctx, path, t.TempDir(), "/p")
	if err != nil {
		t.Fatal(err)
	}
	// Open cut a torn line off the source; any other damage is still there and reported.
	if w := f.Warnings(); !tc.torn && (len(w) != len(tc.warn) || !strings.HasPrefix(w[0].Reason, "in "+path+": ")) {
		t.Errorf("fork warnings = %v, want the source's", w)
	}
	f.Close()
	again, err := Open(ctx, f.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	if len(again.Warnings()) != 0 {
		t.Fatalf("the fork needs repairs of its own: %v", again.Warnings())
	}
	checkSessionReaders(t, again, tc.context)
}

// TestUnknownEntryTypes: entries of types a newer pi writes stay in the file and the tree,
// are skipped for the context, and are reported once per type.
func TestUnknownEntryTypes(t *testing.T) {
	lines := damageBase(t)
	bm := func(id, parent string) string {
		return `{"type":"bookmark_v9","id":"` + id + `","parentId":"` + parent + `","timestamp":"` + ts + `","pin":{"at":3}}`
	}
	future := `{"type":"future","id":"f0000001","parentId":"b0000002","timestamp":"` + ts + `","x":[1]}`
	// u0000002 hangs from bookmark b0000001, u0000003 from f0000001 after a second bookmark.
	lines[4] = strings.Replace(lines[4], `"parentId":"a0000001"`, `"parentId":"b0000001"`, 1)
	lines[6] = strings.Replace(lines[6], `"parentId":"a0000002"`, `"parentId":"f0000001"`, 1)
	lines = append(lines[:4:4], append([]string{bm("b0000001", "a0000001")}, lines[4:]...)...)
	lines = append(lines[:7:7], append([]string{bm("b0000002", "a0000002"), future}, lines[7:]...)...)
	path := filepath.Join(t.TempDir(), "2025-01-01T00-00-00-000Z_0000-s1.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	checkWarnings(t, s.Warnings(), []string{
		`line 5: entry type "bookmark_v9" is not known to this pi; its 2 entries are kept but not used$`,
		`line 9: entry type "future" is not known to this pi; its entry is kept but not used$`})
	checkSessionReaders(t, s, all6())
	entries, _ := s.Entries()
	if len(entries) != 10 || entries[3].Type != "bookmark_v9" || string(entries[3].Extra["pin"]) != `{"at":3}` {
		t.Fatalf("entries = %d, entry 4 = %+v", len(entries), entries[3])
	}
	if _, err := s.AppendMessage(provider.UserText("four", 9)); err != nil {
		t.Fatal(err)
	}
	s.Close()
	after := readLines(t, path)
	if len(after) != len(lines)+1 || strings.Join(after[:len(lines)], "\n") != strings.Join(lines, "\n") {
		t.Fatalf("the file was rewritten:\n%s", strings.Join(after, "\n"))
	}
	fork, err := ForkFile(context.Background(), path, t.TempDir(), "/p")
	if err != nil {
		t.Fatal(err)
	}
	defer fork.Close()
	copied := readLines(t, fork.Path())
	if copied[4] != lines[4] || copied[7] != lines[7] || copied[8] != future {
		t.Fatalf("the fork changed the unknown entries:\n%s", strings.Join(copied, "\n"))
	}
	if infos, err := List(context.Background(), filepath.Dir(path)); err != nil || infos[0].MessageCount != 7 {
		t.Fatalf("List = %+v, %v; want 7 messages", infos, err)
	}
}

// TestFindNewestReadsHeadersAsOpenDoes: -c picks the newest file Open can read, whatever the
// length of its header, and passes over files whose first line is not a header.
func TestFindNewestReadsHeadersAsOpenDoes(t *testing.T) {
	dir := t.TempDir()
	long := `{"type":"session","version":3,"id":"0000-long","timestamp":"` + ts + `","cwd":"/` + strings.Repeat("d", 5000) + `"}` + "\n"
	files := []struct{ name, content string }{
		{"a.jsonl", `{"type":"session","version":3,"id":"0000-old","timestamp":"` + ts + `","cwd":"/p"}` + "\n"},
		{"b.jsonl", long},
		{"c.jsonl", "{\"type\":\"session\",\"version\":3,\"id\":\"0000-\x00\",\"timestamp\":\"t\",\"cwd\":\"/p\"}\n"},
	}
	now := time.Now()
	for i, f := range files {
		p := filepath.Join(dir, f.name)
		if err := os.WriteFile(p, []byte(f.content), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, now, now.Add(time.Duration(i)*time.Minute)); err != nil {
			t.Fatal(err)
		}
	}
	got, err := FindNewest(dir)
	if err != nil || filepath.Base(got) != "b.jsonl" {
		t.Fatalf("FindNewest = %q, %v; want b.jsonl (c.jsonl's header has a NUL byte)", got, err)
	}
	if _, err := Open(context.Background(), filepath.Join(dir, "c.jsonl")); !errors.Is(err, ErrNotSession) {
		t.Fatalf("Open(c.jsonl) = %v, want ErrNotSession like FindNewest", err)
	}
}

// TestForkAcrossLabel: a fork leaves the path's labels out and re-creates them at the end; the
// entry that hung from a label hangs from the entry before it in the copy, so the fork's
// context is the whole path.
func TestForkAcrossLabel(t *testing.T) {
	s := Create(t.TempDir(), "/p")
	defer s.Close()
	ok := mustAppend(t)
	u1 := ok(s.AppendMessage(provider.UserText("one", 1)))
	ok(s.AppendMessage(assistant("r1")))
	ok(s.SetLabel(u1, "start"))
	ok(s.AppendMessage(provider.UserText("two", 2)))
	a2 := ok(s.AppendMessage(assistant("r2")))
	f, err := s.ForkAt(a2)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	again, err := Open(context.Background(), f.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	c, _ := again.Context()
	if got := strings.Join(describe(c.Messages), "|"); got != "user:one|assistant:r1|user:two|assistant:r2" || len(again.Warnings()) != 0 {
		t.Fatalf("fork context = %s, warnings %v", got, again.Warnings())
	}
	if again.Label(u1) != "start" {
		t.Fatalf("label = %q", again.Label(u1))
	}
}

// TestDamagedHeadersAreNamed: a file whose header line is damaged is listed with the reason,
// and -c, continuing the newest readable session, warns that it passed a newer one over.
func TestDamagedHeadersAreNamed(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	files := []struct{ name, content string }{
		{"a.jsonl", `{"type":"session","version":3,"id":"0000-old","timestamp":"` + ts + `","cwd":"/p"}` + "\n"},
		{"b.jsonl", `{"type":"session","version":3,"id":"0000-b` + "\n" + `{"type":"message"}` + "\n"}, // torn header
		{"c.jsonl", `{"type":"model_change","id":"abcd1234"}` + "\n"},                                  // no header
	}
	for i, f := range files {
		p := filepath.Join(dir, f.name)
		if err := os.WriteFile(p, []byte(f.content), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, now, now.Add(time.Duration(i)*time.Minute)); err != nil {
			t.Fatal(err)
		}
	}
	bad, err := ListUnreadable(dir)
	if err != nil || len(bad) != 2 || filepath.Base(bad[0].Path) != "c.jsonl" || filepath.Base(bad[1].Path) != "b.jsonl" {
		t.Fatalf("ListUnreadable = %+v, %v; want c.jsonl and b.jsonl", bad, err)
	}
	for _, b := range bad {
		if !strings.Contains(b.Why, "not a pi session file") || strings.Contains(b.Why, b.Path) {
			t.Errorf("%s: reason %q", b.Path, b.Why)
		}
	}
	s, err := Choose(context.Background(), Choice{Dir: dir, Cwd: "/p", Continue: true})
	if err != nil || s.ID() != "0000-old" {
		t.Fatalf("-c opened %v, %v; want the readable a.jsonl", s, err)
	}
	defer s.Close()
	var warned []string
	for _, w := range s.Warnings() {
		warned = append(warned, w.String())
	}
	if len(warned) != 2 || !strings.Contains(warned[0], "c.jsonl: passed over") || !strings.Contains(warned[1], "b.jsonl: passed over") {
		t.Fatalf("-c warned %q", warned)
	}
	var out strings.Builder
	WriteUnreadable(&out, bad)
	if !strings.Contains(out.String(), "2 session file(s) cannot be read") || !strings.Contains(out.String(), "b.jsonl: not a pi session file") {
		t.Fatalf("listing:\n%s", out.String())
	}
}
