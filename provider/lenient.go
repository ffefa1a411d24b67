package provider

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// maxNesting bounds how deeply arrays and objects may nest, as encoding/json does, so hostile
// input cannot exhaust the stack.
const maxNesting = 1000

// errCut reports that the text ended where a value should start: the enclosing container drops
// the member instead of failing.
var errCut = errors.New("text ends before the value")

// lenientParser is a forgiving recursive-descent JSON reader. truncated is set once the input
// ends inside a value; every container then closes itself with what it has.
type lenientParser struct {
	s         string
	i         int
	depth     int
	truncated bool
}

// document reads the single value the text must consist of.
func (p *lenientParser) document() (any, error) {
	v, err := p.value()
	if errors.Is(err, errCut) {
		return nil, errors.New("no JSON value found")
	}
	if err != nil {
		return nil, err
	}
	p.skipSpace()
	if p.i < len(p.s) {
		return nil, fmt.Errorf("unexpected %s after the value at offset %d", p.near(), p.i)
	}
	return v, nil
}

func (p *lenientParser) skipSpace() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

// near quotes a few characters at the current position for error messages.
func (p *lenientParser) near() string {
	end := min(p.i+12, len(p.s))
	for end < len(p.s) && !utf8.RuneStart(p.s[end]) {
		end++
	}
	return strconv.Quote(p.s[p.i:end])
}

// value reads any JSON value; errCut means the text ended before one began.
func (p *lenientParser) value() (any, error) {
	p.skipSpace()
	if p.i >= len(p.s) {
		p.truncated = true
		return nil, errCut
	}
	switch c := p.s[p.i]; {
	case c == '{':
		return p.object()
	case c == '[':
		return p.array()
	case c == '"' || c == '\'':
		s, err := p.str()
		return s, err
	case c == '-' || c == '+' || c == '.' || c >= '0' && c <= '9':
		return p.number()
	case isIdentStart(c):
		return p.word()
	}
	return nil, fmt.Errorf("unexpected %s at offset %d, expected a JSON value", p.near(), p.i)
}

// enter counts one more level of nesting and refuses to go past maxNesting.
func (p *lenientParser) enter() error {
	p.depth++
	if p.depth > maxNesting {
		return fmt.Errorf("arrays and objects nest more than %d deep at offset %d", maxNesting, p.i)
	}
	return nil
}

// object reads an object; cut off, it returns the members read so far.
func (p *lenientParser) object() (any, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	p.i++ // '{'
	obj := map[string]any{}
	for {
		p.skipSpace()
		if p.i >= len(p.s) {
			p.truncated = true
			return obj, nil
		}
		if p.s[p.i] == '}' {
			p.i++
			return obj, nil
		}
		key, err := p.key()
		if err != nil {
			return nil, err
		}
		if p.truncated { // cut inside the key: drop the member
			return obj, nil
		}
		p.skipSpace()
		if p.i >= len(p.s) {
			p.truncated = true
			return obj, nil
		}
		if p.s[p.i] != ':' {
			return nil, fmt.Errorf("expected ':' after key %q at offset %d, found %s", key, p.i, p.near())
		}
		p.i++
		v, err := p.value()
		if errors.Is(err, errCut) {
			return obj, nil
		}
		if err != nil {
			return nil, err
		}
		obj[key] = v
		if done, err := p.afterItem('}'); err != nil {
			return nil, err
		} else if done {
			return obj, nil
		}
	}
}

// key reads an object key: a double- or single-quoted string, or a bare identifier.
func (p *lenientParser) key() (string, error) {
	c := p.s[p.i]
	if c == '"' || c == '\'' {
		return p.str()
	}
	if !isIdentStart(c) {
		return "", fmt.Errorf("expected a key or '}' at offset %d, found %s", p.i, p.near())
	}
	start := p.i
	for p.i < len(p.s) && isIdentPart(p.s[p.i]) {
		p.i++
	}
	return p.s[start:p.i], nil
}

// afterItem consumes the separator after an array item or object member. It reports done when
// the container closed (by its closing bracket, or because the text ended). A comma followed by
// the closing bracket is a trailing comma, which the next loop round accepts.
func (p *lenientParser) afterItem(closer byte) (bool, error) {
	if p.truncated {
		return true, nil
	}
	p.skipSpace()
	if p.i >= len(p.s) {
		p.truncated = true
		return true, nil
	}
	switch p.s[p.i] {
	case ',':
		p.i++
		return false, nil
	case closer:
		p.i++
		return true, nil
	}
	return true, fmt.Errorf("expected ',' or '%c' at offset %d, found %s", closer, p.i, p.near())
}

// array reads an array; cut off, it returns the items read so far.
func (p *lenientParser) array() (any, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	p.i++ // '['
	arr := []any{}
	for {
		p.skipSpace()
		if p.i < len(p.s) && p.s[p.i] == ']' {
			p.i++
			return arr, nil
		}
		v, err := p.value()
		if errors.Is(err, errCut) {
			return arr, nil
		}
		if err != nil {
			return nil, err
		}
		arr = append(arr, v)
		if done, err := p.afterItem(']'); err != nil {
			return nil, err
		} else if done {
			return arr, nil
		}
	}
}

