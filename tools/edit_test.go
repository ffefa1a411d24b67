package tools

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func TestApplyEdits(t *testing.T) {
	tests := []struct {
		name    string
		content string
		edits   []Edit
		want    string
		err     string // a substring of the error; "" for success
	}{
		{"exact", "a := 1\nb := 2\n", []Edit{{"b := 2", "b := 3"}}, "a := 1\nb := 3\n", ""},
		{"not found", "a\n", []Edit{{"zzz", "y"}}, "", "not found"},
		{"several occurrences", "x\nx\n", []Edit{{"x", "y"}}, "", "occurs 2 times"},
		{"empty oldText", "x\n", []Edit{{"", "y"}}, "", "empty oldText"},
		{"no change", "x\n", []Edit{{"x", "x"}}, "", "unchanged"},
		{"two edits", "a\nb\nc\n", []Edit{{"a", "A"}, {"c", "C"}}, "A\nb\nC\n", ""},
		{"edits match the original, not each other's output", "a b\n", []Edit{{"a", "b"}, {"b", "c"}}, "b c\n", ""},
		{"overlap", "abcdef\n", []Edit{{"abcd", "x"}, {"cdef", "y"}}, "", "edits[0] and edits[1] overlap"},
		{"second edit not found names it", "a\n", []Edit{{"a", "b"}, {"q", "r"}}, "", "edits[1]"},
		{"fuzzy trailing whitespace", "if x {  \n\treturn\n}\n", []Edit{{"if x {\n\treturn", "if y {\n\treturn"}}, "if y {\n\treturn\n}\n", ""},
		{"fuzzy smart quotes", "say(“hi”) and ‘x’\n", []Edit{{`say("hi")`, `say("bye")`}}, "say(\"bye\") and ‘x’\n", ""},
		{"fuzzy dashes", "a – b — c − d\n", []Edit{{"a - b - c - d", "z"}}, "z\n", ""},
		{"fuzzy special spaces", "x\u00a0=\u20021\n", []Edit{{"x = 1", "x = 2"}}, "x = 2\n", ""},
		{"fuzzy NFKC", "ﬁle ＡＢＣ\n", []Edit{{"file ABC", "file abc"}}, "file abc\n", ""},
		{"fuzzy keeps the rest of the file", "“keep”\nfoo  \nbar\n", []Edit{{"foo\nbar", "baz"}}, "“keep”\nbaz\n", ""},
		{"exact preferred over fuzzy", "“x”\n\"x\"\n", []Edit{{`"x"`, `"y"`}}, "“x”\n\"y\"\n", ""},
		{"fuzzy several occurrences", "‘a’\n'a'  \n", []Edit{{"'a'\n", "b"}}, "", "occurs 2 times"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, _, err := applyEdits(tc.content, tc.edits, "f.go")
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("applyEdits = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

func FuzzEditMatch(f *testing.F) {
	f.Add("hello “world”  \nsecond – line\n", "world\"\nsecond - line", "X")
	f.Add("ﬁ ﬂ\u00a0x", "fi fl x", "")
	f.Add("aaa", "a", "b")
	f.Fuzz(func(t *testing.T, content, old, new string) {
		got, spans, err := applyEdits(content, []Edit{{old, new}}, "f")
		if err != nil {
			return
		}
		if len(spans) != 1 {
			t.Fatalf("one edit gave %d spans", len(spans))
		}
		s := spans[0]
		if s.start < 0 || s.end > len(content) || s.start >= s.end {
			t.Fatalf("span %+v out of range for %q", s, content)
		}
		// Only the matched bytes change: the rest of the file is kept byte for byte.
		if want := content[:s.start] + new + content[s.end:]; got != want {
			t.Fatalf("applyEdits(%q, %q, %q) = %q, want %q", content, old, new, got, want)
		}
		if strings.Contains(content, old) && content[s.start:s.end] != old {
			t.Fatalf("exact text %q present but matched %q", old, content[s.start:s.end])
		}
	})
}

func TestEditTool(t *testing.T) {
	tests := []struct {
		name    string
		file    string
		args    map[string]any
		want    string // the file afterwards
		errText string
	}{
		{"edits array", "one\ntwo\n", map[string]any{"edits": []any{map[string]any{"oldText": "two", "newText": "2"}}}, "one\n2\n", ""},
		{"legacy single edit", "one\ntwo\n", map[string]any{"oldText": "one", "newText": "1"}, "1\ntwo\n", ""},
		{"edits as a JSON string", "one\ntwo\n", map[string]any{"edits": `[{"oldText":"two","newText":"2"}]`}, "one\n2\n", ""},
		{"CRLF kept", "a\r\nb\r\nc\r\n", map[string]any{"oldText": "a\nb", "newText": "x\ny"}, "x\r\ny\r\nc\r\n", ""},
		{"BOM kept", "\uFEFFa\nb\n", map[string]any{"oldText": "a", "newText": "z"}, "\uFEFFz\nb\n", ""},
		{"not found", "a\n", map[string]any{"oldText": "q", "newText": "z"}, "a\n", "not found"},
		{"no edits", "a\n", map[string]any{}, "a\n", "no edits"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := testEnv(t)
			p := filepath.Join(env.Cwd, "f.txt")
			writeFiles(t, env.Cwd, map[string]string{"f.txt": tc.file})
			tc.args["path"] = "f.txt"
			res := callTool(t, env, "edit", tc.args)
			if got := readFileT(t, p); got != tc.want {
				t.Fatalf("file = %q, want %q (result %q)", got, tc.want, resultText(res))
			}
			if tc.errText != "" {
				if !res.IsError || !strings.Contains(resultText(res), tc.errText) {
					t.Fatalf("result %q, want an error containing %q", resultText(res), tc.errText)
				}
				return
			}
			if res.IsError {
				t.Fatalf("unexpected error %q", resultText(res))
			}
			if d, ok := res.Details.(EditDetails); !ok || d.Diff == "" || d.FirstChangedLine < 1 {
				t.Fatalf("details %#v, want a diff and first changed line", res.Details)
			}
		})
	}
}

func TestEditDiff(t *testing.T) {
	old := "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n"
	new := strings.Replace(old, "6\n", "six\n", 1)
	diff, first := editDiff(old, new)
	want := "    ...\n  2 2\n  3 3\n  4 4\n  5 5\n- 6 6\n+ 6 six\n  7 7\n  8 8\n  9 9\n 10 10\n    ..."
	if diff != want || first != 6 {
		t.Fatalf("editDiff = %q (first %d)\nwant %q (first 6)", diff, first, want)
	}
}

func TestEditStaleGuard(t *testing.T) {
	tests := []struct {
		name      string
		read      bool // the agent read the file first
		external  bool // something else changed it afterwards
		wantError bool
	}{
		{"never read: no guard", false, true, false},
		{"read, unchanged", true, false, false},
		{"read, then changed on disk", true, true, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := testEnv(t)
			writeFiles(t, env.Cwd, map[string]string{"f.txt": "alpha\nbeta\n"})
			if tc.read {
				callTool(t, env, "read", map[string]any{"path": "f.txt"})
			}
			if tc.external {
				writeFiles(t, env.Cwd, map[string]string{"f.txt": "alpha\nbeta\ngamma\n"})
			}
			res := callTool(t, env, "edit", map[string]any{"path": "f.txt", "oldText": "beta", "newText": "BETA"})
			if res.IsError != tc.wantError {
				t.Fatalf("IsError = %v, want %v: %s", res.IsError, tc.wantError, resultText(res))
			}
			if tc.wantError && !strings.Contains(resultText(res), "read it again") {
				t.Fatalf("error %q does not say to read again", resultText(res))
			}
		})
	}
}

func TestEditAfterOwnWriteIsNotStale(t *testing.T) {
	env := testEnv(t)
	callTool(t, env, "write", map[string]any{"path": "f.txt", "content": "a\n"})
	if r := callTool(t, env, "edit", map[string]any{"path": "f.txt", "oldText": "a", "newText": "b"}); r.IsError {
		t.Fatal(resultText(r))
	}
	if r := callTool(t, env, "edit", map[string]any{"path": "f.txt", "oldText": "b", "newText": "c"}); r.IsError {
		t.Fatal(resultText(r))
	}
}

// Parallel edits of one file must all land: without the per-path lock, each would read the
// original and the last write would win.
func TestParallelEditsSerialised(t *testing.T) {
	env := testEnv(t)
	const n = 20
	var lines []string
	for i := range n {
		lines = append(lines, "line"+string(rune('A'+i)))
	}
	writeFiles(t, env.Cwd, map[string]string{"f.txt": strings.Join(lines, "\n") + "\n"})
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			l := lines[i]
			if r := callTool(t, env, "edit", map[string]any{"path": "f.txt", "oldText": l + "\n", "newText": strings.ToLower(l) + "\n"}); r.IsError {
				t.Error(resultText(r))
			}
		})
	}
	wg.Wait()
	got := readFileT(t, filepath.Join(env.Cwd, "f.txt"))
	if want := strings.ToLower(strings.Join(lines, "\n")) + "\n"; got != want {
		t.Fatalf("file = %q, want %q", got, want)
	}
}

