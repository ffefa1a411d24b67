package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"pi/provider"
)

func numberedLines(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

func TestRead(t *testing.T) {
	long := strings.Repeat("x", 1000)
	var wide strings.Builder
	for range 100 {
		wide.WriteString(long + "\n")
	}
	tests := []struct {
		name    string
		content string
		args    map[string]any
		has     []string // substrings of the text
		hasNot  []string
		isError bool
	}{
		{"whole small file", "a\nb\n", nil, []string{"a\nb"}, []string{"["}, false},
		{"offset and limit", numberedLines(10), map[string]any{"offset": 3.0, "limit": 2.0},
			[]string{"line 3\nline 4\n\n[6 more lines. Continue with offset=5.]"}, []string{"line 2\n", "line 5"}, false},
		{"offset to the end", numberedLines(10), map[string]any{"offset": 9}, []string{"line 9\nline 10"}, []string{"more lines"}, false},
		{"offset past the end", numberedLines(3), map[string]any{"offset": 10.0}, []string{"offset 10", "3 lines"}, nil, true},
		{"truncated by lines", numberedLines(2500), nil,
			[]string{"line 2000\n\n[Lines 1-2000 of 2500 shown. Continue with offset=2001.]"}, []string{"line 2001"}, false},
		{"truncated by lines from an offset", numberedLines(2500), map[string]any{"offset": 101.0},
			[]string{"line 101\n", "[Lines 101-2100 of 2500 shown. Continue with offset=2101.]"}, nil, false},
		{"truncated by bytes", wide.String(), nil, []string{"[Lines 1-51 of 100 shown (50.0KB limit). Continue with offset=52.]"}, nil, false},
		{"first line too long", strings.Repeat("y", 60*1024) + "\nshort\n", nil,
			[]string{"Line 1 alone is 60.0KB", "sed -n '1p' f.txt | head -c 51200"}, []string{"yyy"}, false},
		{"invalid UTF-8 shown safely", "ok \xff\xfe end\n", nil, []string{"ok \uFFFD end"}, nil, false},
		{"invalid UTF-8 over the limits", strings.Repeat("caf\xe9 au lait\n", 20000), nil,
			[]string{"caf\uFFFD au lait\n", "[Lines 1-2000 of 20000 shown. Continue with offset=2001.]"}, nil, false},
		{"BOM not shown", "\uFEFFfirst\n", nil, []string{"first"}, []string{"\uFEFF"}, false},
		{"CRLF line count", "a\r\nb\r\nc\r\n", map[string]any{"offset": 3.0}, []string{"c\r"}, []string{"b"}, false},
		{"binary", "ELF\x00\x01\x02", nil, []string{"binary file"}, []string{"ELF"}, false},
		{"empty", "", nil, []string{"(empty file)"}, nil, false},
		{"@ prefix", "at\n", map[string]any{"path": "@f.txt"}, []string{"at"}, nil, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := testEnv(t)
			writeFiles(t, env.Cwd, map[string]string{"f.txt": tc.content})
			args := map[string]any{"path": "f.txt"}
			for k, v := range tc.args {
				args[k] = v
			}
			res := callTool(t, env, "read", args)
			text := resultText(res)
			if res.IsError != tc.isError {
				t.Fatalf("IsError = %v, want %v: %q", res.IsError, tc.isError, text)
			}
			for _, s := range tc.has {
				if !strings.Contains(text, s) {
					t.Errorf("text %q lacks %q", clip(text), s)
				}
			}
			for _, s := range tc.hasNot {
				if strings.Contains(text, s) {
					t.Errorf("text %q has %q", clip(text), s)
				}
			}
		})
	}
}

func clip(s string) string {
	if len(s) > 300 {
		return s[:150] + " … " + s[len(s)-150:]
	}
	return s
}

func TestReadMissingAndDirectory(t *testing.T) {
	env := testEnv(t)
	if r := callTool(t, env, "read", map[string]any{"path": "nope.txt"}); !r.IsError || !strings.Contains(resultText(r), "nope.txt") {
		t.Fatalf("missing file: %+v", r)
	}
	if r := callTool(t, env, "read", map[string]any{"path": "."}); !r.IsError || !strings.Contains(resultText(r), "directory") {
		t.Fatalf("directory: %+v", r)
	}
}