// str reads a string quoted with " or '. Inside it, the other quote, raw control characters and
// unknown escapes (a backslash before a letter JSON does not know, as in a regex "\d") are kept
// literally; the text ending inside the string closes it.
func (p *lenientParser) str() (string, error) {
	q := p.s[p.i]
	p.i++
	start := p.i
	for p.i < len(p.s) && p.s[p.i] != q && p.s[p.i] != '\\' {
		p.i++
	}
	if p.i < len(p.s) && p.s[p.i] == q { // no escapes: the common case
		p.i++
		return validUTF8(p.s[start : p.i-1]), nil
	}
	var b strings.Builder
	b.WriteString(p.s[start:p.i])
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == q:
			p.i++
			return validUTF8(b.String()), nil
		case c == '\\':
			p.escape(&b)
		default:
			b.WriteByte(c)
			p.i++
		}
	}
	p.truncated = true
	return validUTF8(b.String()), nil
}

// validUTF8 replaces invalid bytes with U+FFFD, as encoding/json does, so every string the
// parser returns can be re-encoded unchanged.
func validUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}

// escape decodes the escape sequence at p.i into b.
func (p *lenientParser) escape(b *strings.Builder) {
	if p.i+1 >= len(p.s) { // a lone backslash at the very end: the text was cut
		p.i++
		return
	}
	c := p.s[p.i+1]
	p.i += 2
	switch c {
	case '"', '\'', '\\', '/':
		b.WriteByte(c)
	case 'b':
		b.WriteByte('\b')
	case 'f':
		b.WriteByte('\f')
	case 'n':
		b.WriteByte('\n')
	case 'r':
		b.WriteByte('\r')
	case 't':
		b.WriteByte('\t')
	case 'u':
		p.unicodeEscape(b)
	default:
		b.WriteByte('\\')
		b.WriteByte(c)
	}
}

// unicodeEscape decodes the four hex digits after \u (p.i is just past the 'u'), joining
// surrogate pairs. Malformed escapes are kept as written.
func (p *lenientParser) unicodeEscape(b *strings.Builder) {
	r, ok := p.hex4(p.i)
	if !ok {
		if len(p.s)-p.i < 4 && p.atEndOfHex() { // cut off mid-escape: drop it
			p.i = len(p.s)
			return
		}
		b.WriteString(`\u`)
		return
	}
	p.i += 4
	if utf16.IsSurrogate(r) && strings.HasPrefix(p.s[p.i:], `\u`) {
		if r2, ok := p.hex4(p.i + 2); ok {
			if pair := utf16.DecodeRune(r, r2); pair != utf8.RuneError {
				b.WriteRune(pair)
				p.i += 6
				return
			}
		}
	}
	if utf16.IsSurrogate(r) {
		r = utf8.RuneError
	}
	b.WriteRune(r)
}

// atEndOfHex reports whether everything from p.i to the end is hex digits, as when the text was
// cut inside a \u escape.
func (p *lenientParser) atEndOfHex() bool {
	for i := p.i; i < len(p.s); i++ {
		if _, ok := hexDigit(p.s[i]); !ok {
			return false
		}
	}
	return true
}

// hex4 reads four hex digits at offset at as one UTF-16 code unit.
func (p *lenientParser) hex4(at int) (rune, bool) {
	if at+4 > len(p.s) {
		return 0, false
	}
	var r rune
	for i := at; i < at+4; i++ {
		d, ok := hexDigit(p.s[i])
		if !ok {
			return 0, false
		}
		r = r<<4 | d
	}
	return r, true
}

func hexDigit(c byte) (rune, bool) {
	switch {
	case c >= '0' && c <= '9':
		return rune(c - '0'), true
	case c >= 'a' && c <= 'f':
		return rune(c-'a') + 10, true
	case c >= 'A' && c <= 'F':
		return rune(c-'A') + 10, true
	}
	return 0, false
}

// number reads a number, also accepting a leading '+', a leading or trailing '.', and leading
// zeros. A number the text ends in the middle of (like "1e") counts as missing.
func (p *lenientParser) number() (any, error) {
	start := p.i
	for p.i < len(p.s) && strings.IndexByte("0123456789+-.eE", p.s[p.i]) >= 0 {
		p.i++
	}
	text := p.s[start:p.i]
	f, err := strconv.ParseFloat(text, 64)
	if err == nil {
		return f, nil
	}
	if p.i >= len(p.s) && !errors.Is(err, strconv.ErrRange) {
		p.truncated = true
		return nil, errCut
	}
	return nil, fmt.Errorf("invalid number %q at offset %d", text, start)
}

// word reads a literal: JSON's true, false and null, or Python's True, False and None. A prefix
// of one at the very end of the text counts as missing.
func (p *lenientParser) word() (any, error) {
	start := p.i
	for p.i < len(p.s) && isIdentPart(p.s[p.i]) {
		p.i++
	}
	w := p.s[start:p.i]
	switch w {
	case "true", "True":
		return true, nil
	case "false", "False":
		return false, nil
	case "null", "None":
		return nil, nil
	}
	if p.i >= len(p.s) {
		for _, lit := range [...]string{"true", "True", "false", "False", "null", "None"} {
			if strings.HasPrefix(lit, w) {
				p.truncated = true
				return nil, errCut
			}
		}
	}
	return nil, fmt.Errorf("unexpected word %q at offset %d, expected a JSON value", w, start)
}

// isIdentStart and isIdentPart define the bare words accepted as keys and literals.
func isIdentStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == '$'
}

func isIdentPart(c byte) bool {
	return isIdentStart(c) || c >= '0' && c <= '9' || c == '-'
}
