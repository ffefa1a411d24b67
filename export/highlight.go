package export

import (
	"html"
	"strings"

	"pi/internal/codelang"
)

// A small highlighter for code blocks: comments, strings, numbers and keywords, as HTML spans
// the page's style colours, for the languages internal/codelang knows (as the terminal UI).

// highlight returns code as escaped HTML with spans for comments (c), strings (s), numbers
// (n) and keywords (k); a language it does not know is only escaped.
func highlight(code, name string) string {
	l := codelang.Lookup(name)
	if l == nil {
		return html.EscapeString(code)
	}
	var b strings.Builder
	inBlock := false
	for i, line := range strings.Split(code, "\n") {
		if i > 0 {
			b.WriteByte('\n')
		}
		inBlock = highlightLine(&b, line, l, inBlock)
	}
	return b.String()
}

func span(b *strings.Builder, class, text string) {
	b.WriteString(`<span class="` + class + `">` + html.EscapeString(text) + `</span>`)
}

// highlightLine writes one line; inBlock carries an open block comment to the next line.
func highlightLine(b *strings.Builder, s string, l *codelang.Spec, inBlock bool) bool {
	for i := 0; i < len(s); {
		rest := s[i:]
		switch {
		case inBlock:
			end := strings.Index(rest, l.BlockClose)
			if end < 0 {
				span(b, "c", rest)
				return true
			}
			span(b, "c", rest[:end+len(l.BlockClose)])
			i += end + len(l.BlockClose)
			inBlock = false
		case hasAnyPrefix(rest, l.Line):
			span(b, "c", rest)
			return false
		case l.BlockOpen != "" && strings.HasPrefix(rest, l.BlockOpen):
			inBlock = true
		case strings.IndexByte(l.Quotes, s[i]) >= 0:
			n := quotedLen(rest)
			span(b, "s", rest[:n])
			i += n
		case s[i] >= '0' && s[i] <= '9':
			n := wordLen(rest)
			span(b, "n", rest[:n])
			i += n
		case isWordByte(s[i]):
			n := wordLen(rest)
			if l.Keywords[rest[:n]] {
				span(b, "k", rest[:n])
			} else {
				b.WriteString(html.EscapeString(rest[:n]))
			}
			i += n
		default:
			b.WriteString(html.EscapeString(s[i : i+1]))
			i++
		}
	}
	return inBlock
}

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// quotedLen is the length of the quoted string at the start of s, to its closing quote or
// the end of the line.
func quotedLen(s string) int {
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case s[0]:
			return i + 1
		}
	}
	return len(s)
}

func isWordByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}

func wordLen(s string) int {
	i := 0
	for i < len(s) && isWordByte(s[i]) {
		i++
	}
	return max(i, 1)
}
