package session

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math/bits"
	"unicode/utf8"
)

// Checking a line before indexing it.
//
// The index is built without decoding payloads, so whatever would make a line fail to decode
// later must be found while scanning, or a damaged line would look fine until the context is
// built. checkLine accepts exactly the lines that json.Valid accepts and that are valid UTF-8
// (encoding/json silently turns invalid UTF-8 into U+FFFD; here it means the line is damaged),
// with encoding/json's nesting limit. FuzzCheckLine holds it to that. It reads string bodies
// eight bytes at a time, since they are nearly all of a session's bytes.

// maxDepth is encoding/json's nesting limit.
const maxDepth = 10000

// lineShape is what checkLine learns about a valid line on the way.
type lineShape struct {
	object    bool // the value is a JSON object
	repeatKey bool // the top-level object names a key twice (JSON.parse keeps the last)
}

// checkLine reports why line is not one valid JSON value in valid UTF-8, or nil.
func checkLine(line []byte) (lineShape, error) {
	v := validator{b: line}
	v.stack, v.keys = v.room.stack[:0], v.room.keys[:0]
	i := skipWS(line, 0)
	v.shape.object = i < len(line) && line[i] == '{'
	if err := v.run(i); err != nil {
		return lineShape{}, err
	}
	return v.shape, nil
}

type validator struct {
	b     []byte
	stack []byte // '{' or '[' per open container
	keys  [][]byte
	shape lineShape
	room  struct { // stack and keys start here: a line rarely needs more
		stack [32]byte
		keys  [16][]byte
	}
}

func (v *validator) fail(i int, what string) error {
	if i >= len(v.b) {
		return fmt.Errorf("the line ends inside the JSON (%d bytes)", len(v.b))
	}
	return fmt.Errorf("byte %d of the line: %s", i+1, what)
}

// run walks the value starting at i without recursing: value opens containers (and their
// first key), the inner loop closes them or moves to the next element, and the walk ends when
// the stack is empty.
func (v *validator) run(i int) error {
	var err error
	for {
		opened := false
		if i, opened, err = v.value(i); err != nil {
			return err
		}
		if opened {
			continue
		}
		if i, err = v.after(i); err != nil || len(v.stack) == 0 {
			return err
		}
	}
}

// after is past a value: it closes containers until one continues with a comma, and returns
// the index of the next value (or of the end, with the stack empty).
func (v *validator) after(i int) (int, error) {
	for {
		i = skipWS(v.b, i)
		if len(v.stack) == 0 {
			if i != len(v.b) {
				return i, v.fail(i, "more after the JSON value")
			}
			return i, nil
		}
		top := v.stack[len(v.stack)-1]
		if i < len(v.b) && v.b[i] == ',' {
			if top == '[' {
				return i + 1, nil
			}
			return v.key(skipWS(v.b, i+1))
		}
		if i >= len(v.b) || !(top == '{' && v.b[i] == '}' || top == '[' && v.b[i] == ']') {
			return i, v.fail(i, "expected ',' or the end of the "+containerName(top))
		}
		v.stack = v.stack[:len(v.stack)-1]
		i++
	}
}

func containerName(c byte) string {
	if c == '{' {
		return "object"
	}
	return "array"
}

// value checks the value at i. A non-empty container is pushed (opened) with its first key
// read, and the index returned is that of its first value.
func (v *validator) value(i int) (int, bool, error) {
	i = skipWS(v.b, i)
	if i >= len(v.b) {
		return i, false, v.fail(i, "")
	}
	switch c := v.b[i]; {
	case c == '{' || c == '[':
		if len(v.stack) >= maxDepth {
			return i, false, v.fail(i, "nested too deep")
		}
		j := skipWS(v.b, i+1)
		if j < len(v.b) && (c == '{' && v.b[j] == '}' || c == '[' && v.b[j] == ']') {
			return j + 1, false, nil
		}
		v.stack = append(v.stack, c)
		if c == '{' {
			j, err := v.key(j)
			return j, true, err
		}
		return j, true, nil
	case c == '"':
		j, err := v.str(i)
		return j, false, err
	case c == '-' || c >= '0' && c <= '9':
		j, err := v.number(i)
		return j, false, err
	}
	for _, lit := range []string{"true", "false", "null"} {
		if len(v.b)-i >= len(lit) && string(v.b[i:i+len(lit)]) == lit {
			return i + len(lit), false, nil
		}
	}
	return i, false, v.fail(i, fmt.Sprintf("unexpected %q", v.b[i]))
}

