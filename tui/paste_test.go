package tui

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"pi/provider"
)

func pngOf(t *testing.T, w, h int) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewGray(image.Rect(0, 0, w, h))); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// waitEditor waits for the editor to show want (attaching runs off the input goroutine).
func waitEditor(t *testing.T, app *App, want string) {
	t.Helper()
	for end := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		app.mu.Lock()
		raw := app.editor.RawText()
		app.mu.Unlock()
		if raw == want {
			return
		}
		if time.Now().After(end) {
			t.Fatalf("editor shows %q, want %q", raw, want)
		}
	}
}

// Ctrl+V, a pasted path and an @path each attach a picture; the markers in the sent text say
// which go with it, and a marker deleted before sending takes its picture out.
func TestPicturesAttachToThePrompt(t *testing.T) {
	var sent []string
	var got [][]provider.Block
	var app *App
	cb := Callbacks{OnSubmit: func(s string) { sent = append(sent, s); got = append(got, app.TakeImages()) }}
	app, _, _ = newTestApp(t, 60, 20, cb)
	clip := pngOf(t, 1280, 720)
	app.opts.Clipboard = func(context.Context) ([]byte, error) { return clip, nil }
	dir := app.opts.Cwd
	os.WriteFile(filepath.Join(dir, "drop.png"), pngOf(t, 30, 20), 0o644)
	os.WriteFile(filepath.Join(dir, "shot.png"), pngOf(t, 4000, 1000), 0o644)
	enter := key(tcell.KeyEnter, 0, 0)

	typeText(app, "see ")
	app.HandleEvent(key(tcell.KeyCtrlV, 0, tcell.ModCtrl))
	waitEditor(t, app, "see [image 1: 1280×720]")
	app.HandleEvent(tcell.NewEventPaste(true))
	typeText(app, "'"+filepath.Join(dir, "drop.png")+"'")
	app.HandleEvent(tcell.NewEventPaste(false))
	waitEditor(t, app, "see [image 1: 1280×720][image 2: 30×20]")
	typeText(app, " and @shot.png")
	app.HandleEvent(enter)

	// A deleted marker leaves its picture behind.
	app.HandleEvent(key(tcell.KeyCtrlV, 0, tcell.ModCtrl))
	waitEditor(t, app, "[image 1: 1280×720]")
	app.editor.SetText("no picture after all")
	app.HandleEvent(enter)

	if len(got) != 2 || len(got[0]) != 3 || len(got[1]) != 0 {
		t.Fatalf("sent %q with %d pictures", sent, len(got))
	}
	if !strings.Contains(sent[0], "[image 2: 30×20] and @shot.png") {
		t.Errorf("sent text %q", sent[0])
	}
	for _, b := range got[0] {
		if b.Type != provider.BlockImage || b.Data == "" {
			t.Errorf("attached %+v", b)
		}
	}
}

func TestPasteWithoutAClipboardImageSaysSo(t *testing.T) {
	app, term, _ := newTestApp(t, 60, 20, Callbacks{})
	app.opts.Clipboard = func(context.Context) ([]byte, error) { return nil, errors.New("no image in the clipboard") }
	app.HandleEvent(key(tcell.KeyCtrlV, 0, tcell.ModCtrl))
	for end := time.Now().Add(5 * time.Second); !strings.Contains(strings.Join(term.all(), "\n"), "no image in the clipboard"); time.Sleep(5 * time.Millisecond) {
		app.Flush()
		if time.Now().After(end) {
			t.Fatalf("screen:\n%s", strings.Join(term.all(), "\n"))
		}
	}
	if raw := app.editor.RawText(); raw != "" {
		t.Errorf("editor holds %q", raw)
	}
}

func TestPastedTextThatIsNoImagePathStaysText(t *testing.T) {
	app, _, _ := newTestApp(t, 60, 20, Callbacks{})
	for _, s := range []string{"/no/such/file.png", "notes.txt", "look at ./x.png please"} {
		app.editor.Clear()
		app.HandleEvent(tcell.NewEventPaste(true))
		typeText(app, s)
		app.HandleEvent(tcell.NewEventPaste(false))
		if raw := app.editor.RawText(); raw != s {
			t.Errorf("paste %q became %q", s, raw)
		}
	}
}
