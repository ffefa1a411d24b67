package tui

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Escape sequences the renderer writes. Only relative cursor motion is used: the renderer
// never knows (or needs) the absolute row where pi's output started.
const (
	syncBegin = "\x1b[?2026h"
	syncEnd   = "\x1b[?2026l"
	eraseLine = "\x1b[K" // to the end of the line
	eraseDown = "\x1b[J" // from the cursor to the end of the screen
)

// RenderStats counts what the renderer wrote, for tests and benchmarks.
type RenderStats struct {
	Frames int
	Bytes  int64
	// Clears counts ESC[2J and ESC[3J, which the renderer must never write; kept so that tests
	// and benchmarks can assert it stays zero.
	Clears int
}

// Renderer writes frames inline: committed lines go into the terminal's scrollback once,
// and the live region below them is diffed line by line against what is on screen.
//
// Invariant between frames: the live region occupies the last len(prev) rows that pi wrote,
// one row per line (no line is wider than the screen), and the cursor is on row cur of it
// (counted from its top; negative when it stayed on a committed line above). When prev is
// empty the cursor is at column 0 of the row where the next line goes.
type Renderer struct {
	w             io.Writer
	width, height int
	prev          []string
	cur           int
	// resetUp is set by Resize: the number of rows to move up, to the top of the old live
	// region, before erasing below it and drawing the region again at the new size.
	resetUp int
	resized bool
	pushed  int  // lines of the old live region the resize pushed into scrollback
	erase   bool // new rows may hold old text (redraw after a resize): erase to their end
	// committed counts lines written above the live region, up to the screen height: once
	// the screen is full the live region is known to end on its last row.
	committed int
	fixed     int // the last lines of prev that never spill (the editor and footer)
	// the last live line of the last frame as given, the width then, and as drawn
	lastRaw, lastFit string
	lastWidth        int
	// fitted maps live lines to what fit made of them: most live lines are the same from
	// one frame to the next. It starts over when it grows large or the width changes.
	// prevRaw is the live region of the last frame as given (prev as drawn).
	fitted  map[string]string
	prevRaw []string
	seq     []string // the array of the lines of a frame, kept for the next
	buf     bytes.Buffer
	frame   []byte // the frame as written, the array kept for the next
	stats   RenderStats
}

// NewRenderer returns a renderer writing to w for a screen of width×height cells.
func NewRenderer(w io.Writer, width, height int) *Renderer {
	return &Renderer{w: w, width: max(width, 1), height: max(height, 1)}
}

// Size returns the screen size the renderer lays out for.
func (r *Renderer) Size() (width, height int) { return r.width, r.height }

// Stats returns what has been written so far.
func (r *Renderer) Stats() RenderStats { return r.stats }

// Resize records a new screen size. The next frame moves to the top of the live region as the
// terminal has reflowed it, erases below and draws the live region again; the scrollback
// above it is left alone (never ESC[2J or ESC[3J).
func (r *Renderer) Resize(width, height int) {
	width, height = max(width, 1), max(height, 1)
	if width == r.width && height == r.height {
		return
	}
	r.fitted = nil
	// Most terminals reflow soft-wrapped rows on resize; estimate the rows the old live lines
	// take at the new width, with the cursor on the last of them.
	if len(r.prev) > 0 {
		up := r.cur
		if r.cur >= 0 {
			up = -1
			for _, l := range r.prev[:min(r.cur+1, len(r.prev))] {
				up += rowsAt(l, width)
			}
		}
		// Rows the terminal pushed above the screen top (a shorter window keeps the cursor
		// row and scrolls the rest up) are in scrollback now: count whole lines of them as
		// spilled rather than draw them a second time.
		r.pushed = 0
		excess := up - (height - 1)
		if r.committed+len(r.prev) >= r.height {
			// The screen is full, so the region ends on its last row, and a terminal that
			// reflows keeps that bottom: whatever no longer fits goes above the top.
			rows := 0
			for _, l := range r.prev {
				rows += rowsAt(l, width)
			}
			excess = max(excess, rows-height)
		}
		if excess > 0 {
			acc := 0
			for _, l := range r.prev[:len(r.prev)-r.fixed] { // fixed lines pushed up are just gone
				if acc+rowsAt(l, width) > excess {
					break
				}
				acc += rowsAt(l, width)
				r.pushed++
			}
			up -= acc
		}
		r.resetUp = min(up, height-1)
		r.resized = true
	}
	r.width, r.height = width, height
}

// rowsAt is how many rows a line takes on a terminal width cells wide that reflows it.
func rowsAt(l string, width int) int { return max(1, (Width(l)+width-1)/width) }

