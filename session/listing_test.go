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
