//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"pi/internal/testwait"
)

// atfileNotes is a project file of 2,181 bytes ("2.1 KB") whose first line the screen must
// not show until asked.
var atfileNotes = "NOTE-BODY first line\n" + strings.Repeat("filler line\n", 180)

// TestTmuxTypedAtFileAttaches: an @file completed with Tab in the editor reaches the model as
// the command line's @file does (the file's text in a <file> block in front of the words
// typed), the message says what was attached and keeps the text folded until Ctrl+O; an
// @file that names nothing is sent as typed, with a warning saying so; and the session
// continued with -c shows the file by its name and size, not its text.
func TestTmuxTypedAtFileAttaches(t *testing.T) {
	bin := buildPi(t)
	p := newFDProject(t, fdScript(0, 0, "GOT-IT-1", "GOT-IT-2"))
	if err := os.WriteFile(filepath.Join(p.dir, "notes.txt"), []byte(atfileNotes), 0o644); err != nil {
		t.Fatal(err)
	}
	m := startFDTmux(t, bin, p)
	step := func(what, want string) {
		t.Helper()
		if !m.sees(want, 15*time.Second) {
			t.Fatalf("%s: never saw %q; pane:\n%s", what, want, m.screen())
		}
	}
	m.typeText("explain @notes")
	step("the @ popup", "notes.txt")
	m.keys("Tab")
	m.typeText("please")
	m.keys("Enter")
	step("the reply", "GOT-IT-1")
	step("what was attached, under the prompt", "attached notes.txt (2.1 KB)")
	if strings.Contains(m.screen(), "NOTE-BODY") {
		t.Fatalf("the file's text is shown inline:\n%s", m.screen())
	}
	m.typeText("and @missing.go")
	m.keys("Enter")
	step("the warning for a file that is not there", "missing.go: no such file") // the rest wraps with the temp folder's length
	step("the second reply", "GOT-IT-2")
	got, err := fdTranscript(p)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"user: <file name=\"<dir>/notes.txt\">\n" + strings.TrimSuffix(atfileNotes, "\n") + "\n</file>\nexplain @notes.txt please",
		"assistant: GOT-IT-1",
		"user: and @missing.go",
		"assistant: GOT-IT-2",
	}
	if strings.Join(got, "\x00") != strings.Join(want, "\x00") {
		t.Fatalf("what the model saw:%s", fdDiff(got, want))
	}
	m.keys("C-o")
	step("Ctrl+O prints the message again with the file's text", "NOTE-BODY first line")
	m.quit()

	again := startFDTmux(t, bin, p, "-c")
	if !again.sees("attached notes.txt (2.1 KB)", 15*time.Second) {
		t.Fatalf("the continued session does not name the attached file:\n%s", again.screen())
	}
	if strings.Contains(again.screen(), "NOTE-BODY") {
		t.Fatalf("the continued session shows the file's text inline:\n%s", again.screen())
	}
	again.quit()
}

// TestTmuxAttachTypedAtFile: under pi attach a typed @file attaches as in the local UI (the
// same controller reads it, in the served session's folder), the served session's model gets
// the <file> block, and a second screen attaching to the session shows the file by its name
// and size, not its text.
func TestTmuxAttachTypedAtFile(t *testing.T) {
	k := startAttach(t, "atfile", []string{"Read the notes."})
	if err := os.WriteFile(filepath.Join(k.dir, "notes.txt"), []byte(atfileNotes), 0o600); err != nil {
		t.Fatal(err)
	}
	k.enter("explain @notes.txt")
	k.must("the reply", "Read the notes.")
	k.must("what was attached", "attached notes.txt (2.1 KB)")
	sessions := filepath.Join(k.dir, ".pihome", "sessions")
	testwait.Within(testwait.Deadline, func() bool {
		files, _ := filepath.Glob(filepath.Join(sessions, "*", "*.jsonl"))
		return len(files) == 1
	})
	want := "<file name=\"" + filepath.Join(k.dir, "notes.txt") + "\">\n" + strings.TrimSuffix(atfileNotes, "\n") + "\n</file>\nexplain @notes.txt"
	if got := firstUserText(t, sessions); got != want {
		t.Fatalf("the served session's model got %q, want %q", got, want)
	}
	other := k.window("other")
	if !other.sees("attached notes.txt (2.1 KB)", 15*time.Second) {
		t.Fatalf("the second screen does not name the attached file; pane:\n%s", other.screen())
	}
	for _, m := range []*fdTmux{k.fdTmux, other} {
		if strings.Contains(m.screen(), "NOTE-BODY") {
			t.Fatalf("the file's text is shown inline:\n%s", m.screen())
		}
	}
	k.keys("C-d")
	k.must("detach", "detached from")
}