// Frame writes one frame: commit is appended to the scrollback above the live region for
// good, and live becomes the new live region. If live is taller than the screen its top lines
// are committed too; spilled says how many, so that the caller can stop rendering them. The
// last fixed lines of live (the editor and footer, no taller than the screen) never spill:
// after a resize that pushed some of them above the screen they are drawn again.
// Nothing is written when nothing changed.
func (r *Renderer) Frame(commit, live []string, fixed int) (spilled int, err error) {
	fixed = clamp(fixed, 0, min(len(live), r.height))
	if r.resized && r.pushed > 0 {
		spilled = min(r.pushed, len(live)-fixed)
		live, r.pushed = live[spilled:], 0
	}
	r.fixed = fixed
	if n := len(live) - r.height; n > 0 {
		spilled += n
		commit = append(commit[:len(commit):len(commit)], live[:n]...)
		live = live[n:]
	}
	seq := r.seq[:0]
	for _, l := range commit {
		seq = append(seq, r.fit(l))
	}
	seq = r.fitLive(seq, live)
	r.buf.Reset()
	prev := r.prev
	redraw := r.resized
	if redraw {
		// Redraw over the old region line by line and erase below only once the new region
		// is written: ESC[J at the top-left corner counts as clearing the screen to some
		// terminals (tmux's scroll-on-clear), which then push the screen into scrollback.
		r.moveUp(r.resetUp)
		prev, r.resized, r.erase = nil, false, true
	}
	cur := r.diff(seq, prev, r.cur)
	r.committed = min(r.committed+len(commit), r.height)
	if redraw {
		r.erase = false
		if len(seq) > 0 {
			r.buf.WriteString(eraseDown)
		}
	}
	r.prev = append(r.prev[:0], seq[len(commit):]...)
	r.cur = cur - len(commit)
	clear(seq)
	r.seq = seq[:0]
	if r.buf.Len() == 0 {
		return spilled, nil
	}
	return spilled, r.flush()
}

// fitLive appends the live lines fitted to the width to seq, reusing last frame's fitting
// of a line unchanged in its place, and remembers them for the next frame.
func (r *Renderer) fitLive(seq, live []string) []string {
	if len(r.fitted) > 8*r.height+64 || r.fitted == nil {
		r.fitted = make(map[string]string, 2*r.height)
	}
	for i, l := range live {
		switch {
		case i == len(live)-1:
			l = r.fitLast(l)
		case i < len(r.prevRaw) && i < len(r.prev) && l == r.prevRaw[i] && !r.resized:
			l = r.prev[i] // the same line in the same place: nearly every line, nearly every frame
		default:
			f, ok := r.fitted[l]
			if !ok {
				f = r.fit(l)
				r.fitted[l] = f
			}
			l = f
		}
		seq = append(seq, l)
	}
	r.prevRaw = append(r.prevRaw[:0], live...)
	return seq
}

// diff writes the changes from prev (on screen, cursor on row cur) to seq and returns the
// row the cursor is left on.
func (r *Renderer) diff(seq, prev []string, cur int) int {
	p := len(prev)
	moveTo := func(row int) {
		r.moveUp(cur - row)
		cur = row
	}
	if p > 0 && len(seq) != p {
		prev, cur = r.shift(seq, prev, cur, moveTo)
		p = len(prev)
	}
	for j := 0; j < len(seq) && j < p; j++ {
		switch {
		case seq[j] == prev[j]:
		case prev[j] != "" && strings.HasPrefix(seq[j], prev[j]):
			// The line only grew at its end, as a streamed line does: write what is new.
			moveTo(j)
			if w := Width(prev[j]); w > 0 {
				r.buf.WriteString("\x1b[" + strconv.Itoa(w) + "C")
			}
			r.buf.WriteString(seq[j][len(prev[j]):])
		default:
			moveTo(j)
			r.writeLine(seq[j], true)
		}
	}
	for j := p; j < len(seq); j++ {
		if j > 0 {
			if cur != j-1 {
				moveTo(j - 1)
			}
			r.buf.WriteString("\r\n")
		}
		r.writeLine(seq[j], r.erase)
		cur = j
	}
	if len(seq) < p {
		// The region shrank: clear the rows it no longer uses and come back up.
		moveTo(len(seq))
		r.buf.WriteString(eraseDown)
		if len(seq) > 0 {
			r.buf.WriteString("\x1b[A")
			cur--
		}
	}
	return cur
}