// key checks `"key" :` at i and returns the index after the colon.
func (v *validator) key(i int) (int, error) {
	if i >= len(v.b) || v.b[i] != '"' {
		return i, v.fail(i, "expected a key")
	}
	end, err := v.str(i)
	if err != nil {
		return end, err
	}
	if len(v.stack) == 1 {
		v.noteKey(v.b[i:end])
	}
	j := skipWS(v.b, end)
	if j >= len(v.b) || v.b[j] != ':' {
		return j, v.fail(j, "expected ':' after a key")
	}
	return j + 1, nil
}

// noteKey remembers a top-level key and notes a repeat. Keys are compared decoded, so
// "\u0069d" repeats "id".
func (v *validator) noteKey(raw []byte) {
	k := raw
	for _, c := range raw {
		if c == '\\' {
			var s string
			if json.Unmarshal(raw, &s) == nil {
				k = []byte(`"` + s + `"`)
			}
			break
		}
	}
	for _, old := range v.keys {
		if string(old) == string(k) {
			v.shape.repeatKey = true
		}
	}
	v.keys = append(v.keys, k)
}

// str checks the string whose opening quote is at i and returns the index after its end.
func (v *validator) str(i int) (int, error) {
	b := v.b
	for i++; ; {
		i = plainRun(b, i)
		if i >= len(b) {
			return i, v.fail(i, "")
		}
		switch c := b[i]; {
		case c == '"':
			return i + 1, nil
		case c == '\\':
			n := escapeLen(b[i:])
			if n == 0 {
				return i, v.fail(i, "invalid escape in a string")
			}
			i += n
		case c < 0x20:
			return i, v.fail(i, fmt.Sprintf("control character %#02x in a string", c))
		default:
			r, size := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && size == 1 {
				return i, v.fail(i, "invalid UTF-8")
			}
			i += size
		}
	}
}

// escapeLen returns the length of the escape sequence b starts with, 0 if it is not one.
func escapeLen(b []byte) int {
	if len(b) < 2 {
		return 0
	}
	switch b[1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return 2
	case 'u':
		if len(b) < 6 {
			return 0
		}
		for _, c := range b[2:6] {
			if !isHex(c) {
				return 0
			}
		}
		return 6
	}
	return 0
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

// number checks a JSON number at i: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (v *validator) number(i int) (int, error) {
	b := v.b
	if b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		i = digits(b, i)
	default:
		return i, v.fail(i, "invalid number")
	}
	if i < len(b) && b[i] == '.' {
		if j := digits(b, i+1); j > i+1 {
			i = j
		} else {
			return j, v.fail(j, "invalid number")
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := digits(b, i)
		if j == i {
			return j, v.fail(j, "invalid number")
		}
		i = j
	}
	return i, nil
}

func digits(b []byte, i int) int {
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	return i
}

// plainRun returns the index of the first byte at or after i that a string body cannot hold
// as it is: a quote, a backslash, a control byte or a non-ASCII byte (len(b) if none).
// It tests sixteen bytes at a time, as two words: x's high bits flag non-ASCII bytes; x^0x02 is below 0x21
// exactly for control bytes and the quote (0x22 becomes 0x20); bs is zero at a backslash.
// Neither subtraction sets a bit below the first byte it is looking for (a borrow only runs
// upwards), so the lowest bit set is the first such byte.
func plainRun(b []byte, i int) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	test := func(x uint64) uint64 {
		bs := x ^ (ones * '\\')
		return (x | (x ^ ones*0x02 - ones*0x21) | ((bs - ones) &^ bs)) & highs
	}
	for ; i+16 <= len(b); i += 16 {
		w := b[i : i+16]
		x, y := binary.LittleEndian.Uint64(w), binary.LittleEndian.Uint64(w[8:])
		if sx, sy := test(x), test(y); sx|sy != 0 {
			if sx != 0 {
				return i + bits.TrailingZeros64(sx)/8
			}
			return i + 8 + bits.TrailingZeros64(sy)/8
		}
	}
	for ; i+8 <= len(b); i += 8 {
		if s := test(binary.LittleEndian.Uint64(b[i:])); s != 0 {
			return i + bits.TrailingZeros64(s)/8
		}
	}
	for ; i < len(b); i++ {
		if c := b[i]; c == '"' || c == '\\' || c < 0x20 || c >= 0x80 {
			return i
		}
	}
	return i
}
