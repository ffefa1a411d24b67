package tui

import (
	"strings"
	"unicode/utf8"

	"github.com/clipperhouse/uax29/v2/graphemes"
	"github.com/mattn/go-runewidth"
)

// reset closes every SGR attribute; components end styled lines with it so that no style
// leaks into the next line or into the terminal after exit.
const reset = "\x1b[0m"

// escLen returns the length of the escape sequence at the start of s (s[0] is ESC). CSI runs
// to its final byte; OSC, DCS and APC run to BEL or ST; anything else is two bytes.
func escLen(s string) int {
	if len(s) < 2 {
		return len(s)
	}
	switch s[1] {
	case '[':
		for i := 2; i < len(s); i++ {
			if s[i] >= 0x40 && s[i] <= 0x7e {
				return i + 1
			}
		}
		return len(s)
	case ']', 'P', '_', '^', 'X':
		for i := 2; i < len(s); i++ {
			if s[i] == '\a' {
				return i + 1
			}
			if s[i] == 0x1b && i+1 < len(s) && s[i+1] == '\\' {
				return i + 2
			}
		}
		return len(s)
	}
	return 2
}

// escComplete reports whether seq (from ESC to the end of the text) is a whole sequence.
func escComplete(seq string) bool {
	if len(seq) < 2 {
		return false
	}
	last := seq[len(seq)-1]
	switch seq[1] {
	case '[':
		return len(seq) > 2 && last >= 0x40 && last <= 0x7e
	case ']', 'P', '_', '^', 'X':
		return last == '\a' || strings.HasSuffix(seq, "\x1b\\")
	}
	return true
}

// segment is one piece of a styled string: an escape sequence (width 0, esc true) or one
// grapheme cluster with its width in cells.
type segment struct {
	text  string
	width int
	esc   bool
}

// forEachSegment calls fn for every escape sequence and grapheme cluster of s, in order.
// ASCII is handled byte by byte because it is nearly all of what a coding agent shows.
func forEachSegment(s string, fn func(segment) bool) {
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == 0x1b:
			n := escLen(s[i:])
			if i+n == len(s) && !escComplete(s[i:]) {
				return // a cut-off sequence would swallow whatever is written after it
			}
			if !fn(segment{text: s[i : i+n], esc: true}) {
				return
			}
			i += n
		case c < 0x80:
			w := 1
			if c < 0x20 || c == 0x7f {
				w = 0
			}
			if !fn(segment{text: s[i : i+1], width: w}) {
				return
			}
			i++
		default:
			j := i
			for j < len(s) && s[j] >= 0x80 {
				j++
			}
			// A combining mark after an ASCII letter starts its own run here and measures 0
			// cells, which is what the terminal does with it too.
			if !forEachCluster(s[i:j], fn) {
				return
			}
			i = j
		}
	}
}

// forEachCluster calls fn for each grapheme cluster of a run of non-ASCII text; it reports
// false when fn stopped. Invalid bytes show as one replacement character each: clustering
// them would make one segment too wide to place.
func forEachCluster(run string, fn func(segment) bool) bool {
	if !utf8.ValidString(run) {
		for k, r := range run {
			n := utf8.RuneLen(r)
			if r == utf8.RuneError {
				n = 1
			}
			if !fn(segment{text: run[k : k+n], width: clusterWidth(run[k : k+n])}) {
				return false
			}
		}
		return true
	}
	g := graphemes.FromString(run)
	for g.Next() {
		v := g.Value()
		if !fn(segment{text: v, width: clusterWidth(v)}) {
			return false
		}
	}
	return true
}

// clusterWidth measures one grapheme cluster. A cluster that starts with a zero-width rune (a
// combining mark left after an ASCII base) takes no cell of its own.
func clusterWidth(c string) int {
	r, _ := utf8.DecodeRuneInString(c)
	if r == utf8.RuneError && len(c) == 1 {
		return 1
	}
	return runewidth.StringWidth(c)
}

