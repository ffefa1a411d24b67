package tui

import (
	"strings"
	"testing"
	"time"
)

// A custom message shows as its type's label and its markdown text by default, as the lines its
// renderer returned otherwise; a message after it waits for the renderer, so order is kept.
func TestCustomMessages(t *testing.T) {
	term := newVT(60, 20)
	app := NewApp(term, 60, 20, Callbacks{}, Options{ManualFrames: true, Cwd: t.TempDir()})
	release := make(chan struct{})
	app.AddCustomMessage("note", "some **bold** text", nil)
	app.AddCustomMessage("todo", "ignored", func() []string { <-release; return []string{"☐ one", "☑ two"} })
	app.AddCustomMessage("plain", "drawn by default", func() []string { return nil })
	app.AddUserMessage("after them")
	app.Flush()
	screen := strings.Join(screenRows(term), "\n")
	if !strings.Contains(screen, "[note]") || !strings.Contains(screen, "some bold text") || strings.Contains(screen, "**") {
		t.Fatalf("default rendering:\n%s", screen)
	}
	if strings.Contains(screen, "ignored") || strings.Contains(screen, "☐ one") {
		t.Fatalf("a message whose renderer has not answered is drawn:\n%s", screen)
	}
	close(release)
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(screen, "☑ two") && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
		app.Flush()
		screen = strings.Join(screenRows(term), "\n")
	}
	one, plain, after := strings.Index(screen, "☐ one"), strings.Index(screen, "[plain]"), strings.Index(screen, "after them")
	if one < 0 || plain < one || after < plain || strings.Contains(screen, "[todo]") {
		t.Fatalf("rendered:\n%s", screen)
	}
}