func TestEditKeepsMode(t *testing.T) {
	env := testEnv(t)
	p := filepath.Join(env.Cwd, "run.sh")
	if err := os.WriteFile(p, []byte("echo a\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	callTool(t, env, "edit", map[string]any{"path": "run.sh", "oldText": "a", "newText": "b"})
	fi, err := os.Stat(p)
	if err != nil || fi.Mode().Perm() != 0o755 {
		t.Fatalf("mode %v, %v; want 0755", fi.Mode(), err)
	}
}

func TestEditPreviewWritesNothing(t *testing.T) {
	env := testEnv(t)
	writeFiles(t, env.Cwd, map[string]string{"f.txt": "a\nb\n"})
	d, err := EditPreview(context.Background(), env, map[string]any{"path": "f.txt", "oldText": "b", "newText": "B"})
	if err != nil || d.Diff != " 1 a\n-2 b\n+2 B" || d.FirstChangedLine != 2 {
		t.Fatalf("preview %+v, %v", d, err)
	}
	if got := readFileT(t, filepath.Join(env.Cwd, "f.txt")); got != "a\nb\n" {
		t.Fatalf("file changed to %q", got)
	}
	if _, err := EditPreview(context.Background(), env, map[string]any{"path": "f.txt", "oldText": "zz", "newText": "B"}); err == nil {
		t.Fatal("preview of a failing edit gave no error")
	}
}

// Parallel edits that each extend the same line all land: each sees the previous result.
func TestParallelEditsOfOneLine(t *testing.T) {
	env := testEnv(t)
	writeFiles(t, env.Cwd, map[string]string{"f.txt": "count: \n"})
	var wg sync.WaitGroup
	for range 10 {
		wg.Go(func() {
			for {
				cur, err := os.ReadFile(filepath.Join(env.Cwd, "f.txt"))
				if err != nil {
					t.Error(err)
					return
				}
				// append one x by an edit of the whole line; retry when another call got there first
				line := strings.TrimSuffix(string(cur), "\n")
				r := callTool(t, env, "edit", map[string]any{"path": "f.txt", "oldText": line + "\n", "newText": line + "x\n"})
				if !r.IsError {
					return
				}
			}
		})
	}
	wg.Wait()
	if got := readFileT(t, filepath.Join(env.Cwd, "f.txt")); got != "count: "+strings.Repeat("x", 10)+"\n" {
		t.Fatalf("file = %q", got)
	}
}

func TestLockPathHonoursContext(t *testing.T) {
	env := testEnv(t)
	unlock, err := env.lockPath(context.Background(), "/x")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := env.lockPath(ctx, "/x"); err == nil {
		t.Fatal("a cancelled wait for a held lock succeeded")
	}
	unlock()
	unlock2, err := env.lockPath(context.Background(), "/x")
	if err != nil {
		t.Fatal(err)
	}
	unlock2()
	if len(env.locks) != 0 {
		t.Fatalf("lock registry keeps %d entries", len(env.locks))
	}
}

// Every built-in's parameters compile, and the argument shapes the tools accept pass validation:
// the older single-edit form and edits sent as a JSON string included.
func TestBuiltinSchemasAcceptTheirArguments(t *testing.T) {
	env := testEnv(t)
	for name, tool := range Builtins(env) {
		if _, err := CompileSchema(tool.Info().Parameters); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	s, err := CompileSchema(Builtins(env)["edit"].Info().Parameters)
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range []map[string]any{
		{"path": "f", "oldText": "a", "newText": "b"},
		{"path": "f", "edits": []any{map[string]any{"oldText": "a", "newText": "b"}}},
		{"path": "f", "edits": `[{"oldText":"a","newText":"b"}]`},
	} {
		if _, err := s.Prepare(args); err != nil {
			t.Errorf("edit arguments %v rejected: %v", args, err)
		}
	}
}

// The fuzzy match normalises a window at a time: whatever the windows, it must find what one
// window over the whole text finds, at the same bytes.
func TestFuzzyFindWindows(t *testing.T) {
	long := strings.Repeat("word ", 40)
	cjk := strings.Repeat("漢字かな", 30)
	tests := []struct {
		name, content, sub string
		n                  int
	}{
		{"long line, match across windows", long + "“quoted” – text " + long, `"quoted" - text`, 1},
		{"trailing white space at a window end", strings.Repeat("line  \n", 30) + "end  \nx", "end\nx", 1},
		{"match spans lines", strings.Repeat("a b c\n", 20) + "if x {  \n\treturn\n}\n", "if x {\n\treturn\n}", 1},
		{"ligatures and full width", long + "ﬁle ＡＢＣ" + long, "file ABC", 1},
		{"combining marks compose", long + "cafe\u0301 " + long, "café", 1},
		{"halfwidth voiced marks", cjk + "ｶﾞｷﾞｸﾞ" + cjk, "ガギグ", 1},
		{"hangul jamo", cjk + "\u1100\u1161\u11a8" + cjk, "각", 1},
		{"special spaces", long + "x\u00a0=\u20021" + long, "x = 1", 1},
		{"twice, far apart", "‘a’ " + long + "'a'  \n", "'a'", 2},
		{"not overlapping", strings.Repeat("–", 50), "--", 25},
		{"absent", long + cjk, "nowhere", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ws, we, wn := fuzzyFind(tc.content, tc.sub, len(tc.content)+1)
			if wn != tc.n {
				t.Fatalf("one window: %d matches, want %d", wn, tc.n)
			}
			for _, window := range []int{8, 13, 32, 100} {
				s, e, n := fuzzyFind(tc.content, tc.sub, window)
				if s != ws || e != we || n != wn {
					t.Errorf("window %d: [%d,%d) ×%d, one window: [%d,%d) ×%d", window, s, e, n, ws, we, wn)
				}
			}
		})
	}
}

// Files the edit tool refuses before reading a byte, with a message that says what to do.
func TestEditRefuses(t *testing.T) {
	tests := []struct {
		name    string
		prepare func(t *testing.T, p string)
		errText string
	}{
		{"over the size limit", func(t *testing.T, p string) {
			if err := os.Truncate(p, maxReadFileSize+1); err != nil { // sparse: costs no disk
				t.Fatal(err)
			}
		}, "f.txt is 256.0MB, too large to edit whole; change it with bash"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := testEnv(t)
			p := filepath.Join(env.Cwd, "f.txt")
			writeFiles(t, env.Cwd, map[string]string{"f.txt": "a\n"})
			tc.prepare(t, p)
			res := callTool(t, env, "edit", map[string]any{"path": "f.txt", "oldText": "a", "newText": "b"})
			if !res.IsError || !strings.Contains(resultText(res), tc.errText) {
				t.Fatalf("result %q, want an error containing %q", resultText(res), tc.errText)
			}
		})
	}
}
