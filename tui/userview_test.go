package tui

import (
	"regexp"
	"strings"
	"testing"

	"pi/internal/atfile"
	"pi/tui/theme"
)

var sgr = regexp.MustCompile("\x1b\\[[0-9;]*m")

// TestUserViewFoldsAttachedFiles: a message with an @file shows what was typed and a line
// naming the file and its size; its text shows only while tool output is expanded.
func TestUserViewFoldsAttachedFiles(t *testing.T) {
	text := atfile.Text("/p/main.go", "package main\n// BODY-LINE") + "explain @main.go"
	for _, expanded := range []bool{false, true} {
		u := newUserView(theme.Dark(), text, &expanded)
		got := sgr.ReplaceAllString(strings.Join(u.Render(60), "\n"), "")
		want := "› explain @main.go\n  attached main.go (25 B) · ctrl+o shows it"
		if expanded {
			want = "› explain @main.go\n  attached main.go (25 B)\n  │ package main\n  │ // BODY-LINE"
		}
		if got != want {
			t.Errorf("expanded %v:\n%s\nwant\n%s", expanded, got, want)
		}
		if u.hasFolded() == expanded {
			t.Errorf("expanded %v: hasFolded %v", expanded, u.hasFolded())
		}
	}
}
