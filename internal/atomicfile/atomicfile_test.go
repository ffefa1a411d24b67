package atomicfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReplace(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "f.json")
	for _, content := range []string{"first\n", "second, longer than the first\n", ""} {
		if err := Replace(path, []byte(content)); err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(path); string(got) != content {
			t.Fatalf("file holds %q, want %q", got, content)
		}
	}
	if left, _ := os.ReadDir(filepath.Join(dir, "sub")); len(left) != 1 {
		t.Fatalf("temporary files left: %v", left)
	}
	os.Mkdir(filepath.Join(dir, "taken"), 0o755)
	if err := Replace(filepath.Join(dir, "taken"), []byte("x")); err == nil || !strings.Contains(err.Error(), "taken") {
		t.Fatalf("replacing a folder: %v", err)
	}
}

func TestReadJSON(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name, content string // content "-": no file
		want          map[string]bool
		err           bool
	}{
		{"missing", "-", map[string]bool{"kept": true}, false},
		{"good", `{"a": true, "b": false}`, map[string]bool{"kept": true, "a": true, "b": false}, false},
		{"damaged", `{"a": tru`, nil, true},
		{"not an object", `[1]`, nil, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(dir, c.name+".json")
			if c.content != "-" {
				os.WriteFile(path, []byte(c.content), 0o600)
			}
			m := map[string]bool{"kept": true}
			err := ReadJSON(path, &m)
			if c.err {
				if err == nil || !strings.Contains(err.Error(), path) {
					t.Fatalf("error %v, want one naming %s", err, path)
				}
				return
			}
			if err != nil || len(m) != len(c.want) {
				t.Fatalf("got %v, %v; want %v", m, err, c.want)
			}
			for k, v := range c.want {
				if m[k] != v {
					t.Fatalf("got %v, want %v", m, c.want)
				}
			}
		})
	}
}
