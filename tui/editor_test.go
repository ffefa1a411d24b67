package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestEditorOps(t *testing.T) {
	cases := []struct {
		name string
		do   func(e *Editor)
		want string
	}{
		{"kill word back", func(e *Editor) { e.Insert("hello big world"); e.KillWordBack() }, "hello big "},
		{"kill and yank", func(e *Editor) { e.Insert("one two"); e.KillWordBack(); e.Home(); e.Yank() }, "twoone "},
		{"consecutive kills grow one entry", func(e *Editor) {
			e.Insert("a b c")
			e.KillWordBack()
			e.KillWordBack()
			e.Yank()
		}, "a b c"},
		{"yank pop", func(e *Editor) {
			e.Insert("x")
			e.KillWordBack()
			e.Insert("y")
			e.KillWordBack()
			e.Yank()
			e.YankPop()
		}, "x"},
		{"word motions", func(e *Editor) { e.Insert("foo bar baz"); e.WordLeft(); e.WordLeft(); e.Insert("X") }, "foo Xbar baz"},
		{"kill to end", func(e *Editor) { e.Insert("abc def"); e.WordLeft(); e.KillToEnd() }, "abc "},
		{"kill to start", func(e *Editor) { e.Insert("abc def"); e.WordLeft(); e.KillToStart() }, "def"},
		{"undo a word at a time", func(e *Editor) { e.Insert("a"); e.Insert("b"); e.Insert(" "); e.Insert("c"); e.Undo() }, "ab "},
		{"kill word forward", func(e *Editor) { e.Insert("abc def"); e.Home(); e.KillWordForward() }, " def"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := NewEditor()
			c.do(e)
			if got := e.RawText(); got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}

func TestEditorHistory(t *testing.T) {
	e := NewEditor()
	for _, s := range []string{"first", "second", "second", "", "third"} {
		e.AddHistory(s)
	}
	if len(e.history) != 3 {
		t.Fatalf("history %q: want no empty or repeated entries", e.history)
	}
	e.Up(40)
	e.Up(40)
	if e.RawText() != "second" {
		t.Fatalf("after two Ups: %q", e.RawText())
	}
	e.Down(40)
	e.Down(40)
	if e.RawText() != "" {
		t.Fatalf("after walking back down: %q", e.RawText())
	}
	for i := range 150 {
		e.AddHistory(strings.Repeat("x", i+1))
	}
	if len(e.history) != historySize {
		t.Fatalf("history holds %d entries", len(e.history))
	}
}

func TestEditorWrapAndCursor(t *testing.T) {
	e := NewEditor()
	e.Insert(strings.Repeat("a", 25))
	lines := e.Render(10)
	if len(lines) != 5 { // border, 3 rows of at most 9 cells, border
		t.Fatalf("rendered %d lines: %q", len(lines), lines)
	}
	for _, l := range lines {
		if Width(l) > 10 {
			t.Fatalf("line %q wider than 10", l)
		}
	}
	e.Up(10)
	if e.cursor != 16 {
		t.Fatalf("cursor after Up = %d, want 16", e.cursor)
	}
}

func TestCompletion(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"main.go", "tui/app.go", "tui/render.go", "build/out.bin", "notes.log"} {
		p := filepath.Join(dir, f)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, nil, 0o644)
	}
	os.WriteFile(filepath.Join(dir, ".gitignore"), []byte("build/\n*.log\n"), 0o644)
	cmds := []Command{{Name: "model", Description: "pick a model"}, {Name: "compact", ArgHint: "[instructions]", Description: "summarise"}}
	cases := []struct {
		typed, want string
	}{
		{"/mo", "/model "},
		{"look at @rendr", "look at @tui/render.go "},
		{"@main", "@main.go "},
	}
	for _, c := range cases {
		e := NewEditor()
		comp := &completer{cwd: dir}
		e.Insert(c.typed)
		comp.update(e, cmds)
		comp.accept(e)
		if e.RawText() != c.want {
			t.Errorf("%q completed to %q, want %q", c.typed, e.RawText(), c.want)
		}
	}
	files := listFiles(dir, 100)
	for _, f := range files {
		if strings.HasPrefix(f, "build") || strings.HasSuffix(f, ".log") {
			t.Errorf("ignored path %q listed", f)
		}
	}
	e := NewEditor()
	comp := &completer{cwd: dir}
	e.Insert("see ./tu")
	comp.paths(e)
	comp.accept(e)
	if e.RawText() != "see ./tui/" {
		t.Errorf("path completion gave %q", e.RawText())
	}
	e = NewEditor()
	comp = &completer{cwd: dir}
	e.Insert("/compact ")
	comp.update(e, cmds)
	if !strings.Contains(comp.hint, "[instructions]") {
		t.Errorf("hint %q lacks the argument hint", comp.hint)
	}
}

// TestFileListFollowsNestedGitignore checks the @file list against git's rules: a nested
// .gitignore, a negation, hidden files kept, .git skipped.
func TestFileListFollowsNestedGitignore(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"a.tmp", "pkg/b.tmp", "pkg/keep.tmp", "pkg/c.go", ".hidden", ".git/HEAD"} {
		p := filepath.Join(dir, f)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, nil, 0o644)
	}
	os.WriteFile(filepath.Join(dir, ".gitignore"), []byte("*.tmp\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "pkg", ".gitignore"), []byte("!keep.tmp\n"), 0o644)
	got := strings.Join(listFiles(dir, 100), " ")
	want := "pkg/ .gitignore .hidden pkg/.gitignore pkg/c.go pkg/keep.tmp"
	if got != want {
		t.Fatalf("listed %q, want %q", got, want)
	}
}

// TestFilePopupSelectsBestMatchWhileTyping: typed letters re-rank the @ popup, and Tab takes
// the best match unless the user moved the selection (then it stays where they put it).
func TestFilePopupSelectsBestMatchWhileTyping(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"cmd/run.go", "main.go", "tui/menu.go", "tui/app.go"} {
		p := filepath.Join(dir, f)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, nil, 0o644)
	}
	cases := []struct {
		name  string
		steps []string // text typed, one update per rune; "↓" moves the selection down
		want  string
	}{
		{"typing re-ranks", []string{"@main"}, "@main.go "},
		{"one letter", []string{"@m"}, "@main.go "},
		{"a moved selection stays", []string{"@m", "↓", "."}, "@tui/menu.go "},
		{"a new token forgets the move", []string{"@m", "↓", " ", "@mai"}, "@m @main.go "},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e, comp := NewEditor(), &completer{cwd: dir}
			for _, step := range c.steps {
				if step == "↓" {
					comp.move(1)
					continue
				}
				for _, r := range step {
					e.Insert(string(r))
					comp.update(e, nil)
				}
			}
			comp.accept(e)
			if e.RawText() != c.want {
				t.Fatalf("completed to %q, want %q", e.RawText(), c.want)
			}
		})
	}
}
