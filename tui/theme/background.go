package theme

// background.go tells a dark terminal background from a light one: the terminal's answer to
// OSC 11 ("what is your background colour?"), or the COLORFGBG variable some terminals set.

import (
	"bytes"
	"strconv"
	"strings"
)

// Query asks the terminal for its background colour (OSC 11), then for its attributes (DA1).
// Every terminal answers DA1, and answers in order, so the DA1 answer arriving first means
// that no OSC 11 answer is coming: nobody waits out a timeout on a terminal that does not know
// OSC 11.
const Query = "\x1b]11;?\x1b\\\x1b[c"

// RGB is a colour as a terminal reports it, each channel scaled to 0–65535.
type RGB struct{ R, G, B uint16 }

// Dark reports whether text in the UI's dark theme reads best on c: its luminance is below
// the middle.
func (c RGB) Dark() bool {
	y := 0.2126*float64(c.R) + 0.7152*float64(c.G) + 0.0722*float64(c.B)
	return y < 0.5*65535
}

// ParseOSC11 parses the body of an OSC 11 answer, what comes between "ESC ] 11 ;" and the
// terminator: "rgb:RRRR/GGGG/BBBB" (1 to 4 hex digits a channel), or rgba: with a fourth
// channel that is ignored.
func ParseOSC11(body string) (RGB, bool) {
	spec, ok := strings.CutPrefix(body, "rgb:")
	want := 3
	if !ok {
		if spec, ok = strings.CutPrefix(body, "rgba:"); !ok {
			return RGB{}, false
		}
		want = 4
	}
	parts := strings.Split(spec, "/")
	if len(parts) != want {
		return RGB{}, false
	}
	var ch [4]uint16
	for i, p := range parts {
		if len(p) < 1 || len(p) > 4 || !isHex(p) {
			return RGB{}, false
		}
		v, err := strconv.ParseUint(p, 16, 16)
		if err != nil {
			return RGB{}, false
		}
		max := uint64(1)<<(4*len(p)) - 1
		ch[i] = uint16(v * 65535 / max) // "f", "ff" and "ffff" are all full
	}
	return RGB{ch[0], ch[1], ch[2]}, true
}

// Answers finds the terminal's answers to Query in input read from the terminal, which also
// holds the keys typed meanwhile. Scan passes every key byte on and takes out the DA1
// answers, which a key parser would take for a key (tcell reads one as Shift+Right); OSC 11
// answers are left in, since key parsers drop OSC strings. Input may arrive cut anywhere: the
// start of an OSC answer is remembered until the next call, and the start of a DA1 answer
// (ESC [ ? …, which no key begins with) is held back until it ends.
type Answers struct {
	seen []byte // the end of earlier input that may start an OSC 11 answer (already passed on)
	held []byte // the start of a DA1 answer, not passed on yet
}

// maxAnswer bounds how much of an unfinished answer is kept.
const maxAnswer = 64

// Scan looks at the next bytes of input. keys is what to hand the key parser; bg is the
// background colour when an OSC 11 answer ended in them (ok), and da is true when a DA1
// answer did.
func (a *Answers) Scan(in []byte) (keys []byte, bg RGB, ok, da bool) {
	keys, da = a.stripDA(in)
	buf := keys
	if len(a.seen) > 0 {
		buf = append(a.seen, keys...)
		a.seen = nil
	}
	for i := 0; i < len(buf); i++ {
		if buf[i] != 0x1b {
			continue
		}
		rest := buf[i:]
		end, kind := oscAt(rest)
		switch kind {
		case answerPartial:
			if len(rest) <= maxAnswer {
				a.seen = append([]byte(nil), rest...)
			}
			return keys, bg, ok, da
		case answerOSC11:
			if c, good := ParseOSC11(oscBody(rest[:end])); good {
				bg, ok = c, true
			}
			i += end - 1
		}
	}
	return keys, bg, ok, da
}

// stripDA returns in, after what was held back, without the DA1 answers in it; the start of
// one that does not end in it is held back.
func (a *Answers) stripDA(in []byte) ([]byte, bool) {
	buf := in
	if len(a.held) > 0 {
		buf = append(a.held, in...)
		a.held = nil
	}
	da := false
	for i := 0; i < len(buf); i++ {
		if buf[i] != 0x1b {
			continue
		}
		end, kind := daAt(buf[i:])
		switch {
		case kind == answerDA:
			buf = append(buf[:i:i], buf[i+end:]...)
			da = true
			i--
		case kind == answerPartial && len(buf)-i <= maxAnswer:
			a.held = append([]byte(nil), buf[i:]...)
			return buf[:i], da
		}
	}
	return buf, da
}

type answerKind int

const (
	answerNone answerKind = iota
	answerPartial
	answerOSC11
	answerDA
)

// oscAt says whether b (which starts with ESC) starts an OSC 11 answer, and its length: the
// answer ends with BEL or ESC \.
func oscAt(b []byte) (int, answerKind) {
	const p = "\x1b]11;"
	if n := min(len(b), len(p)); string(b[:n]) != p[:n] {
		return 0, answerNone
	} else if n < len(p) {
		return 0, answerPartial
	}
	for j := len(p); j < len(b); j++ {
		switch {
		case b[j] == 0x07:
			return j + 1, answerOSC11
		case b[j] == 0x1b && j+1 < len(b):
			if b[j+1] == '\\' {
				return j + 2, answerOSC11
			}
			return 0, answerNone // not a well-formed answer: leave it to the key parser
		case b[j] == 0x1b:
			return 0, answerPartial
		case b[j] < 0x20:
			return 0, answerNone
		}
	}
	return 0, answerPartial
}

// daAt says whether b (which starts with ESC) starts a DA1 answer, ESC [ ? digits;… c, and
// its length. Only a start of three bytes or more counts as partial: a lone ESC is the
// Escape key.
func daAt(b []byte) (int, answerKind) {
	const p = "\x1b[?"
	if len(b) < len(p) || string(b[:len(p)]) != p {
		return 0, answerNone
	}
	for j := len(p); j < len(b); j++ {
		switch c := b[j]; {
		case c == 'c':
			return j + 1, answerDA
		case c >= '0' && c <= '9' || c == ';':
		default:
			return 0, answerNone
		}
	}
	return 0, answerPartial
}

// oscBody is the text of an OSC 11 answer between "ESC ] 11 ;" and its terminator.
func oscBody(b []byte) string {
	b = b[5:]
	b = bytes.TrimSuffix(b, []byte("\x07"))
	b = bytes.TrimSuffix(b, []byte("\x1b\\"))
	return string(b)
}

// FromColorFGBG reads COLORFGBG ("fg;bg" or "fg;default;bg", palette numbers), which rxvt,
// Konsole and others set: ok is false when it says nothing about the background.
func FromColorFGBG(v string) (dark, ok bool) {
	if v == "" {
		return false, false
	}
	parts := strings.Split(v, ";")
	bg, err := strconv.Atoi(parts[len(parts)-1])
	if err != nil || bg < 0 || bg > 15 {
		return false, false
	}
	return bg != 7 && bg < 9, true // 7 and 9–15 are the light ones
}
