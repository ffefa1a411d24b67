package export

import (
	"html"
	"strings"
)

// A small highlighter for code blocks: comments, strings, numbers and keywords, as HTML spans
// the page's style colours. It follows the terminal UI's (tui/highlight.go) lexical rules.

// lang is the lexical conventions of a family of languages.
type lang struct {
	line       []string // line-comment openers
	blockOpen  string
	blockClose string
	quotes     string
	keywords   map[string]bool
}

func langFor(name string) *lang {
	kw := func(s string) map[string]bool {
		m := map[string]bool{}
		for _, w := range strings.Fields(s) {
			m[w] = true
		}
		return m
	}
	cLike := func(words string) *lang {
		return &lang{line: []string{"//"}, blockOpen: "/*", blockClose: "*/", quotes: "\"'`", keywords: kw(words)}
	}
	hashy := func(words string) *lang { return &lang{line: []string{"#"}, quotes: "\"'", keywords: kw(words)} }
	switch strings.ToLower(name) {
	case "go", "golang":
		return cLike("break case chan const continue default defer else fallthrough for func go goto if import interface map package range return select struct switch type var nil true false")
	case "js", "javascript", "ts", "typescript", "jsx", "tsx":
		return cLike("async await break case catch class const continue default delete do else export extends finally for from function if import in instanceof let new of return static super switch this throw try typeof var void while yield null undefined true false interface type")
	case "rust", "rs":
		return cLike("as async await break const continue crate dyn else enum extern fn for if impl in let loop match mod move mut pub ref return self Self static struct super trait type unsafe use where while true false")
	case "c", "cpp", "c++", "h", "hpp", "java", "kotlin", "swift", "cs", "csharp", "zig":
		return cLike("auto break case char class const continue default do double else enum extern float for fn goto if int long new private protected public return short signed sizeof static struct switch this throw try typedef union unsigned void volatile while true false null nullptr import package val var let func")
	case "python", "py":
		return hashy("and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield None True False")
	case "sh", "bash", "shell", "zsh", "console":
		return hashy("if then else elif fi for while do done case esac function in return export local echo cd")
	case "lua":
		return &lang{line: []string{"--"}, quotes: "\"'", keywords: kw("and break do else elseif end false for function goto if in local nil not or repeat return then true until while")}
	case "json", "yaml", "yml", "toml":
		return hashy("true false null")
	}
	return nil
}

// highlight returns code as escaped HTML with spans for comments (c), strings (s), numbers
// (n) and keywords (k); a language it does not know is only escaped.
func highlight(code, name string) string {
	l := langFor(name)
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
func highlightLine(b *strings.Builder, s string, l *lang, inBlock bool) bool {
	for i := 0; i < len(s); {
		rest := s[i:]
		switch {
		case inBlock:
			end := strings.Index(rest, l.blockClose)
			if end < 0 {
				span(b, "c", rest)
				return true
			}
			span(b, "c", rest[:end+len(l.blockClose)])
			i += end + len(l.blockClose)
			inBlock = false
		case hasAnyPrefix(rest, l.line):
			span(b, "c", rest)
			return false
		case l.blockOpen != "" && strings.HasPrefix(rest, l.blockOpen):
			inBlock = true
		case strings.IndexByte(l.quotes, s[i]) >= 0:
			n := quotedLen(rest)
			span(b, "s", rest[:n])
			i += n
		case s[i] >= '0' && s[i] <= '9':
			n := wordLen(rest)
			span(b, "n", rest[:n])
			i += n
		case isWordByte(s[i]):
			n := wordLen(rest)
			if l.keywords[rest[:n]] {
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