func TestReadImages(t *testing.T) {
	images := map[string]struct {
		data []byte
		mime string
	}{
		"png":  {encodedImage(t, "png", 4, 3), "image/png"},
		"jpeg": {encodedImage(t, "jpeg", 4, 3), "image/jpeg"},
		"gif":  {encodedImage(t, "gif", 4, 3), "image/gif"},
		"webp": {tinyWebP, "image/webp"},
	}
	for name, img := range images {
		for _, allowed := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s allowed=%v", name, allowed), func(t *testing.T) {
				env := testEnv(t)
				env.ImagesAllowed = func() bool { return allowed }
				// the name says text: detection goes by content
				if err := os.WriteFile(filepath.Join(env.Cwd, "pic.txt"), img.data, 0o644); err != nil {
					t.Fatal(err)
				}
				res := callTool(t, env, "read", map[string]any{"path": "pic.txt"})
				var gotImage *provider.Block
				for i := range res.Content {
					if res.Content[i].Type == provider.BlockImage {
						gotImage = &res.Content[i]
					}
				}
				if allowed != (gotImage != nil) || res.IsError {
					t.Fatalf("allowed=%v but content %+v", allowed, res.Content)
				}
				if gotImage != nil && gotImage.MimeType != img.mime {
					t.Fatalf("mime %q, want %q", gotImage.MimeType, img.mime)
				}
				if !allowed && !strings.Contains(resultText(res), img.mime) {
					t.Fatalf("note %q does not name the type", resultText(res))
				}
			})
		}
	}
}

func TestResolve(t *testing.T) {
	env := &Env{Cwd: "/work/proj"}
	home, _ := os.UserHomeDir()
	tests := map[string]string{
		"a.go":          "/work/proj/a.go",
		"./sub/../b.go": "/work/proj/b.go",
		"/etc/hosts":    "/etc/hosts",
		"@src/x.go":     "/work/proj/src/x.go",
		"~/notes.md":    filepath.Join(home, "notes.md"),
		"~":             home,
		"":              "/work/proj",
	}
	for in, want := range tests {
		if got, err := env.Resolve(in); err != nil || got != want {
			t.Errorf("Resolve(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}

func TestResolveSpellingFallbacks(t *testing.T) {
	env := testEnv(t)
	writeFiles(t, env.Cwd, map[string]string{
		"Screenshot 10.00.00\u202fAM.png": "", "it\u2019s.txt": "", "two words.txt": "", "nbsp\u00a0name.txt": "",
		"Screenshot 9.41.07\u202fpm.png": "", "Cafe\u0301.txt": "", "na\u00efve.txt": "",
	})
	tests := map[string]string{
		"Screenshot 10.00.00 AM.png": "Screenshot 10.00.00\u202fAM.png",
		"it's.txt":                   "it\u2019s.txt",
		"Screenshot 9.41.07 pm.png":  "Screenshot 9.41.07\u202fpm.png", // lowercase, as some locales write it
		"Screenshot 9.41.07 PM.png":  "Screenshot 9.41.07 PM.png",      // no such file in that case: kept
		"Caf\u00e9.txt":              "Cafe\u0301.txt",                 // typed composed, stored decomposed (macOS)
		"nai\u0308ve.txt":            "na\u00efve.txt",                 // typed decomposed, stored composed
		"two\u00a0words.txt":         "two words.txt",
		"nbsp\u00a0name.txt":         "nbsp\u00a0name.txt", // exists as written: kept
		"new\u00a0file.txt":          "new\u00a0file.txt",  // exists in no spelling: kept
	}
	for in, want := range tests {
		if got, err := env.Resolve(in); err != nil || got != filepath.Join(env.Cwd, want) {
			t.Errorf("Resolve(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}

func TestWrite(t *testing.T) {
	env := testEnv(t)
	res := callTool(t, env, "write", map[string]any{"path": "deep/er/new.txt", "content": "héllo\n"})
	if res.IsError || !strings.Contains(resultText(res), "7 bytes") {
		t.Fatalf("write: %q", resultText(res))
	}
	p := filepath.Join(env.Cwd, "deep/er/new.txt")
	if got := readFileT(t, p); got != "héllo\n" {
		t.Fatalf("content %q", got)
	}
	if err := os.Chmod(p, 0o600); err != nil {
		t.Fatal(err)
	}
	callTool(t, env, "write", map[string]any{"path": p, "content": "over"})
	fi, _ := os.Stat(p)
	if got := readFileT(t, p); got != "over" || fi.Mode().Perm() != 0o600 {
		t.Fatalf("overwrite: %q mode %v", got, fi.Mode())
	}
	entries, _ := os.ReadDir(filepath.Dir(p))
	if len(entries) != 1 {
		t.Fatalf("temporary files left behind: %v", entries)
	}
}

func TestWriteThroughSymlinkKeepsLink(t *testing.T) {
	env := testEnv(t)
	writeFiles(t, env.Cwd, map[string]string{"real.txt": "old"})
	if err := os.Symlink("real.txt", filepath.Join(env.Cwd, "link.txt")); err != nil {
		t.Fatal(err)
	}
	callTool(t, env, "write", map[string]any{"path": "link.txt", "content": "new"})
	if fi, err := os.Lstat(filepath.Join(env.Cwd, "link.txt")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("link replaced: %v %v", fi, err)
	}
	if got := readFileT(t, filepath.Join(env.Cwd, "real.txt")); got != "new" {
		t.Fatalf("target %q", got)
	}
}
