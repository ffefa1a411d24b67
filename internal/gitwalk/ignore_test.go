package gitwalk

import "testing"

func TestIgnored(t *testing.T) {
	rules := "# comment\n\n*.o\n!keep.o\n/top.txt\nbuild/\ndocs/**/*.tmp\n**/cache\nlogs/**\n\\#hash\n\\!bang\ntrail   \n"
	stack := []*ignoreFile{{rules: parseIgnore([]byte(rules))}}
	tests := []struct {
		path  string
		isDir bool
		want  bool
	}{
		{"a.o", false, true},
		{"deep/x/a.o", false, true},
		{"keep.o", false, false},
		{"top.txt", false, true},
		{"sub/top.txt", false, false},
		{"build", true, true},
		{"build", false, false}, // dir-only rule, a file of that name stays
		{"x/build", true, true},
		{"docs/a/b/c.tmp", false, true},
		{"docs/c.tmp", false, true},
		{"other/c.tmp", false, false},
		{"a/b/cache", true, true},
		{"logs/x", false, true},
		{"#hash", false, true},
		{"!bang", false, true},
		{"trail", false, true},
		{"main.go", false, false},
	}
	for _, tc := range tests {
		if got := ignored(stack, tc.path, tc.isDir); got != tc.want {
			t.Errorf("ignored(%q, dir=%v) = %v, want %v", tc.path, tc.isDir, got, tc.want)
		}
	}
}

// Rules of a deeper .gitignore apply only below it and win over shallower ones.
func TestIgnoredNested(t *testing.T) {
	stack := []*ignoreFile{
		{rules: parseIgnore([]byte("*.gen\n/only-root\n"))},
		{strip: "pkg/", rules: parseIgnore([]byte("!keep.gen\n/only-root\n"))},
	}
	tests := map[string]bool{
		"pkg/a.gen":       true,
		"pkg/keep.gen":    false,
		"pkg/only-root":   true, // anchored to pkg/ by the deeper file
		"only-root":       true,
		"pkg/x/only-root": false,
	}
	for p, want := range tests {
		if got := ignored(stack, p, false); got != want {
			t.Errorf("ignored(%q) = %v, want %v", p, got, want)
		}
	}
}
