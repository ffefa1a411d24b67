package images

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestPastedPath(t *testing.T) {
	cases := []struct {
		in, want string
		ok       bool
	}{
		{"/home/me/shot.png", "/home/me/shot.png", true},
		{"  /home/me/Shot.PNG\n", "/home/me/Shot.PNG", true},
		{"'/home/me/my shot.png'", "/home/me/my shot.png", true},
		{`"/tmp/a b.jpg"`, "/tmp/a b.jpg", true},
		{`/tmp/my\ shot.webp`, "/tmp/my shot.webp", true},
		{"file:///tmp/my%20shot.gif", "/tmp/my shot.gif", true},
		{"~/Desktop/x.jpeg", "~/Desktop/x.jpeg", true},
		{"./x.png", "./x.png", true},
		{"x.png", "", false},                  // a bare word is text
		{"/tmp/notes.txt", "", false},         // not a picture
		{"/tmp/a.png\n/tmp/b.png", "", false}, // two lines are text
		{"see /tmp/a.png", "", false},
		{"", "", false},
	}
	for _, c := range cases {
		got, ok := PastedPath(c.in)
		if got != c.want || ok != c.ok {
			t.Errorf("PastedPath(%q) = %q, %v; want %q, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}

func FuzzPastedPath(f *testing.F) {
	f.Add("'/tmp/a b.png'")
	f.Add("file:///x%2.png")
	f.Fuzz(func(t *testing.T, s string) {
		p, ok := PastedPath(s)
		if ok && (!HasImageName(p) || strings.ContainsAny(p, "\n\r")) {
			t.Fatalf("PastedPath(%q) = %q", s, p)
		}
	})
}

func TestLoadFitsAFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "big.png")
	os.WriteFile(path, testPNG(t, 3000, 300), 0o644)
	f, err := Load(path, DefaultLimits)
	if err != nil || f.Size() != "2000×200" || !f.Resized() {
		t.Fatalf("Load: %s, %q, %v", f.Size(), f.Note, err)
	}
	if _, err := Load(filepath.Join(dir, "missing.png"), DefaultLimits); err == nil || !strings.Contains(err.Error(), "missing.png") {
		t.Errorf("a missing file: %v", err)
	}
	os.WriteFile(filepath.Join(dir, "fake.png"), []byte("not a picture"), 0o644)
	if _, err := Load(filepath.Join(dir, "fake.png"), DefaultLimits); err == nil {
		t.Error("a file that is no picture was loaded")
	}
}
