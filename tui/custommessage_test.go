package tui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"
)

// A custom message shows as its type's label and its markdown text by default, as the lines its
// renderer returned otherwise; a message after it waits for the renderer, so order is kept.
func TestCustomMessages(t *testing.T) {
	term := newVT(60, 20)
	app := NewApp(term, 60, 20, Callbacks{}, Options{ManualFrames: true, Cwd: t.TempDir()})
	release := make(chan struct{})
	app.AddCustomMessage("note", "some **bold** text", nil)
	app.AddCustomMessage("todo", "ignored", func(bool) []string { <-release; return []string{"☐ one", "☑ two"} })
	app.AddCustomMessage("plain", "drawn by default", func(bool) []string { return nil })
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

// ctrl+o asks the renderers again, with expanded = true, for the custom messages still on
// screen, and messages added after it are drawn expanded from the start; ctrl+o again
// collapses them.
func TestCustomMessagesExpand(t *testing.T) {
	term := newVT(60, 20)
	app := NewApp(term, 60, 20, Callbacks{}, Options{ManualFrames: true, Cwd: t.TempDir()})
	render := func(name string) func(bool) []string {
		return func(expanded bool) []string { return []string{fmt.Sprintf("%s expanded=%v", name, expanded)} }
	}
	app.ToolStart("c1", "bash", map[string]any{"command": "sleep 9"}) // keeps what follows on screen
	app.AddCustomMessage("note", "x", render("first"))
	await := func(want ...string) {
		t.Helper()
		deadline := time.Now().Add(5 * time.Second)
		for {
			app.Flush()
			screen := strings.Join(screenRows(term), "\n")
			all := true
			for _, w := range want {
				all = all && strings.Contains(screen, w)
			}
			if all {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("want %q on screen:\n%s", want, screen)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	await("first expanded=false")
	ctrlO := key(tcell.KeyCtrlO, 0, tcell.ModCtrl)
	app.HandleEvent(ctrlO)
	app.AddCustomMessage("note", "x", render("second"))
	await("first expanded=true", "second expanded=true")
	app.HandleEvent(ctrlO)
	await("first expanded=false", "second expanded=false")
}
