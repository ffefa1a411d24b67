package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"pi/provider"
	"pi/session"
)

// TestBinaryAtWordsInAPromptAttach: `pi -p "explain @notes.txt"` attaches notes.txt as the
// editor does (its text in a <file> block in front of the words typed); an @word naming
// nothing is sent as typed with a line on stderr; the @words of piped input are the input's,
// not the user's, and attach nothing.
func TestBinaryAtWordsInAPromptAttach(t *testing.T) {
	bin := buildPi(t)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("NOTE-BODY\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "piped.txt"), []byte("PIPED-FILE-BODY\n"), 0o644)
	hello, _ := filepath.Abs(filepath.Join("testdata", "faux", "hello.json"))
	cmd := exec.Command(bin, "-p", "--faux-script", hello, "explain @notes.txt, not @gone.go")
	cmd.Dir, cmd.Stdin = dir, strings.NewReader("a diff naming @piped.txt\n")
	cmd.Env = append(os.Environ(), "PI_HOME="+filepath.Join(dir, ".pihome"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("pi -p: %v: %s", err, stderr.String())
	}
	if want := "pi: @gone.go: no such file: " + filepath.Join(dir, "gone.go") + "; sent as typed"; !strings.Contains(stderr.String(), want) {
		t.Errorf("stderr %q lacks %q", stderr.String(), want)
	}
	user := firstUserText(t, filepath.Join(dir, ".pihome", "sessions"))
	want := "a diff naming @piped.txt\n\n<file name=\"" + filepath.Join(dir, "notes.txt") + "\">\nNOTE-BODY\n</file>\nexplain @notes.txt, not @gone.go"
	if user != want {
		t.Errorf("the model was sent\n%q\nwant\n%q", user, want)
	}
}

// firstUserText is the text of the first user message of the one session under dir, without
// the context block.
func firstUserText(t *testing.T, dir string) string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*", "*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("session files: %v", files)
	}
	s, err := session.OpenReadOnly(t.Context(), files[0])
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	entries, err := s.Entries()
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Message != nil && e.Message.Role == provider.RoleUser {
			return session.WithoutContextBlock(e.Message.TextContent())
		}
	}
	t.Fatal("no user message")
	return ""
}
