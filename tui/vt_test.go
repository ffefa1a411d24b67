package tui

import (
	"strconv"
	"strings"
	"testing"
)

// vt is a small terminal model for tests: a screen of cells, a scrollback, a cursor with
// xterm's pending-wrap rule, and the sequences the renderer uses. It ignores styles (SGR) and
// counts the screen clears it sees, which must stay zero.
type vt struct {
	w, h       int
	rows       [][]string // h rows of w cells; "" is the right half of a wide cluster
	scrollback []string
	x, y       int
	pending    bool // cursor waits on the last column; the next glyph wraps first
	clears     int
}

func newVT(w, h int) *vt {
	t := &vt{w: w, h: h}
	for range h {
		t.rows = append(t.rows, t.blank())
	}
	return t
}

func (t *vt) blank() []string {
	r := make([]string, t.w)
	for i := range r {
		r[i] = " "
	}
	return r
}

func (t *vt) lineFeed() {
	if t.y == t.h-1 {
		t.scrollback = append(t.scrollback, rowText(t.rows[0]))
		t.rows = append(t.rows[1:], t.blank())
		return
	}
	t.y++
}

func (t *vt) Write(p []byte) (int, error) {
	s := string(p)
	forEachSegment(s, func(g segment) bool {
		switch {
		case g.esc:
			t.escape(g.text)
		case g.text == "\r":
			t.x, t.pending = 0, false
		case g.text == "\n":
			t.lineFeed()
			t.pending = false
		case g.width > 0:
			t.put(g)
		case g.text[0] >= 0x80:
			t.combine(g.text)
		}
		return true
	})
	return len(p), nil
}

func (t *vt) put(g segment) {
	if t.pending || t.x+g.width > t.w {
		t.x, t.pending = 0, false
		t.lineFeed()
	}
	t.rows[t.y][t.x] = g.text
	if g.width == 2 {
		t.rows[t.y][t.x+1] = ""
	}
	t.x += g.width
	if t.x >= t.w {
		t.x, t.pending = t.w-1, true
	}
}

// combine attaches a zero-width mark to the cell before the cursor, as terminals do.
func (t *vt) combine(mark string) {
	x := t.x - 1
	if t.pending {
		x = t.x
	}
	for x > 0 && t.rows[t.y][x] == "" {
		x--
	}
	if x >= 0 {
		t.rows[t.y][x] += mark
	}
}

func (t *vt) escape(seq string) {
	if !strings.HasPrefix(seq, "\x1b[") {
		return
	}
	final := seq[len(seq)-1]
	param := seq[2 : len(seq)-1]
	n := 1
	if v, err := strconv.Atoi(param); err == nil && v > 0 {
		n = v
	}
	switch final {
	case 'A':
		t.y, t.pending = max(0, t.y-n), false
	case 'B':
		t.y, t.pending = min(t.h-1, t.y+n), false
	case 'C':
		t.x, t.pending = min(t.w-1, t.x+n), false
	case 'L': // insert n blank rows at the cursor row; rows pushed off the bottom are lost
		for range n {
			t.rows = append(t.rows[:t.y], append([][]string{t.blank()}, t.rows[t.y:t.h-1]...)...)
		}
		t.x, t.pending = 0, false
	case 'M': // delete n rows at the cursor row; blank rows come in at the bottom
		for range n {
			t.rows = append(append(t.rows[:t.y:t.y], t.rows[t.y+1:]...), t.blank())
		}
		t.x, t.pending = 0, false
	case 'K':
		for i := t.x; i < t.w; i++ {
			t.rows[t.y][i] = " "
		}
	case 'J':
		if param == "2" || param == "3" {
			t.clears++
			return
		}
		if t.x == 0 && t.y == 0 {
			// tmux's scroll-on-clear: erasing the whole screen from the top-left corner
			// first pushes the screen into scrollback. Modelled so tests catch it.
			for _, r := range t.rows {
				if rowText(r) != "" {
					t.scrollback = append(t.scrollback, rowText(r))
				}
			}
		}
		for i := t.x; i < t.w; i++ {
			t.rows[t.y][i] = " "
		}
		for y := t.y + 1; y < t.h; y++ {
			t.rows[y] = t.blank()
		}
	}
}

func rowText(r []string) string { return strings.TrimRight(strings.Join(r, ""), " ") }

// all returns scrollback and screen rows, trailing blank rows dropped.
func (t *vt) all() []string {
	out := append([]string(nil), t.scrollback...)
	for _, r := range t.rows {
		out = append(out, rowText(r))
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return out
}

// plain strips styles and trailing spaces, as the model shows lines.
func plain(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		var b strings.Builder
		forEachSegment(l, func(g segment) bool {
			if !g.esc {
				b.WriteString(g.text)
			}
			return true
		})
		out[i] = strings.TrimRight(b.String(), " ")
	}
	return out
}

func TestVTModel(t *testing.T) {
	v := newVT(4, 2)
	v.Write([]byte("abcd\r\nef\r\ngh"))
	if got := strings.Join(v.all(), "|"); got != "abcd|ef|gh" {
		t.Fatalf("got %q", got)
	}
	v.Write([]byte("\r\x1b[Ax\x1b[K"))
	if got := strings.Join(v.all(), "|"); got != "abcd|x|gh" {
		t.Fatalf("got %q", got)
	}
}

// resize changes the screen size without reflow (xterm's behaviour). A shorter screen keeps
// the cursor row: rows above the new top go to scrollback, as xterm does.
func (v *vt) resize(w, h int) {
	for i := range v.rows {
		for len(v.rows[i]) < w {
			v.rows[i] = append(v.rows[i], " ")
		}
		v.rows[i] = v.rows[i][:w]
	}
	v.w = w
	if drop := v.y - (h - 1); drop > 0 {
		for _, r := range v.rows[:drop] {
			v.scrollback = append(v.scrollback, rowText(r))
		}
		v.rows, v.y = v.rows[drop:], v.y-drop
	}
	for len(v.rows) < h {
		v.rows = append(v.rows, v.blank())
	}
	v.rows, v.h = v.rows[:h], h
	v.x = min(v.x, w-1)
}
