package tui

import (
	"encoding/base64"
	"strings"
	"testing"

	"pi/provider"
)

func TestDetectGraphicsIsConservative(t *testing.T) {
	cases := []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"TERM": "xterm-kitty"}, GraphicsKitty},
		{map[string]string{"TERM": "xterm-256color", "KITTY_WINDOW_ID": "1"}, GraphicsKitty},
		{map[string]string{"TERM": "xterm-256color", "TERM_PROGRAM": "iTerm.app"}, GraphicsITerm2},
		{map[string]string{"TERM": "xterm-256color", "LC_TERMINAL": "iTerm2"}, GraphicsITerm2},
		{map[string]string{"TERM": "xterm-kitty", "TMUX": "/tmp/tmux-0/default,1,0"}, ""},
		{map[string]string{"TERM": "screen-256color", "TERM_PROGRAM": "iTerm.app"}, ""},
		{map[string]string{"TERM": "xterm-256color", "TERM_PROGRAM": "vscode"}, ""},
		{map[string]string{"TERM": "xterm-256color"}, ""},
	}
	for _, c := range cases {
		if got := DetectGraphics(func(k string) string { return c.env[k] }); got != c.want {
			t.Errorf("%v: %q, want %q", c.env, got, c.want)
		}
	}
}

func imageResult(t *testing.T) []provider.Block {
	return []provider.Block{provider.Text("Image file shot.png [image/png, 1280×720]"),
		provider.Image(base64.StdEncoding.EncodeToString(pngOf(t, 1280, 720)), "image/png")}
}

// A read of an image shows a preview under the tool box where the terminal can draw it, and
// the box's one-line placeholder everywhere (and with [images] show = false only that).
func TestToolResultImagesArePreviewedOrPlaceheld(t *testing.T) {
	cases := []struct {
		name     string
		graphics string
		hide     bool
		want     string // in the output written to the terminal
		wantRows int    // lines the preview takes
	}{
		{"kitty", GraphicsKitty, false, "\x1b_Ga=T,f=100,t=d,q=2,C=1,i=", 10},
		{"iTerm2", GraphicsITerm2, false, "\x1b]1337;File=inline=1;", 10},
		{"kitty with previews off", GraphicsKitty, true, "", 0},
		{"a terminal without pictures", "", false, "", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := &strings.Builder{}
			app := NewApp(out, 80, 30, Callbacks{}, Options{ManualFrames: true, Graphics: c.graphics, HideImages: c.hide})
			app.ToolStart("c1", "read", map[string]any{"path": "shot.png"})
			app.ToolEnd("c1", imageResult(t), nil, false)
			app.mu.Lock()
			rows := 0
			for _, le := range app.live {
				if p, ok := le.e.(*previewView); ok {
					rows = len(p.lines)
				}
			}
			app.mu.Unlock()
			app.Flush()
			written := out.String()
			if !strings.Contains(written, "[image 1280×720 image/png]") {
				t.Error("the tool box lacks the placeholder line")
			}
			drawn := strings.Contains(written, "\x1b_G") || strings.Contains(written, "1337;File")
			if rows != c.wantRows || drawn != (c.want != "") || !strings.Contains(written, c.want) {
				t.Errorf("preview rows %d, want %d; a picture drawn: %v", rows, c.wantRows, drawn)
			}
		})
	}
}

// The picture is drawn from the last reserved line, which moves up to the first and back:
// the cursor ends where the renderer expects it.
func TestPreviewLinesReturnTheCursor(t *testing.T) {
	lines := previewLines(GraphicsKitty, make([]byte, 10000), previewIDBase+1, 40, 6)
	if len(lines) != 6 || lines[0] != "" || Width(lines[5]) != 0 {
		t.Fatalf("lines %q", lines)
	}
	last := lines[5]
	if !strings.HasPrefix(last, "\x1b[5A\x1b7") || !strings.HasSuffix(last, "\x1b8\x1b[5B") {
		t.Errorf("the drawing line does not return the cursor: %.40q … %q", last, last[len(last)-12:])
	}
	if n := strings.Count(last, "\x1b_G"); n != 4 { // 13,336 base64 bytes in 4,096-byte chunks
		t.Errorf("%d kitty chunks", n)
	}
	if !strings.Contains(last, ",m=1;") || !strings.Contains(last, "\x1b_Gm=0;") {
		t.Error("the chunks do not say which is last")
	}
}

func TestFitCellsKeepsTheAspect(t *testing.T) {
	for _, c := range []struct{ w, h, max, cols, rows int }{
		{1280, 720, 40, 35, 10}, // wide: limited by rows
		{2000, 200, 40, 40, 2},
		{100, 1000, 40, 2, 10},
	} {
		if cols, rows := fitCells(c.w, c.h, c.max); cols != c.cols || rows != c.rows {
			t.Errorf("%d×%d in %d columns: %d×%d cells, want %d×%d", c.w, c.h, c.max, cols, rows, c.cols, c.rows)
		}
	}
}
