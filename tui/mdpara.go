package tui

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/yuin/goldmark/ast"
)

// paraState lets the text that ends the open chunk grow without the chunk being parsed
// again: text appended to a paragraph, or to the last item of a list, that cannot change how
// anything before it reads (no newline, no character that could close emphasis, a code span
// or a link, after a plain letter or digit) is that text as last parsed plus the new text,
// wrapped again below the lines before it. TestMarkdownStreamedEqualsParsed checks every
// prefix against a full parse.
type paraState struct {
	start       int      // offset of the chunk in the source
	src         string   // the chunk when it was parsed
	inline      string   // the styled text that ends it
	before      []string // the chunk's lines above that text
	first, rest string   // prefixes of the text's first and other lines (a list marker)
	width       int      // the width the text wraps at
}

// lines lays out the chunk with extra appended to its text.
func (p *paraState) lines(extra string) []string {
	// goldmark strips the spaces that end a paragraph.
	text := prefixLines(Wrap(p.inline+strings.TrimRight(extra, " "), p.width), p.first, p.rest)
	return append(p.before[:len(p.before):len(p.before)], text...)
}

// growable returns the state for a parsed chunk that ends with text that can grow (a lone
// paragraph, or a lone list whose last item is one paragraph), or nil; lines is the chunk's
// layout either way, or nil when it is neither.
func (r *mdRenderer) growable(doc ast.Node, width int) (p *paraState, lines []string) {
	only := doc.FirstChild()
	if only == nil || only.NextSibling() != nil {
		return nil, nil
	}
	switch n := only.(type) {
	case *ast.Paragraph:
		p = &paraState{inline: r.inline(n, ""), width: width}
	case *ast.List:
		item := n.LastChild()
		text := item.FirstChild()
		if text == nil || text.NextSibling() != nil || (text.Kind() != ast.KindParagraph && text.Kind() != ast.KindTextBlock) {
			return nil, nil
		}
		marker := "• "
		if n.IsOrdered() {
			marker = strconv.Itoa(n.Start+n.ChildCount()-1) + ". "
		}
		mw := Width(marker)
		p = &paraState{inline: r.inline(text, ""), width: width - mw, first: paint(r.th.Accent, marker), rest: strings.Repeat(" ", mw)}
		lines = r.list(n, width)
		own := p.lines("")
		if len(own) > len(lines) || strings.Join(own, "\n") != strings.Join(lines[len(lines)-len(own):], "\n") {
			return nil, lines // not laid out the way this assumes: parse it every time
		}
		p.before = lines[:len(lines)-len(own)]
	default:
		return nil, nil
	}
	if lines == nil {
		lines = p.lines("")
	}
	return p, lines
}

// layOutPara appends the lines of the open chunk to m.lines when it is the chunk last
// parsed with plain text appended to the text that ends it, and reports whether it did.
func (m *Markdown) layOutPara(open string) bool {
	p := m.para
	if p == nil || p.start != m.stableEnd || len(open) <= len(p.src) || !plainBase(p.src) {
		return false
	}
	extra := open[len(p.src):]
	if !plainAfter(p.src, extra) {
		return false
	}
	m.lines = joinBlocks(m.lines, p.lines(extra))
	return true
}

// plainBase is true for a parsed chunk that text can be appended to: it ends with a letter
// or digit, and holds nothing that later text could turn into a link, an HTML block, an
// entity, a table or an escape.
func plainBase(src string) bool {
	c := src[len(src)-1]
	alnum := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
	return alnum && !strings.ContainsAny(src, "[]<&|\\")
}

// plainAfter is true for text that can follow src as plain text: after a digit, which may
// be a list item's number, it holds no '.' or ')' either.
func plainAfter(src, extra string) bool {
	if c := src[len(src)-1]; c >= '0' && c <= '9' && strings.ContainsAny(extra, ".)") {
		return false
	}
	return plainText(extra)
}

// plainText is true for text that is only words, spaces and punctuation without a meaning
// of its own in a paragraph.
func plainText(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c >= 0x80:
		case strings.IndexByte(" .,:;?!-/'\"()%$@#+=", c) >= 0:
		default:
			return false
		}
	}
	return utf8.ValidString(s)
}
