package tui

import (
	"strings"

	"pi/internal/codelang"
	"pi/tui/theme"
)

// A small syntax highlighter for code blocks. It knows comments, strings, numbers and
// keywords, which is most of what makes code readable in a terminal. A full lexer library was
// measured at about 0.7 ms per small snippet and 7 ms on first use; a streaming code block is
// highlighted again on every frame and the budget is under 1 ms per frame, so this is ours.

// highlightLine styles one line of code; inBlock carries an open block comment from one line
// to the next. Each styled run is closed, so the line can be wrapped and cut anywhere.
func highlightLine(th *theme.Theme, l string, spec *codelang.Spec, inBlock bool) (string, bool) {
	comment := th.SyntaxComment + sItalic
	var b strings.Builder
	i := 0
	for i < len(l) {
		if inBlock {
			end := strings.Index(l[i:], spec.BlockClose)
			if end < 0 {
				b.WriteString(paint(comment, l[i:]))
				return b.String(), true
			}
			b.WriteString(paint(comment, l[i:i+end+len(spec.BlockClose)]))
			i += end + len(spec.BlockClose)
			inBlock = false
			continue
		}
		rest := l[i:]
		if startsAny(rest, spec.Line) {
			b.WriteString(paint(comment, rest))
			return b.String(), false
		}
		if spec.BlockOpen != "" && strings.HasPrefix(rest, spec.BlockOpen) {
			inBlock = true
			continue
		}
		c := l[i]
		switch {
		case strings.IndexByte(spec.Quotes, c) >= 0:
			n := stringEnd(rest)
			b.WriteString(paint(th.SyntaxString, rest[:n]))
			i += n
		case c >= '0' && c <= '9':
			n := identEnd(rest)
			b.WriteString(paint(th.SyntaxNumber, rest[:n]))
			i += n
		case isIdent(c):
			n := identEnd(rest)
			if spec.Keywords[rest[:n]] {
				b.WriteString(paint(th.SyntaxKeyword, rest[:n]))
			} else {
				b.WriteString(rest[:n])
			}
			i += n
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String(), inBlock
}

func startsAny(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// stringEnd returns the length of the quoted string at the start of s, to the closing quote
// or the end of the line.
func stringEnd(s string) int {
	q := s[0]
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case q:
			return i + 1
		}
	}
	return len(s)
}

func isIdent(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}

func identEnd(s string) int {
	i := 0
	for i < len(s) && isIdent(s[i]) {
		i++
	}
	if i == 0 {
		return 1
	}
	return i
}
