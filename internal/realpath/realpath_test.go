package realpath

import (
	"os"
	"path/filepath"
	"testing"
)

func TestDir(t *testing.T) {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	real := filepath.Join(root, "real")
	link := filepath.Join(root, "link")
	if err := os.Mkdir(real, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	t.Chdir(root)
	for in, want := range map[string]string{
		real: real, link: real, "link": real, "./real/": real,
		filepath.Join(root, "missing"): filepath.Join(root, "missing"), // not there: absolute, as is
	} {
		if got := Dir(in); got != want {
			t.Errorf("Dir(%q) = %q, want %q", in, got, want)
		}
	}
}
