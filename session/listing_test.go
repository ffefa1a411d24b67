package session

import (
	"strings"
	"testing"
	"time"

	"github.com/mattn/go-runewidth"
)

// TestListColumnsLineUp: the columns of `pi sessions` stay in place whatever the length of
// each row's id prefix (one needs more letters than the rest to be unique) and whatever the
// title's script (accents, wide letters) or length.
func TestListColumnsLineUp(t *testing.T) {
	when := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	infos := []Info{
		{ID: "0a1b2c3d4e5f-aaaa", FirstPrompt: "fix the build", MessageCount: 4, Size: 900, Modified: when},
		{ID: "0a1b2c3d4e5f-bbbb", FirstPrompt: "réécris le café", MessageCount: 12, Size: 4000, Modified: when},
		{ID: "9f8e7d6c", FirstPrompt: "解释这个函数的作用", MessageCount: 7, Size: 2 << 20, Modified: when},
		{ID: "77777777", FirstPrompt: strings.Repeat("long words ", 20), MessageCount: 1, Size: 10, Modified: when},
	}
	var b strings.Builder
	WriteList(&b, infos)
	rows := strings.Split(b.String(), "\n")[:len(infos)]
	col := -1
	for _, row := range rows {
		i := strings.Index(row, " msgs")
		if i < 0 {
			t.Fatalf("row without a message count: %q", row)
		}
		at := runewidth.StringWidth(row[:i])
		if col >= 0 && at != col {
			t.Fatalf("columns drift: %q has its count at %d, the first row at %d\n%s", row, at, col, b.String())
		}
		col = at
	}
	if !strings.Contains(b.String(), "0a1b2c3d4e5f-a") {
		t.Fatalf("the prefixes are not unique:\n%s", b.String())
	}
}

// TestMatchID is the one rule every place that takes a session id applies to a prefix.
func TestMatchID(t *testing.T) {
	ids := []string{"0a1b-1", "0a1b-2", "9f8e-1", "9f8e-1"}
	cases := []struct{ ref, want, err string }{
		{"9f", "9f8e-1", ""},      // unique (a repeated id is one session)
		{"0a1b-2", "0a1b-2", ""},  // whole
		{"0a1b", "", "ambiguous"}, // shared
		{"77", "", "no session"},  // unknown
		{"", "", "no session"},    // nothing named
	}
	for _, c := range cases {
		got, err := MatchID(c.ref, ids)
		if got != c.want || (c.err == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.err)) {
			t.Errorf("MatchID(%q) = %q, %v; want %q, %q", c.ref, got, err, c.want, c.err)
		}
	}
}

// TestListTitleNamesAttachedFiles: a session that opened with an @file is titled by the
// file's name and size and the words typed, not by the file's first line.
func TestListTitleNamesAttachedFiles(t *testing.T) {
	prompt := "<context>\ndate, folder\n</context>\n\n<file name=\"/p/main.go\">\npackage main\n" +
		strings.Repeat("// x\n", 500) + "</file>\nexplain @main.go"
	var b strings.Builder
	WriteList(&b, []Info{{ID: "0a1b2c3d", FirstPrompt: prompt, MessageCount: 2, Size: 9000, Modified: time.Unix(0, 0)}})
	if row := b.String(); !strings.Contains(row, "[main.go, 2.5 KB] explain @main.go") || strings.Contains(row, "package main") {
		t.Fatalf("title:\n%s", row)
	}
	cut := prompt[:len(prompt)/2] // a title read from a prompt cut short
	if got := Title(cut, 60); got != "[main.go, cut]" {
		t.Errorf("Title of a cut prompt = %q", got)
	}
}

// TestThreaded: a session started from another (a subagent's child, a fork) is listed right
// below its parent, however its header names the parent (by file or by id); one whose parent is
// not listed is marked with the parent's id; a chain that loops loses no session.
func TestThreaded(t *testing.T) {
	file := func(id string) string { return "/s/2026-05-01T10-00-00-000Z_" + id + ".jsonl" }
	info := func(id, parent string) Info {
		return Info{ID: id, Path: file(id), ParentSession: parent, FirstPrompt: "p " + id}
	}
	cases := []struct {
		name  string
		infos []Info // newest first, as List gives them
		want  []string
	}{
		{"no parents keep their order", []Info{info("a", ""), info("b", "")}, []string{"a", "b"}},
		{"a child below its parent, named by file", []Info{info("kid", file("dad")), info("other", ""), info("dad", "")},
			[]string{"other", "dad", "  kid<dad"}},
		{"named by id; grandchildren deeper; siblings in order", []Info{info("k1", "dad"), info("g", file("k2")), info("k2", "dad"), info("dad", "")},
			[]string{"dad", "  k1<dad", "  k2<dad", "    g<k2"}},
		{"a parent not listed is named", []Info{info("kid", file("gone"))}, []string{"kid<gone"}},
		{"a parent in the SQLite store", []Info{info("kid", "/home/u/.pi/sessions.db#dad"), info("dad", "")}, []string{"dad", "  kid<dad"}},
		{"a loop loses nothing", []Info{info("x", "y"), info("y", "x"), info("self", "self")}, []string{"self<self", "x<y", "  y<x"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var got []string
			for _, l := range Threaded(c.infos) {
				row := strings.Repeat("  ", l.Depth) + l.ID
				if l.Parent != "" {
					row += "<" + l.Parent
				}
				got = append(got, row)
			}
			if strings.Join(got, ",") != strings.Join(c.want, ",") {
				t.Fatalf("Threaded = %q, want %q", got, c.want)
			}
		})
	}
}

// TestListShowsChildrenUnderTheirParent: `pi sessions` prints a child below its parent with an
// arrow, and a child whose parent is elsewhere with the parent's id.
func TestListShowsChildrenUnderTheirParent(t *testing.T) {
	when := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	infos := []Info{
		{ID: "01a2349b-kid", Path: "/s/x_01a2349b-kid.jsonl", ParentSession: "/s/x_01a2349a-dad.jsonl", FirstPrompt: "bg task", Modified: when},
		{ID: "01a2349c-lone", ParentSession: "/elsewhere/x_01a23400-0000-gone.jsonl", FirstPrompt: "forked", Modified: when},
		{ID: "01a2349a-dad", Path: "/s/x_01a2349a-dad.jsonl", FirstPrompt: "go", Modified: when},
	}
	var b strings.Builder
	WriteList(&b, infos)
	rows := strings.Split(b.String(), "\n")
	if !strings.Contains(rows[0], "↳ child of 01a23400-0000 · forked") || !strings.Contains(rows[1], "  go ") ||
		!strings.Contains(rows[2], "  ↳ bg task") {
		t.Fatalf("the child should follow its parent, marked:\n%s", b.String())
	}
}
