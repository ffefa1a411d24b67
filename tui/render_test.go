package tui

import (
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/tui")

// golden compares got with ../testdata/tui/<name>.golden, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("..", "testdata", "tui", name+".golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden (run with -update to create): %v", err)
	}
	if string(want) != got {
		t.Errorf("%s differs from golden\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

// step is one frame of a renderer scenario, or a resize when w > 0.
type step struct {
	commit, live []string
	fixed        int // the last lines of live that never spill
	w, h         int
}

func TestRendererGolden(t *testing.T) {
	cases := []struct {
		name  string
		w, h  int
		steps []step
	}{
		{"first_frame", 20, 6, []step{{live: []string{"hello", "\x1b[1mbold\x1b[0m", "> _"}}}},
		{"changed_middle", 20, 6, []step{
			{live: []string{"one", "two", "three", "four"}},
			{live: []string{"one", "TWO!", "three", "four"}},
		}},
		{"appended", 20, 6, []step{
			{live: []string{"a", "b"}},
			{live: []string{"a", "b", "c", "d"}},
		}},
		{"shrink", 20, 6, []step{
			{live: []string{"a", "b", "c", "d"}},
			{live: []string{"a", "b"}},
		}},
		{"commit", 20, 6, []step{
			{live: []string{"reply", "editor", "footer"}},
			{commit: []string{"reply"}, live: []string{"tool", "editor", "footer"}},
		}},
		{"spill", 10, 3, []step{
			{live: []string{"1", "2", "3"}},
			{live: []string{"1", "2", "3", "4", "5"}},
			{live: []string{"3", "4", "5", "6"}}, // the caller drops spilled lines
		}},
		{"resize", 10, 4, []step{
			{live: []string{"abc", "defgh", "ij"}},
			{w: 16, h: 4},
			{live: []string{"abc", "defgh and more", "ij"}},
		}},
		{"resize_shorter", 10, 5, []step{
			{live: []string{"a", "b", "c", "d", "e"}},
			{w: 10, h: 3},
			{live: []string{"a", "b", "c", "d", "E"}}, // a and b are reported spilled, not drawn
		}},
		{"wide", 10, 5, []step{
			{live: []string{"日本語テキ", "👍🏽 ok", "e\u0301te", "漢字漢字漢字漢字"}},
			{live: []string{"日本語テキ", "👍🏽 ok!", "e\u0301te", "x"}},
		}},
		// More lines arrive above an unchanged tail than the screen has rows: the first of
		// them would be above the top once room is made, so they are written in order instead.
		{"commit_taller_than_screen", 10, 4, []step{
			{live: []string{"user", "ed", "ft"}},
			{commit: []string{"user", "1", "2", "3", "4", "5"}, live: []string{"ed", "ft"}},
		}},
		{"grow_taller_than_screen", 10, 4, []step{
			{live: []string{"r1", "r2", "ed", "ft"}},
			{live: []string{"r1", "r2", "r3", "r4", "r5", "r6", "ed", "ft"}}, // four spill
		}},
		{"full_width_line", 5, 3, []step{
			{live: []string{"abcde", "f"}},
			{live: []string{"abcdE", "g"}},
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			runScenario(t, c.name, c.w, c.h, c.steps)
		})
	}
}

func runScenario(t *testing.T, name string, w, h int, steps []step) {
	term := newVT(w, h)
	var out strings.Builder
	r := NewRenderer(&tee{term, &out}, w, h)
	var want []string // every line ever committed, then the live region
	var golden_ strings.Builder
	for i, s := range steps {
		if s.w > 0 {
			r.Resize(s.w, s.h)
			term.resize(s.w, s.h)
			continue
		}
		out.Reset()
		spilled, err := r.Frame(s.commit, s.live, s.fixed)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, s.commit...)
		want = append(want, s.live[:spilled]...)
		golden_.WriteString("frame " + strconv.Itoa(i+1) + ": " + strconv.Quote(out.String()) + "\n")
		shown := append(append([]string(nil), want...), s.live[spilled:]...)
		for k, l := range shown {
			if Width(l) > r.width {
				shown[k] = Truncate(l, r.width, "")
			}
			if k == len(shown)-1 && Width(shown[k]) >= r.width && spilled < len(s.live) {
				shown[k] = Truncate(shown[k], r.width-1, "") // the last live line leaves the last column free
			}
		}
		if got, exp := strings.Join(term.all(), "\n"), strings.Join(plain(shown), "\n"); got != exp {
			t.Errorf("after frame %d the terminal shows\n%s\nwant\n%s", i+1, got, exp)
		}
	}
	if term.clears != 0 || r.Stats().Clears != 0 {
		t.Errorf("screen cleared %d times", term.clears)
	}
	golden(t, "render_"+name, golden_.String())
}

type tee struct {
	a, b interface{ Write([]byte) (int, error) }
}

func (t *tee) Write(p []byte) (int, error) {
	t.a.Write(p)
	return t.b.Write(p)
}

func TestRendererNoWriteWhenUnchanged(t *testing.T) {
	var out strings.Builder
	r := NewRenderer(&out, 10, 5)
	r.Frame(nil, []string{"a", "b"}, 0)
	n := out.Len()
	r.Frame(nil, []string{"a", "b"}, 0)
	if out.Len() != n {
		t.Fatalf("unchanged frame wrote %q", out.String()[n:])
	}
}

func TestWidthAndWrap(t *testing.T) {
	cases := []struct {
		in    string
		width int
	}{
		{"abc", 3}, {"\x1b[31mred\x1b[0m", 3}, {"日本", 4}, {"👍🏽", 2}, {"e\u0301", 1},
		{"\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\", 4}, {"🇩🇪", 2},
	}
	for _, c := range cases {
		if got := Width(c.in); got != c.width {
			t.Errorf("Width(%q) = %d, want %d", c.in, got, c.width)
		}
	}
	wraps := []struct {
		in   string
		w    int
		want []string
	}{
		{"the quick brown fox", 9, []string{"the quick", "brown fox"}},
		{"abcdefghij", 4, []string{"abcd", "efgh", "ij"}},
		{"\x1b[1mbold text\x1b[0m", 5, []string{"\x1b[1mbold\x1b[0m", "\x1b[1mtext\x1b[0m"}},
		{"日本語です", 5, []string{"日本", "語で", "す"}},
		{"a\nb", 5, []string{"a", "b"}},
	}
	for _, c := range wraps {
		got := Wrap(c.in, c.w)
		if strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("Wrap(%q, %d) = %q, want %q", c.in, c.w, got, c.want)
		}
		for _, l := range got {
			if Width(l) > c.w {
				t.Errorf("Wrap(%q, %d): line %q too wide", c.in, c.w, l)
			}
		}
	}
}

// No input makes Wrap or Truncate produce a line wider than asked, or lose text.
func FuzzWrap(f *testing.F) {
	for _, s := range []string{"hello world", "\x1b[1mbold\x1b[0m text", "日本語 テキスト", "👍🏽👍🏽 e\u0301", "a\tb\x07c"} {
		f.Add(s, 5)
	}
	f.Fuzz(func(t *testing.T, s string, w int) {
		w = w%40 + 1
		if w < 1 {
			w += 40
		}
		for _, l := range Wrap(s, w) {
			if Width(l) > max(w, 2) { // a 2-cell cluster cannot be split below 2
				t.Fatalf("Wrap(%q, %d): %q is %d wide", s, w, l, Width(l))
			}
		}
		if got := Truncate(s, w, "…"); Width(got) > max(w, 2) {
			t.Fatalf("Truncate(%q, %d) = %q", s, w, got)
		}
	})
}

func TestRendererKeepsOneRowPerLine(t *testing.T) {
	term := newVT(10, 4)
	r := NewRenderer(term, 10, 4)
	r.Frame(nil, []string{"a\nb", "c\r", "0123456789abc"}, 0)
	if got := strings.Join(term.all(), "|"); got != "a b|c|012345678" {
		t.Fatalf("screen %q", got)
	}
}

// The quick width measure agrees with grapheme segmentation wherever it answers.
func FuzzQuickWidth(f *testing.F) {
	for _, s := range []string{"─────", "⠋ Working…", "café ↑12k ↓3k", "日本語", "e\u0301", "👍🏽", "\x1b[1mbold\x1b[0m",
		"\x1b[", "a\u200db", "✓ ● ∴ │ › ⏎", "\u00ad", "x\u0301\u0302", "▶\ufe0f", "⌚"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		w, ok := quickWidth(s)
		slow := 0
		forEachSegment(s, func(g segment) bool { slow += g.width; return true })
		if ok && w != slow {
			t.Fatalf("quickWidth(%q) = %d, segments say %d", s, w, slow)
		}
	})
}