// Width returns the number of terminal cells s occupies, skipping escape sequences.
func Width(s string) int {
	if w, ok := quickWidth(s); ok {
		return w
	}
	w := 0
	forEachSegment(s, func(g segment) bool { w += g.width; return true })
	return w
}

// quickWidth measures the common case without grapheme segmentation: printable ASCII,
// complete CSI sequences (the styles components paint) and loneRunes. ok is false for
// anything else, which takes the general path.
func quickWidth(s string) (w int, ok bool) {
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c >= 0x20 && c < 0x7f:
			w++
			i++
		case c == 0x1b && i+1 < len(s) && s[i+1] == '[':
			j := i + 2
			for j < len(s) && (s[j] < 0x40 || s[j] > 0x7e) {
				j++
			}
			if j == len(s) {
				return 0, false // cut off: the general path knows what to do
			}
			i = j + 1
		case c >= 0x80:
			r, n := utf8.DecodeRuneInString(s[i:])
			if !loneRune(r) {
				return 0, false
			}
			w += runewidth.RuneWidth(r)
			i += n
		default:
			return 0, false
		}
	}
	return w, true
}

// loneRune is true for the runes of the chrome and of most prose that always make a
// grapheme cluster of their own (with anything but a combining mark, a joiner or a
// variation selector after them, which are not lone runes): Latin letters, general
// punctuation, arrows, mathematical and technical symbols, box drawing, block elements,
// geometric shapes, braille (the spinner), CJK ideographs.
func loneRune(r rune) bool {
	switch {
	case r >= 0xa1 && r <= 0x24f:
		return r != 0xad // the soft hyphen
	case r >= 0x2010 && r <= 0x2027, r >= 0x2030 && r <= 0x205e:
	case r >= 0x2190 && r <= 0x23ff, r >= 0x2500 && r <= 0x25ff, r >= 0x2800 && r <= 0x28ff:
	case r >= 0x4e00 && r <= 0x9fff:
	default:
		return false
	}
	return true
}

// sgrState tracks the SGR sequences in effect so that a line cut in the middle of a style can
// be closed and the style reopened on the next line.
type sgrState struct{ active string }

func (st *sgrState) apply(seq string) {
	if !strings.HasSuffix(seq, "m") || !strings.HasPrefix(seq, "\x1b[") {
		return
	}
	p := seq[2 : len(seq)-1]
	if p == "" || p == "0" {
		st.active = ""
		return
	}
	st.active += seq
}

// Truncate cuts s to at most w cells, appending tail (counted in w) when something was cut,
// and closes any open style.
func Truncate(s string, w int, tail string) string {
	if Width(s) <= w {
		return s
	}
	tw := Width(tail)
	if tw > w {
		tail, tw = "", 0
	}
	var b strings.Builder
	used, styled := 0, false
	forEachSegment(s, func(g segment) bool {
		if g.esc {
			b.WriteString(g.text)
			styled = true
			return true
		}
		if used+g.width > w-tw {
			return false
		}
		used += g.width
		b.WriteString(g.text)
		return true
	})
	b.WriteString(tail)
	if styled {
		b.WriteString(reset)
	}
	return b.String()
}

// PadRight pads s with spaces to w cells (no-op when it is already as wide).
func PadRight(s string, w int) string {
	if n := w - Width(s); n > 0 {
		return s + strings.Repeat(" ", n)
	}
	return s
}

// Wrap breaks a styled line into lines of at most w cells, at spaces where possible and inside
// a word only when the word alone is too wide. Styles open at a break are closed at the end of
// the line and reopened on the next, so every line stands alone. Newlines in s start new lines.
func Wrap(s string, w int) []string {
	if w < 1 {
		w = 1
	}
	var out []string
	st := &sgrState{}
	for _, para := range strings.Split(s, "\n") {
		out = wrapOne(out, para, w, st)
	}
	return out
}

