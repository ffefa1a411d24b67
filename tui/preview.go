package tui

// preview.go draws pictures in the transcript where the terminal can: a small preview under
// a tool result that holds an image (what the model was shown), through the kitty graphics
// protocol or iTerm2's inline images. Elsewhere, and with [images] show = false, the tool box
// keeps its one-line placeholder ("[image 1280×720 image/png]").

import (
	"encoding/base64"
	"fmt"
	"strings"

	"pi/images"
	"pi/provider"
)

// Picture protocols a terminal may speak.
const (
	GraphicsKitty  = "kitty"
	GraphicsITerm2 = "iterm2"
)

// Preview size: at most previewCols×previewRows cells, from a thumbnail of at most
// thumbPixels on a side.
const (
	previewCols = 40
	previewRows = 10
	thumbPixels = 480
	// kittyChunk is the most base64 one kitty graphics command may carry.
	kittyChunk = 4096
	// previewIDBase keeps our kitty image ids apart from other programs'.
	previewIDBase = 0x70690000
)

// DetectGraphics names the picture protocol of the terminal the environment describes, or ""
// — conservatively: kitty for TERM=xterm-kitty or KITTY_WINDOW_ID, iTerm2 for
// TERM_PROGRAM=iTerm.app or LC_TERMINAL=iTerm2; nothing inside tmux or screen, which do not
// pass the sequences on, nor for any other terminal.
func DetectGraphics(getenv func(string) string) string {
	term := getenv("TERM")
	if getenv("TMUX") != "" || getenv("STY") != "" || strings.HasPrefix(term, "screen") || strings.HasPrefix(term, "tmux") {
		return ""
	}
	switch {
	case term == "xterm-kitty" || getenv("KITTY_WINDOW_ID") != "":
		return GraphicsKitty
	case getenv("TERM_PROGRAM") == "iTerm.app" || getenv("LC_TERMINAL") == "iTerm2":
		return GraphicsITerm2
	}
	return ""
}

// imagePlaceholder is the tool box's line for an image block.
func imagePlaceholder(b provider.Block) string { return images.Placeholder(b) }

// previewView is a drawn picture: rows lines, the last of which carries the picture.
type previewView struct {
	lines []string
}

func (p *previewView) final() bool         { return true }
func (p *previewView) Render(int) []string { return p.lines }

func (a *App) graphicsOn() bool { return a.opts.Graphics != "" && !a.opts.HideImages }

// addPreviews adds a preview entry for each image in content. Called with a.mu held.
func (a *App) addPreviews(content []provider.Block) {
	if !a.graphicsOn() {
		return
	}
	width, _ := a.r.Size()
	for _, b := range content {
		if b.Type != provider.BlockImage {
			continue
		}
		data, w, h, err := images.Thumbnail(b, thumbPixels, thumbPixels)
		if err != nil {
			continue // the box's placeholder line stands
		}
		cols, rows := fitCells(w, h, min(previewCols, max(width-4, 1)))
		a.pics.previews++
		a.add(&previewView{lines: previewLines(a.opts.Graphics, data, previewIDBase+a.pics.previews, cols, rows)})
	}
}

// fitCells is the cell size of a w×h picture at most maxCols wide and previewRows tall; a
// cell is about twice as tall as it is wide.
func fitCells(w, h, maxCols int) (int, int) {
	cols := maxCols
	rows := max(1, (cols*h+w)/(2*w))
	if rows > previewRows {
		rows = previewRows
		cols = max(1, min(maxCols, rows*2*w/h))
	}
	return cols, rows
}

// previewLines reserves rows lines and draws the picture from the last of them: it moves up
// to the first, saves the cursor, draws, and comes back, so the renderer's idea of where the
// cursor is holds whatever the terminal does with it while drawing.
func previewLines(protocol string, png []byte, id, cols, rows int) []string {
	lines := make([]string, rows)
	var b strings.Builder
	if rows > 1 {
		fmt.Fprintf(&b, "\x1b[%dA", rows-1)
	}
	b.WriteString("\x1b7")
	enc := base64.StdEncoding.EncodeToString(png)
	if protocol == GraphicsKitty {
		kittyImage(&b, enc, id, cols, rows)
	} else {
		fmt.Fprintf(&b, "\x1b]1337;File=inline=1;size=%d;width=%d;height=%d;preserveAspectRatio=1:%s\a", len(png), cols, rows, enc)
	}
	b.WriteString("\x1b8")
	if rows > 1 {
		fmt.Fprintf(&b, "\x1b[%dB", rows-1)
	}
	lines[rows-1] = b.String()
	return lines
}

// kittyImage writes a kitty graphics command that sends a PNG and places it over cols×rows
// cells without moving the cursor (C=1); the same id and placement replace an earlier
// drawing instead of adding one. Responses are suppressed (q=2).
func kittyImage(b *strings.Builder, enc string, id, cols, rows int) {
	for first := true; first || enc != ""; first = false {
		chunk := enc[:min(len(enc), kittyChunk)]
		enc = enc[len(chunk):]
		more := 0
		if enc != "" {
			more = 1
		}
		if first {
			fmt.Fprintf(b, "\x1b_Ga=T,f=100,t=d,q=2,C=1,i=%d,p=1,c=%d,r=%d,m=%d;%s\x1b\\", id, cols, rows, more, chunk)
		} else {
			fmt.Fprintf(b, "\x1b_Gm=%d;%s\x1b\\", more, chunk)
		}
	}
}
