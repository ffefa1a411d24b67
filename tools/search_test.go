package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// searchTree is a project with nested .gitignore files, a negation, hidden files, a .git
// directory and a binary file.
var searchTree = map[string]string{
	".gitignore":          "*.log\nbuild/\n!keep.log\n/rootonly.txt\n",
	"main.go":             "package main\n// needle in main\nfunc main() {}\n",
	"app.log":             "needle in a log\n",
	"keep.log":            "needle kept by negation\n",
	"rootonly.txt":        "needle ignored at the root only\n",
	"build/out.go":        "needle in build\n",
	".hidden/h.go":        "needle in a hidden dir\n",
	".env":                "needle=hidden file\n",
	".git/config":         "needle in git\n",
	"bin/tool":            "needle\x00binary\n",
	"sub/.gitignore":      "secret.txt\n!*.keep\n",
	"sub/secret.txt":      "needle secret\n",
	"sub/rootonly.txt":    "needle not at the root\n",
	"sub/a.go":            "x\nneedle sub\ny\n",
	"sub/deeper/b.go":     "needle deeper\n",
	"sub/deeper/Q.keep":   "needle\n",
	"sub/deeper/skip.log": "needle\n",
}

func TestGrep(t *testing.T) {
	tests := []struct {
		name string
		args map[string]any
		want string
	}{
		{"gitignore, nested, negation, hidden, binary", map[string]any{"pattern": "needle"},
			".env:1: needle=hidden file\n.hidden/h.go:1: needle in a hidden dir\nkeep.log:1: needle kept by negation\n" +
				"main.go:2: // needle in main\nsub/a.go:2: needle sub\nsub/deeper/Q.keep:1: needle\n" +
				"sub/deeper/b.go:1: needle deeper\nsub/rootonly.txt:1: needle not at the root"},
		{"glob", map[string]any{"pattern": "needle", "glob": "*.go"},
			".hidden/h.go:1: needle in a hidden dir\nmain.go:2: // needle in main\nsub/a.go:2: needle sub\nsub/deeper/b.go:1: needle deeper"},
		{"glob with a slash", map[string]any{"pattern": "needle", "glob": "sub/**/*.go"},
			"sub/a.go:2: needle sub\nsub/deeper/b.go:1: needle deeper"},
		{"path is a subdirectory", map[string]any{"pattern": "needle", "path": "sub/deeper"},
			"Q.keep:1: needle\nb.go:1: needle deeper"},
		{"path is a file", map[string]any{"pattern": "needle", "path": "sub/a.go"}, "a.go:2: needle sub"},
		{"context", map[string]any{"pattern": "needle sub", "context": 1.0}, "sub/a.go-1- x\nsub/a.go:2: needle sub\nsub/a.go-3- y"},
		{"regex", map[string]any{"pattern": `needle (in|sub)\b`, "glob": "*.go"},
			".hidden/h.go:1: needle in a hidden dir\nmain.go:2: // needle in main\nsub/a.go:2: needle sub"},
		{"literal", map[string]any{"pattern": "func main()", "literal": true}, "main.go:3: func main() {}"},
		{"ignore case", map[string]any{"pattern": "NEEDLE DEEPER", "ignoreCase": true}, "sub/deeper/b.go:1: needle deeper"},
		{"no match", map[string]any{"pattern": "nothing here"}, "No matches found"},
		{"limit", map[string]any{"pattern": "needle", "limit": 2.0},
			".env:1: needle=hidden file\n.hidden/h.go:1: needle in a hidden dir\n\n[Stopped at 2 matches; pass limit=4 for more, or narrow the pattern.]"},
	}
	env := testEnv(t)
	writeFiles(t, env.Cwd, searchTree)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := callTool(t, env, "grep", tc.args)
			if got := resultText(res); got != tc.want || res.IsError {
				t.Fatalf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

func TestGrepErrorsAndLongLines(t *testing.T) {
	env := testEnv(t)
	writeFiles(t, env.Cwd, map[string]string{"min.js": "var a=1;" + strings.Repeat("x", 800) + "\n"})
	if r := callTool(t, env, "grep", map[string]any{"pattern": "("}); !r.IsError || !strings.Contains(resultText(r), "literal") {
		t.Fatalf("bad regex: %q", resultText(r))
	}
	if r := callTool(t, env, "grep", map[string]any{"pattern": "x", "path": "missing"}); !r.IsError {
		t.Fatalf("missing path: %q", resultText(r))
	}
	r := callTool(t, env, "grep", map[string]any{"pattern": "var a"})
	text := resultText(r)
	if !strings.Contains(text, "... [truncated]") || !strings.Contains(text, "longer than 500") || len(text) > 700 {
		t.Fatalf("long line: %q", text)
	}
}

// With many files and matches the output must be the same on every run despite the parallel
// search, and hold exactly the first matches in walk order.
func TestGrepDeterministicLimit(t *testing.T) {
	env := testEnv(t)
	files := map[string]string{}
	for i := range 300 {
		files[fmt.Sprintf("d%d/f%03d.txt", i%7, i)] = strings.Repeat("hit\n", i%4)
	}
	writeFiles(t, env.Cwd, files)
	first := resultText(callTool(t, env, "grep", map[string]any{"pattern": "hit", "limit": 50.0}))
	if n := strings.Count(first, ": hit"); n != 50 {
		t.Fatalf("%d matches, want 50", n)
	}
	for range 10 {
		if again := resultText(callTool(t, env, "grep", map[string]any{"pattern": "hit", "limit": 50.0})); again != first {
			t.Fatalf("output changed between runs:\n%s\n---\n%s", first, again)
		}
	}
}

func TestFind(t *testing.T) {
	tests := []struct {
		name string
		args map[string]any
		want string
	}{
		{"basename glob", map[string]any{"pattern": "*.go"}, ".hidden/h.go\nmain.go\nsub/a.go\nsub/deeper/b.go"},
		{"path glob", map[string]any{"pattern": "sub/**/*.go"}, "sub/a.go\nsub/deeper/b.go"},
		{"braces", map[string]any{"pattern": "*.{log,keep}"}, "keep.log\nsub/deeper/Q.keep"},
		{"directories end in a slash", map[string]any{"pattern": "deep*"}, "sub/deeper/"},
		{"hidden included, .git never", map[string]any{"pattern": ".*"}, ".env\n.gitignore\n.hidden/\nsub/.gitignore"},
		{"in a subdirectory", map[string]any{"pattern": "*", "path": "sub"},
			".gitignore\na.go\ndeeper/\ndeeper/Q.keep\ndeeper/b.go\nrootonly.txt"},
		{"limit", map[string]any{"pattern": "*.go", "limit": 2.0}, ".hidden/h.go\nmain.go\n\n[Stopped at 2 results; pass limit=4 for more.]"},
		{"nothing", map[string]any{"pattern": "*.rs"}, "No files match the pattern"},
	}
	env := testEnv(t)
	writeFiles(t, env.Cwd, searchTree)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := callTool(t, env, "find", tc.args)
			if got := resultText(res); got != tc.want || res.IsError {
				t.Fatalf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

// A malformed glob is an error the model can fix, not "No files match".
func TestFindInvalidGlob(t *testing.T) {
	env := testEnv(t)
	writeFiles(t, env.Cwd, searchTree)
	for _, pattern := range []string{"[", "sub/[a-", "**/*.go\\", "{a,[}"} {
		res := callTool(t, env, "find", map[string]any{"pattern": pattern})
		if got := resultText(res); !res.IsError || !strings.Contains(got, "invalid glob pattern") {
			t.Errorf("find %q: error %v, %q; want an invalid-pattern error", pattern, res.IsError, got)
		}
	}
	if res := callTool(t, env, "find", map[string]any{"pattern": "[[]*"}); res.IsError {
		t.Errorf("find [[]*: a literal [ is valid: %q", resultText(res))
	}
}

func TestLs(t *testing.T) {
	env := testEnv(t)
	writeFiles(t, env.Cwd, map[string]string{"b.txt": "", "A.txt": "", ".dot": "", "dir/x": "", "Zed/y": "", "empty/.keep": ""})
	os.Remove(filepath.Join(env.Cwd, "empty/.keep"))
	tests := []struct {
		args map[string]any
		want string
	}{
		{map[string]any{}, ".dot\nA.txt\nb.txt\ndir/\nempty/\nZed/"},
		{map[string]any{"path": "dir"}, "x"},
		{map[string]any{"path": "empty"}, "(empty directory)"},
		{map[string]any{"limit": 2.0}, ".dot\nA.txt\n\n[Stopped at 2 entries; pass limit=4 for more.]"},
	}
	for _, tc := range tests {
		if got := resultText(callTool(t, env, "ls", tc.args)); got != tc.want {
			t.Errorf("ls %v:\n%s\nwant\n%s", tc.args, got, tc.want)
		}
	}
	if r := callTool(t, env, "ls", map[string]any{"path": "nope"}); !r.IsError {
		t.Errorf("ls of a missing directory: %q", resultText(r))
	}
}

// A subdirectory search still honours the .gitignore files above it, up to the repository root.
func TestGrepHonoursParentGitignore(t *testing.T) {
	env := testEnv(t)
	writeFiles(t, env.Cwd, map[string]string{
		".git/HEAD": "ref: refs/heads/main\n", ".gitignore": "gen/\n*.tmp\n",
		"pkg/a.go": "needle\n", "pkg/gen/b.go": "needle\n", "pkg/c.tmp": "needle\n",
	})
	if got := resultText(callTool(t, env, "grep", map[string]any{"pattern": "needle", "path": "pkg"})); got != "a.go:1: needle" {
		t.Fatalf("got %q", got)
	}
}

func TestGrepContextMerging(t *testing.T) {
	data := "l1\nhit2\nl3\nhit4\nl5\nl6\nl7\nhit8\n"
	tests := []struct {
		context int
		want    string
	}{
		{0, "f:2: hit2\nf:4: hit4\nf:8: hit8"},
		{1, "f-1- l1\nf:2: hit2\nf-3- l3\nf:4: hit4\nf-5- l5\nf-7- l7\nf:8: hit8"},
		{2, "f-1- l1\nf:2: hit2\nf-3- l3\nf:4: hit4\nf-5- l5\nf-6- l6\nf-7- l7\nf:8: hit8"},
		{9, "f-1- l1\nf:2: hit2\nf-3- l3\nf:4: hit4\nf-5- l5\nf-6- l6\nf-7- l7\nf:8: hit8"},
	}
	for _, tc := range tests {
		m, err := newMatcher("hit", false, false)
		if err != nil {
			t.Fatal(err)
		}
		s := grepSearch{m: m, context: tc.context, limit: 100}
		var buf []byte
		lines, _ := s.search(strings.NewReader(data), int64(len(data)), "f", &buf, &searchScratch{})
		if got := resultText(grepResult(lines, grepNotes{}, 100)); got != tc.want {
			t.Errorf("context %d:\n%s\nwant\n%s", tc.context, got, tc.want)
		}
	}
}

// grepBytes searches data as one file with blocks of the given size (0: the default).
func grepBytes(t *testing.T, data, pattern string, context, limit, block int) (string, bool) {
	t.Helper()
	m, err := newMatcher(pattern, false, false)
	if err != nil {
		t.Fatal(err)
	}
	s := grepSearch{m: m, context: context, limit: limit, block: block}
	var buf []byte
	lines, piecewise := s.search(strings.NewReader(data), int64(len(data)), "f", &buf, &searchScratch{})
	lines, more := takeMatches(lines, limit)
	return resultText(grepResult(lines, grepNotes{more: more}, limit)), piecewise
}

// A file bigger than a block is searched a block of whole lines at a time: whatever the
// blocks, the output is what searching it whole gives, context and limits included.
func TestGrepBlocksMatchWholeFile(t *testing.T) {
	var short, crlf strings.Builder // lines of at most 15 bytes with their line breaks
	for i := range 400 {
		word := []string{"alpha", "hit", "beta hit", "", "gamma", "\xff\xfehit", "delta"}[i*7%11%7]
		fmt.Fprintf(&short, "%d %s\n", i, word)
		fmt.Fprintf(&crlf, "%d %s\r\n", i, word)
	}
	tests := []struct {
		name, data, pattern string
		context, limit      int
	}{
		{"no context", short.String(), "hit", 0, 1000},
		{"context 1", short.String(), "hit", 1, 1000},
		{"context 3 merging", short.String(), `beta|gamma`, 3, 1000},
		{"wide context", short.String(), `^39\d `, 9, 1000},
		{"limit", short.String(), "hit", 2, 17},
		{"CRLF", crlf.String(), "hit$", 1, 1000},
		{"no final line break", strings.TrimSuffix(short.String(), "\n") + "last hit", "hit", 2, 1000},
		{"regex without literals", short.String(), `[0-9]{3} [a-z]{5}$`, 1, 1000},
		{"no match", short.String(), "nothing", 2, 1000},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			want, _ := grepBytes(t, tc.data, tc.pattern, tc.context, tc.limit, len(tc.data)+1)
			for _, block := range []int{16, 23, 64, 1000} {
				if got, piecewise := grepBytes(t, tc.data, tc.pattern, tc.context, tc.limit, block); got != want || piecewise {
					t.Fatalf("block %d (pieces %v):\n%s\nwant\n%s", block, piecewise, got, want)
				}
			}
		})
	}
}

// A line longer than a block is searched in overlapping pieces and shown as a whole line.
func TestGrepLongLines(t *testing.T) {
	long := strings.Repeat("abcdefgh", 40) // 320 bytes: five blocks of 64
	tests := []struct {
		name, data, pattern string
		context             int
		want                string
	}{
		{"match in the first piece", "x\n" + "hit" + long + "\ny\n", "hit", 0, "f:2: hit" + long},
		{"match in a later piece", "x\n" + long + "hit" + long + "\ny\n", "hit", 0, "f:2: " + long + "hit" + long},
		{"match across two pieces", long[:60] + "needle" + long + "\n", "needle", 0, "f:1: " + long[:60] + "needle" + long},
		{"one match for a line that matches often", long + "hit" + long + "hit" + long + "\n", "hit", 0,
			"f:1: " + long + "hit" + long + "hit" + long},
		{"context around it", "a\nb\n" + long + "hit\nc\nd\n", "hit", 1, "f-2- b\nf:3: " + long + "hit\nf-4- c"},
		{"as context after a match", "hit\n" + long + "\nz\n", "hit", 1, "f:1: hit\nf-2- " + long},
		{"as context before a match", long + "\nhit\n", "hit", 1, "f-1- " + long + "\nf:2: hit"},
		{"at the end with no line break", "a\n" + long + "hit", "hit", 1, "f-1- a\nf:2: " + long + "hit"},
		{"no match in it", "hit\n" + long + "\n", "nothing", 0, "No matches found"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, piecewise := grepBytes(t, tc.data, tc.pattern, tc.context, 100, 64)
			if want := cutShown(tc.want); got != want || !piecewise {
				t.Fatalf("got (pieces %v)\n%s\nwant\n%s", piecewise, got, want)
			}
		})
	}
}

// cutShown cuts each line of want after its prefix as grepResult does.
func cutShown(want string) string {
	lines := strings.Split(want, "\n")
	cut := false
	for i, l := range lines {
		var c bool
		lines[i], c = cutLine(l, GrepMaxLineLength+len("f:1: "))
		cut = cut || c
	}
	out := strings.Join(lines, "\n")
	if cut {
		out += fmt.Sprintf("\n\n[Lines longer than %d characters were cut; read the file for all of them.]", GrepMaxLineLength)
	}
	return out
}

// A NUL byte in the first block makes a file binary; one in a later block ends the search.
func TestGrepBinary(t *testing.T) {
	lines := strings.Repeat("line\n", 100)
	tests := []struct{ name, data, want string }{
		{"NUL first", "\x00hit\n", "No matches found"},
		{"NUL after the match in one block", "hit\n\x00", "No matches found"},
		{"NUL in a later block", "hit\n" + lines + "\x00hit\n", "f:1: hit"},
		{"no NUL", "hit\n" + lines + "hit\n", "f:1: hit\nf:102: hit"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got, _ := grepBytes(t, tc.data, "hit", 0, 100, 64); got != tc.want {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}