// shift handles lines inserted into or removed from the middle of the region (a reply
// growing by a line above the editor and footer) by moving the unchanged tail with IL or DL
// instead of rewriting it. For an insertion it first makes room at the bottom with newlines,
// which scroll the screen exactly as writing the longer region would. It returns prev as it
// now is on screen (same length as seq) and the cursor row.
func (r *Renderer) shift(seq, prev []string, cur int, moveTo func(int)) ([]string, int) {
	p, n := len(prev), len(seq)
	a := 0
	for a < min(n, p) && seq[a] == prev[a] {
		a++
	}
	b := 0
	for b < min(n, p)-a && seq[n-1-b] == prev[p-1-b] {
		b++
	}
	if b == 0 {
		return prev, cur
	}
	if n > p && n-a > r.height {
		// The first changed line would be above the top of the screen once room is made at the
		// bottom, where no cursor motion reaches: rewrite from it down instead.
		return prev, cur
	}
	if n > p {
		k := n - p
		moveTo(p - 1)
		r.buf.WriteString(strings.Repeat("\r\n", k))
		r.moveUp(p - 1 + k - a)
		r.buf.WriteString("\x1b[" + strconv.Itoa(k) + "L")
		shifted := append(append(append([]string(nil), prev[:a]...), make([]string, k)...), prev[a:]...)
		return shifted, a
	}
	k := p - n
	moveTo(a)
	r.buf.WriteString("\x1b[" + strconv.Itoa(k) + "M")
	shifted := append(append([]string(nil), prev[:a]...), prev[a+k:]...)
	return shifted, a
}

// moveUp moves to column 0, n rows up (down when n is negative).
func (r *Renderer) moveUp(n int) {
	r.buf.WriteByte('\r')
	switch {
	case n > 0:
		r.buf.WriteString("\x1b[" + strconv.Itoa(n) + "A")
	case n < 0:
		r.buf.WriteString("\x1b[" + strconv.Itoa(-n) + "B")
	}
}

// writeLine writes a line from column 0; over an old line it erases what the new one does not
// cover. A line exactly as wide as the screen must not be followed by an erase: the cursor
// then waits on the last column and ESC[K would wipe the last character.
func (r *Renderer) writeLine(l string, overwrite bool) {
	if !overwrite {
		r.buf.WriteString(l)
		return
	}
	if Width(l) < r.width {
		r.buf.WriteString(l)
		r.buf.WriteString(eraseLine)
		return
	}
	// A full line is erased before it is written instead: the erase also clears the mark a
	// reflowing terminal (tmux) left on the row when a resize wrapped a longer line there,
	// which would otherwise join this line with the next when the window widens again.
	r.buf.WriteString(eraseLine)
	r.buf.WriteString(l)
}

// fit guards the invariant that no line is wider than the screen: a wider line would wrap,
// take two rows, and every relative cursor move after it would be off by one.
func (r *Renderer) fit(l string) string {
	if len(l) <= r.width && strings.IndexByte(l, '\r') < 0 && strings.IndexByte(l, '\n') < 0 {
		return l // no line is wider in cells than in bytes
	}
	if strings.ContainsAny(l, "\r\n") {
		l = strings.NewReplacer("\r", " ", "\n", " ").Replace(l) // a line is one row
	}
	if Width(l) > r.width {
		return Truncate(l, r.width, "")
	}
	return l
}

// fitLast fits the last live line, which leaves the last column free: the cursor rests after
// it, and on the last column it would wait to wrap, where ESC[K or ESC[J would erase the
// line's last character. The result is kept, since the last line (the footer's) seldom
// changes.
func (r *Renderer) fitLast(l string) string {
	if l == r.lastRaw && r.width == r.lastWidth {
		return r.lastFit
	}
	f := r.fit(l)
	if Width(f) >= r.width {
		f = Truncate(f, r.width-1, "")
	}
	r.lastRaw, r.lastWidth, r.lastFit = l, r.width, f
	return f
}

// flush writes the buffered frame as one synchronized write.
func (r *Renderer) flush() error {
	r.frame = append(append(append(r.frame[:0], syncBegin...), r.buf.Bytes()...), syncEnd...)
	frame := r.frame
	r.stats.Frames++
	r.stats.Bytes += int64(len(frame))
	r.stats.Clears += bytes.Count(frame, []byte("\x1b[2J")) + bytes.Count(frame, []byte("\x1b[3J"))
	if _, err := r.w.Write(frame); err != nil {
		return fmt.Errorf("render frame of %d bytes: %w", len(frame), err)
	}
	return nil
}

// Finish leaves the cursor on a fresh line below everything written, so that the shell prompt
// (or a message printed after exit) starts clean. The live region stays on screen.
func (r *Renderer) Finish() error {
	r.buf.Reset()
	if len(r.prev) > 0 {
		r.moveUp(r.cur - (len(r.prev) - 1))
		r.buf.WriteString("\r\n")
	}
	r.prev, r.prevRaw, r.cur = nil, r.prevRaw[:0], 0
	if r.buf.Len() == 0 {
		return nil
	}
	return r.flush()
}
