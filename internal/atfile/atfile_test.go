package atfile

import (
	"strings"
	"testing"
)

func TestSplitFindsBlocksAndKeepsEveryByte(t *testing.T) {
	body := strings.Repeat("x", 2150)
	tests := []struct {
		name, text string
		want       []string // labels of the blocks found, in order
		fold       string
	}{
		{"typed only", "explain main.go", nil, "explain main.go"},
		{"one text file before the typed text", Text("/p/main.go", body) + "explain @main.go", []string{"[main.go, 2.1 KB]"},
			"[main.go, 2.1 KB] explain @main.go"},
		{"a picture's note and a file", Note("/p/shot.png", "[scaled]") + Text("/p/a.txt", "hi\n") + "look",
			[]string{"[shot.png]", "[a.txt, 2 B]"}, "[shot.png] [a.txt, 2 B] look"},
		{"after piped input", "diff\n\n" + Text("/p/a.txt", "one\ntwo") + "review", []string{"[a.txt, 7 B]"},
			"diff\n\n[a.txt, 7 B] review"},
		{"empty file", Text("/p/empty", "") + "go", []string{"[empty, 0 B]"}, "[empty, 0 B] go"},
		{"a body holding a closing tag mid-line", Text("/p/x.go", `s := "</file>"`) + "q", []string{"[x.go, 14 B]"}, "[x.go, 14 B] q"},
		{"cut short (a title)", `<file name="/p/big.go">` + "\npackage main\n", []string{"[big.go, cut]"}, "[big.go, cut]"},
		{"pi's unescaped name", "<file name=\"/p/my \\ file.txt\">\nhi\n</file>\nok", []string{"[my \\ file.txt, 2 B]"}, "[my \\ file.txt, 2 B] ok"},
		{"not at a line's start", `see <file name="/p/a">` + "\nx\n</file>\n", nil, `see <file name="/p/a">` + "\nx\n</file>"},
		{"no closing quote", `<file name="/p/a` + "\n", nil, `<file name="/p/a`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var labels []string
			var joined strings.Builder
			for _, p := range Split(tt.text) {
				joined.WriteString(p.Text)
				if p.File != nil {
					labels = append(labels, p.File.Label())
				}
			}
			if joined.String() != tt.text {
				t.Errorf("pieces join to %q, want the text back", joined.String())
			}
			if strings.Join(labels, "|") != strings.Join(tt.want, "|") {
				t.Errorf("blocks %q, want %q", labels, tt.want)
			}
			if got := Fold(tt.text); got != tt.fold {
				t.Errorf("Fold = %q, want %q", got, tt.fold)
			}
		})
	}
}

func TestBodyComesBackWhole(t *testing.T) {
	body := "line one\n\nline three\n"
	fs := Files(Text("/p/n.txt", body) + "q")
	if len(fs) != 1 || fs[0].Body != strings.TrimSuffix(body, "\n") || fs[0].Path != "/p/n.txt" {
		t.Fatalf("files %+v", fs)
	}
}

func TestUnexpandDropsOnlyBlocksTheTextNames(t *testing.T) {
	tests := []struct{ text, want string }{
		{Text("/p/main.go", "package main") + "explain @main.go", "explain @main.go"},
		{Text("/p/sub/a.go", "x") + `what is @"sub/a.go"?`, `what is @"sub/a.go"?`},
		{Text("/p/main.go", "package main") + "explain it", Text("/p/main.go", "package main") + "explain it"},
		{Text("/p/a.go", "x") + Text("/p/b.go", "y") + "@b.go", Text("/p/a.go", "x") + "@b.go"},
	}
	for _, tt := range tests {
		if got := Unexpand(tt.text); got != tt.want {
			t.Errorf("Unexpand(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}

func TestWords(t *testing.T) {
	tests := []struct {
		text string
		want []string
	}{
		{"explain @main.go", []string{"main.go"}},
		{"@a.go, @b/c.txt. and (@d.md)", []string{"a.go", "b/c.txt"}}, // "(@" does not start a word
		{`see @"my notes.txt" now`, []string{"my notes.txt"}},
		{"mail me at a@b.com", nil},
		{"```\n@property\n```\n@after.go", []string{"after.go"}},
		{"@ alone and @@ -1,2 +1,3 @@", []string{"@", "@"}},
		{"line\n@first.go\tand\t@tab.go!", []string{"first.go", "tab.go"}},
	}
	for _, tt := range tests {
		var got []string
		for _, w := range Words(tt.text) {
			got = append(got, w.Path)
			if !strings.HasPrefix(tt.text[w.Start:w.End], "@") {
				t.Errorf("%q: word %q does not start with @", tt.text, tt.text[w.Start:w.End])
			}
		}
		if strings.Join(got, "|") != strings.Join(tt.want, "|") {
			t.Errorf("Words(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}

// FuzzSplit: any text splits into pieces that join back to it, and folding never panics.
func FuzzSplit(f *testing.F) {
	f.Add(Text("/p/main.go", "package main\n") + "explain @main.go")
	f.Add(Note("/p/a.png", "note") + "x")
	f.Add("<file name=\"\\x\">\n</file")
	f.Fuzz(func(t *testing.T, text string) {
		var joined strings.Builder
		for _, p := range Split(text) {
			joined.WriteString(p.Text)
		}
		if joined.String() != text {
			t.Fatalf("pieces join to %q, want %q", joined.String(), text)
		}
		_ = Fold(text)
		_ = Unexpand(text)
		for _, w := range Words(text) {
			if w.Start < 0 || w.End > len(text) || w.Start >= w.End {
				t.Fatalf("word %+v out of %d bytes", w, len(text))
			}
		}
	})
}