// wrapOne wraps one paragraph (no newlines), appending to out; st carries style state across.
func wrapOne(out []string, s string, w int, st *sgrState) []string {
	if !strings.ContainsRune(s, 0x1b) && len(s) <= w && isASCII(s) {
		return append(out, s)
	}
	if st.active == "" && fitsClosed(s, w) {
		return append(out, s)
	}
	wr := &wrapper{out: out, w: w, st: st, lastSpace: -1}
	wr.line.WriteString(st.active)
	forEachSegment(s, wr.add)
	wr.flush()
	return wr.out
}

// wrapper is the state of wrapping one paragraph. lastSpace is where the most recent space
// of the current line starts, with the width and style before it, so the line can be broken
// there when a later word does not fit.
type wrapper struct {
	out        []string
	w          int
	st         *sgrState
	line       strings.Builder
	width      int
	lastSpace  int
	spaceWidth int
	spaceStyle string
}

func (wr *wrapper) flush() {
	text := wr.line.String()
	if wr.st.active != "" {
		text += reset
	}
	wr.out = append(wr.out, text)
}

// newLine starts a line with text (already styled) of the given width.
func (wr *wrapper) newLine(style, text string, width int) {
	wr.line.Reset()
	wr.line.WriteString(style)
	wr.line.WriteString(text)
	wr.width, wr.lastSpace = width, -1
}

func (wr *wrapper) add(g segment) bool {
	if g.esc {
		wr.line.WriteString(g.text)
		wr.st.apply(g.text)
		return true
	}
	if wr.width+g.width > wr.w && wr.width > 0 {
		switch {
		case g.text == " ":
			wr.flush()
			wr.newLine(wr.st.active, "", 0)
			return true
		case wr.lastSpace >= 0:
			wr.breakAtSpace()
			if wr.width+g.width > wr.w && wr.width > 0 {
				wr.flush() // the word carried over does not leave room either
				wr.newLine(wr.st.active, "", 0)
			}
		default:
			wr.flush()
			wr.newLine(wr.st.active, "", 0)
		}
	}
	if g.text == " " {
		if wr.width == 0 && len(wr.out) > 0 && wr.line.Len() == len(wr.st.active) {
			return true // no leading space on a wrapped line
		}
		wr.lastSpace, wr.spaceWidth, wr.spaceStyle = wr.line.Len(), wr.width, wr.st.active
	}
	wr.line.WriteString(g.text)
	wr.width += g.width
	return true
}

// breakAtSpace ends the line at its last space and carries the word after it over.
func (wr *wrapper) breakAtSpace() {
	text := wr.line.String()
	rest, restWidth := text[wr.lastSpace+1:], wr.width-wr.spaceWidth-1
	wr.line.Reset()
	wr.line.WriteString(text[:wr.lastSpace])
	saved := wr.st.active
	wr.st.active = wr.spaceStyle
	wr.flush()
	wr.st.active = saved
	wr.newLine(wr.spaceStyle, rest, restWidth)
}

// fitsClosed reports whether s fits in w cells and leaves no style open at its end, so that
// it needs no wrapping and no style carried on: most styled lines, and far cheaper to check
// than to rebuild.
func fitsClosed(s string, w int) bool {
	width := 0
	st := sgrState{}
	fits := true
	forEachSegment(s, func(g segment) bool {
		if g.esc {
			st.apply(g.text)
			return true
		}
		width += g.width
		fits = width <= w
		return fits
	})
	return fits && st.active == ""
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 || s[i] < 0x20 {
			return false
		}
	}
	return true
}

// sanitize makes untrusted text (tool output, file contents) safe to lay out: tabs become
// spaces, carriage returns and escape sequences are dropped, other control characters are
// shown as '?'. Without it a stray ESC in a command's output could move our cursor.
func sanitize(s string) string {
	clean := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < 0x20 && c != '\n') || c == 0x7f {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == 0x1b:
			i += escLen(s[i:]) - 1
		case c == '\t':
			b.WriteString("    ")
		case c == '\r':
		case c == '\n':
			b.WriteByte(c)
		case c < 0x20 || c == 0x7f:
			b.WriteByte('?')
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}
