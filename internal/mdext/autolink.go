package mdext

import (
	"bytes"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// autolinkParser links a bare URL where GFM's extended autolinks may start: at the start of
// a line, after white space, or after `*`, `_`, `~` or `(` (goldmark calls the parser at the
// start of a line and at its triggers; trigger ' ' stands for both).
type autolinkParser struct{}

func (autolinkParser) Trigger() []byte { return []byte{' ', '*', '_', '~', '('} }

func (autolinkParser) Parse(parent ast.Node, block text.Reader, pc parser.Context) ast.Node {
	if pc.IsInLinkLabel() {
		return nil
	}
	line, segment := block.PeekLine()
	if len(line) == 0 {
		return nil
	}
	lead := 0
	switch line[0] {
	case ' ', '\t', '*', '_', '~', '(':
		lead = 1
	}
	n, www := urlLength(line[lead:])
	if n == 0 {
		return nil
	}
	if lead > 0 {
		ast.MergeOrAppendTextSegment(parent, segment.WithStop(segment.Start+lead))
	}
	block.Advance(lead + n)
	start := segment.Start + lead
	link := ast.NewAutoLink(ast.AutoLinkURL, ast.NewTextSegment(text.NewSegment(start, start+n)))
	if www {
		link.Protocol = []byte("http")
	}
	return link
}

func (autolinkParser) CloseBlock(parent ast.Node, pc parser.Context) {}

// urlLength returns the length of the extended autolink at the start of b (0 if there is
// none), and whether it is a `www.` one that needs a scheme in its href.
func urlLength(b []byte) (n int, www bool) {
	domainStart := 0
	switch {
	case hasPrefixFold(b, "https://"):
		domainStart = len("https://")
	case hasPrefixFold(b, "http://"):
		domainStart = len("http://")
	case hasPrefixFold(b, "www."):
		www = true
	default:
		return 0, false
	}
	end := domainStart
	for end < len(b) && !isSpaceByte(b[end]) && b[end] != '<' {
		end++
	}
	end = trimTrailing(b[:end])
	domainEnd := domainStart
	for domainEnd < end && isDomainByte(b[domainEnd]) {
		domainEnd++
	}
	if !validDomain(b[domainStart:domainEnd], www) {
		return 0, false
	}
	return end, www
}

// trimTrailing returns the length of link without what GFM leaves out of an autolink's end:
// trailing punctuation, a `)` that closes no `(` of the link, an entity-like `&name;`.
func trimTrailing(link []byte) int {
	end := len(link)
	opening, closing := bytes.Count(link, []byte{'('}), bytes.Count(link, []byte{')'})
	for end > 0 {
		switch c := link[end-1]; c {
		case '?', '!', '.', ',', ':', '*', '_', '~':
			end--
		case ')':
			if closing <= opening {
				return end
			}
			closing--
			end--
		case ';':
			amp := end - 2
			for amp >= 0 && isAlnum(link[amp]) {
				amp--
			}
			if amp < 0 || amp == end-2 || link[amp] != '&' {
				return end
			}
			end = amp
		default:
			return end
		}
	}
	return end
}

// validDomain: segments of letters, digits, `-` and `_` between periods, each with a letter or
// digit, no `_` in the last two; a www. domain has a segment after "www", a URL's may be a
// single name (localhost).
func validDomain(domain []byte, www bool) bool {
	domain = bytes.TrimRight(domain, ".")
	segs := bytes.Split(domain, []byte{'.'})
	if len(domain) == 0 || www && len(segs) < 2 {
		return false
	}
	for i, s := range segs {
		if !bytes.ContainsFunc(s, isAlnumRune) || i >= len(segs)-2 && bytes.IndexByte(s, '_') >= 0 {
			return false
		}
	}
	return true
}

func isDomainByte(c byte) bool {
	return isAlnum(c) || c == '-' || c == '_' || c == '.' || c >= 0x80
}

func isAlnumRune(r rune) bool { return r < 0x80 && isAlnum(byte(r)) || r >= 0x80 }

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func isSpaceByte(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

func hasPrefixFold(b []byte, prefix string) bool {
	return len(b) >= len(prefix) && bytes.EqualFold(b[:len(prefix)], []byte(prefix))
}
