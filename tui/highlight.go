package tui

import (
	"strings"

	"pi/tui/theme"
)

// A small syntax highlighter for code blocks. It knows comments, strings, numbers and
// keywords, which is most of what makes code readable in a terminal. A full lexer library was
// measured at about 0.7 ms per small snippet and 7 ms on first use; a streaming code block is
// highlighted again on every frame and the budget is under 1 ms per frame, so this is ours.

// langSpec describes the lexical conventions of a family of languages.
type langSpec struct {
	line       []string // line-comment openers
	blockOpen  string
	blockClose string
	quotes     string // string delimiters
	keywords   map[string]bool
}

func words(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

// languageSpec gives the spec for a fence name (lower case), or nil. It builds only that one,
// when a fence opens: a table of every language built at package init would cost each start.
func languageSpec(name string) *langSpec {
	cLike := func(kw string) *langSpec {
		return &langSpec{line: []string{"//"}, blockOpen: "/*", blockClose: "*/", quotes: "\"'`", keywords: words(kw)}
	}
	hashy := func(kw string) *langSpec { return &langSpec{line: []string{"#"}, quotes: "\"'", keywords: words(kw)} }
	switch name {
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
		return &langSpec{line: []string{"--"}, quotes: "\"'", keywords: words("and break do else elseif end false for function goto if in local nil not or repeat return then true until while")}
	case "json", "yaml", "yml", "toml":
		return hashy("true false null")
	}
	return nil
}

// highlightLine styles one line of code; inBlock carries an open block comment from one line
// to the next. Each styled run is closed, so the line can be wrapped and cut anywhere.
func highlightLine(th *theme.Theme, l string, spec *langSpec, inBlock bool) (string, bool) {
	comment := th.SyntaxComment + sItalic
	var b strings.Builder
	i := 0
	for i < len(l) {
		if inBlock {
			end := strings.Index(l[i:], spec.blockClose)
			if end < 0 {
				b.WriteString(paint(comment, l[i:]))
				return b.String(), true
			}
			b.WriteString(paint(comment, l[i:i+end+len(spec.blockClose)]))
			i += end + len(spec.blockClose)
			inBlock = false
			continue
		}
		rest := l[i:]
		if startsAny(rest, spec.line) {
			b.WriteString(paint(comment, rest))
			return b.String(), false
		}
		if spec.blockOpen != "" && strings.HasPrefix(rest, spec.blockOpen) {
			inBlock = true
			continue
		}
		c := l[i]
		switch {
		case strings.IndexByte(spec.quotes, c) >= 0:
			n := stringEnd(rest)
			b.WriteString(paint(th.SyntaxString, rest[:n]))
			i += n
		case c >= '0' && c <= '9':
			n := identEnd(rest)
			b.WriteString(paint(th.SyntaxNumber, rest[:n]))
			i += n
		case isIdent(c):
			n := identEnd(rest)
			if spec.keywords[rest[:n]] {
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
