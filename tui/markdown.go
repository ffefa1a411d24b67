package tui

import (
	"strconv"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	extast "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"

	"pi/internal/codelang"
	"pi/internal/mdext"
	"pi/tui/theme"
)

// Markdown renders streamed markdown incrementally. The source is cut into chunks at blank
// lines that certainly end every open block (outside code fences, before a line that cannot
// continue a list, quote or table); a chunk followed by another is final, so it is parsed and
// laid out once and cached, and each update re-renders only the open last chunk. An open
// chunk that is a fenced code block still streaming is laid out line by line instead: only
// its new lines cost anything. That keeps the cost of a streamed chunk independent of the
// length of the reply so far.
//
// goldmark parses each chunk: CommonMark plus GFM tables and strikethrough is a lot of
// grammar to get right by hand, and it parses a chunk in microseconds.
type Markdown struct {
	th     *theme.Theme
	parser parser.Parser
	src    string
	width  int

	// lines holds the lines as last laid out: those of the final chunks (the first nStable,
	// blank lines between chunks included), then the open chunk's.
	lines     []string
	nStable   int
	stableEnd int  // offset in src where the open chunk starts
	openLen   int  // length of the open chunk when lines was laid out
	openValid bool // lines[nStable:] belong to the open chunk of openLen bytes
	openTable [][]int
	scan      splitScan   // how far nextSplit has looked into the open chunk
	fence     *fenceState // the open chunk as a streaming code block, when it is one
	para      *paraState  // the open chunk as a paragraph, when it was one when last parsed
	parseAll  bool        // always parse the open chunk (tests compare with it)

	// frozen holds column widths by chunk start offset: a table whose lines have spilled
	// into scrollback keeps its columns, so lines already written stay true.
	frozen map[int][][]int

	codeCache map[codeKey]codeLines
}

// NewMarkdown returns an empty markdown view drawn in th.
func NewMarkdown(th *theme.Theme) *Markdown {
	md := goldmark.New(goldmark.WithExtensions(mdext.Table{}, mdext.Strikethrough{}))
	return &Markdown{th: th, parser: md.Parser(), frozen: map[int][][]int{}, codeCache: map[codeKey]codeLines{}}
}

// SetTheme draws the view in th from now on: every cached line is laid out again.
func (m *Markdown) SetTheme(th *theme.Theme) {
	if th != m.th {
		m.th = th
		m.restart()
		clear(m.codeCache)
	}
}

// SetText replaces the source. Appending to the previous source (streaming) is cheap; any
// other change starts over.
func (m *Markdown) SetText(src string) {
	if !strings.HasPrefix(src, m.src) || len(src) < m.stableEnd {
		m.restart()
	}
	m.src = src
}

func (m *Markdown) restart() {
	m.lines, m.nStable, m.stableEnd, m.openValid, m.scan, m.fence, m.para = m.lines[:0], 0, 0, false, splitScan{}, nil, nil
}

// Render returns the lines at width.
func (m *Markdown) Render(width int) []string {
	return append([]string(nil), m.Lines(width)...)
}

// Lines returns the lines at width without copying them: the caller must not change the
// slice, which is valid until the next call.
func (m *Markdown) Lines(width int) []string {
	if width != m.width {
		m.width = width
		m.restart()
	}
	for {
		cut := m.scan.next(m.src, m.stableEnd)
		if cut < 0 {
			break
		}
		lines, _ := m.renderChunk(m.src[m.stableEnd:cut], m.stableEnd)
		m.lines = joinBlocks(m.lines[:m.nStable], lines)
		m.nStable, m.stableEnd, m.openValid, m.fence, m.para = len(m.lines), cut, false, nil, nil
	}
	open := m.src[m.stableEnd:]
	if !m.openValid || len(open) != m.openLen { // the source only grows: a new length is new text
		m.lines, m.openTable = m.lines[:m.nStable], nil
		if m.parseAll || !m.layOutPara(open) && !m.layOutFence(open) {
			m.lines = joinBlocks(m.lines[:m.nStable], m.parseOpen(open))
		}
		m.openLen, m.openValid = len(open), true
	}
	return m.lines
}

// parseOpen parses and lays out the open chunk, noting it as a paragraph when it is one.
func (m *Markdown) parseOpen(open string) []string {
	m.para = nil
	if strings.TrimSpace(open) == "" {
		return nil
	}
	b := []byte(open)
	doc := m.parser.Parse(text.NewReader(b))
	r := &mdRenderer{th: m.th, src: b, frozen: m.frozen[m.stableEnd], cache: m.codeCache}
	if p, lines := r.growable(doc, m.width); lines != nil {
		if p != nil {
			p.start, p.src, m.para = m.stableEnd, open, p
		}
		return lines
	}
	lines := r.blocks(doc, m.width, false)
	m.openTable = r.tables
	return lines
}

// Freeze tells the view that its first n lines are in scrollback. Tables of the open chunk
// keep their current column widths from now on.
func (m *Markdown) Freeze(n int) {
	if n > m.nStable && len(m.openTable) > 0 {
		if _, ok := m.frozen[m.stableEnd]; !ok {
			m.frozen[m.stableEnd] = m.openTable
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func joinBlocks(out, lines []string) []string {
	if len(out) > 0 && len(lines) > 0 {
		out = append(out, "")
	}
	return append(out, lines...)
}

// splitScan finds chunk boundaries: the start of a line that begins at column 0 with a
// character that cannot continue a list, quote or table, after a blank line, outside a code
// fence. It remembers where it stopped (the start of a line that may still grow), so
// that a streamed source is scanned once, not once per update.
type splitScan struct {
	from, pos int // the chunk being scanned starts at from; lines before pos are scanned
	fence     string
	blank     bool
	list      bool // the chunk may hold a list, which an item after a blank line continues
}

// next returns the offset of the first boundary after from in src, or -1.
func (s *splitScan) next(src string, from int) int {
	if s.from != from || s.pos < from {
		*s = splitScan{from: from, pos: from}
	}
	for s.pos < len(src) {
		i := s.pos
		nl := strings.IndexByte(src[i:], '\n')
		if nl < 0 {
			// The last line may still grow, but its first character already tells whether
			// it starts a block.
			if s.fence == "" && s.blank && i > from && i < len(src) && startsBlock(src[i:], s.list) {
				return i
			}
			return -1
		}
		line := src[i : i+nl]
		trimmed := strings.TrimLeft(line, " ")
		s.pos = i + nl + 1
		switch {
		case s.fence != "":
			if strings.HasPrefix(trimmed, s.fence) {
				s.fence = ""
			}
		case strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~"):
			if s.blank && i > from && line == trimmed {
				return i
			}
			s.fence = trimmed[:3]
		case strings.TrimSpace(line) == "":
			s.blank = true
			continue
		case s.blank && i > from && startsBlock(line, s.list):
			return i
		}
		s.blank = false
		s.list = s.list || listItem(trimmed)
	}
	return -1
}

// startsBlock reports whether line, after a blank line, certainly starts a new top-level
// block: it is not indented (so it continues no list item), and it is not a list item that
// may continue a list of the chunk (a loose list). A quote or a table cannot continue across
// a blank line.
func startsBlock(line string, list bool) bool {
	c := line[0]
	return c != ' ' && c != '\t' && !(list && listItem(line))
}

// listItem reports whether line may be a list item (or is something else that starts like one).
func listItem(line string) bool {
	if line == "" {
		return false
	}
	c := line[0]
	return c == '-' || c == '*' || c == '+' || c >= '0' && c <= '9'
}

// renderChunk parses and lays out one chunk, starting at offset start of the whole source.
func (m *Markdown) renderChunk(src string, start int) ([]string, [][]int) {
	if strings.TrimSpace(src) == "" {
		return nil, nil
	}
	b := []byte(src)
	doc := m.parser.Parse(text.NewReader(b))
	r := &mdRenderer{th: m.th, src: b, frozen: m.frozen[start], cache: m.codeCache}
	return r.blocks(doc, m.width, false), r.tables
}

// mdRenderer lays out one parsed chunk.
type mdRenderer struct {
	th     *theme.Theme
	src    []byte
	frozen [][]int // column widths to keep, by table number
	tables [][]int // column widths used, by table number
	cache  map[codeKey]codeLines
}

const codeCacheSize = 4096

// blocks lays out the children of parent, separated by blank lines unless tight.
func (r *mdRenderer) blocks(parent ast.Node, width int, tight bool) []string {
	var out []string
	for c := parent.FirstChild(); c != nil; c = c.NextSibling() {
		lines := r.block(c, width)
		if tight {
			out = append(out, lines...)
		} else {
			out = joinBlocks(out, lines)
		}
	}
	return out
}

func (r *mdRenderer) block(n ast.Node, width int) []string {
	switch n := n.(type) {
	case *ast.Heading:
		style := sBold + r.th.Heading
		if n.Level == 1 {
			style += sUnderline
		}
		prefix := ""
		if n.Level > 2 {
			prefix = strings.Repeat("#", n.Level) + " "
		}
		return Wrap(paint(style, prefix+r.inline(n, style)), width)
	case *ast.Paragraph, *ast.TextBlock:
		return Wrap(r.inline(n, ""), width)
	case *ast.ThematicBreak:
		return []string{paint(r.th.Muted, strings.Repeat("─", width))}
	case *ast.FencedCodeBlock:
		return r.code(n, string(n.Language(r.src)), width, true)
	case *ast.CodeBlock:
		return r.code(n, "", width, false)
	case *ast.Blockquote:
		return prefixLines(r.blocks(n, width-2, false), paint(r.th.Muted, "│ "), paint(r.th.Muted, "│ "))
	case *ast.List:
		return r.list(n, width)
	case *extast.Table:
		return r.table(n, width)
	case *ast.HTMLBlock:
		return Wrap(sanitize(strings.TrimRight(r.rawLines(n), "\n")), width)
	}
	return Wrap(sanitize(strings.TrimRight(r.rawLines(n), "\n")), width)
}

func (r *mdRenderer) rawLines(n ast.Node) string {
	var b strings.Builder
	lines := n.Lines()
	for i := 0; i < lines.Len(); i++ {
		seg := lines.At(i)
		b.Write(seg.Value(r.src))
	}
	return b.String()
}

// code lays out a code block with highlighting; fenced blocks keep dim fence lines so that
// copying from the terminal gives valid markdown.
func (r *mdRenderer) code(n ast.Node, lang string, width int, fenced bool) []string {
	body := sanitize(strings.TrimRight(r.rawLines(n), "\n"))
	var out []string
	if fenced {
		out = append(out, Truncate(paint(r.th.CodeFence, "```"+lang), width, ""))
	}
	spec := codelang.Lookup(strings.ToLower(lang))
	inBlock := false
	for _, l := range strings.Split(body, "\n") {
		var lines []string
		lines, inBlock = r.codeLine(l, spec, inBlock, width)
		out = append(out, lines...)
	}
	if fenced {
		out = append(out, paint(r.th.CodeFence, "```"))
	}
	return out
}

// codeKey identifies a highlighted, wrapped code line: the same text in the same comment
// state at the same width always lays out the same.
type codeKey struct {
	spec    *codelang.Spec
	line    string
	inBlock bool
	width   int
}

type codeLines struct {
	lines   []string
	inBlock bool
}

// codeLine highlights and wraps one line of code, through the view's cache: a code block
// still streaming is laid out again on every frame, and all but its last line are unchanged.
func (r *mdRenderer) codeLine(l string, spec *codelang.Spec, inBlock bool, width int) ([]string, bool) {
	k := codeKey{spec, l, inBlock, width}
	if c, ok := r.cache[k]; ok {
		return c.lines, c.inBlock
	}
	h, after := l, inBlock
	if spec != nil {
		h, after = highlightLine(r.th, l, spec, inBlock)
	}
	c := codeLines{Wrap(h, width), after}
	if r.cache != nil {
		if len(r.cache) >= codeCacheSize {
			clear(r.cache) // crude, but a reply with this much code is rare
		}
		r.cache[k] = c
	}
	return c.lines, c.inBlock
}

func (r *mdRenderer) list(n *ast.List, width int) []string {
	var out []string
	num := n.Start
	for item := n.FirstChild(); item != nil; item = item.NextSibling() {
		marker := "• "
		if n.IsOrdered() {
			marker = strconv.Itoa(num) + ". "
			num++
		}
		mw := Width(marker)
		lines := r.blocks(item, width-mw, n.IsTight)
		if len(lines) == 0 {
			lines = []string{""}
		}
		lines = prefixLines(lines, paint(r.th.Accent, marker), strings.Repeat(" ", mw))
		if n.IsTight || len(out) == 0 {
			out = append(out, lines...)
		} else {
			out = joinBlocks(out, lines)
		}
	}
	return out
}

func prefixLines(lines []string, first, rest string) []string {
	for i, l := range lines {
		if i == 0 {
			lines[i] = first + l
		} else {
			lines[i] = rest + l
		}
	}
	return lines
}

// inline renders the inline children of n as one styled string. outer is the style in effect
// around n, restored after every nested style closes.
func (r *mdRenderer) inline(n ast.Node, outer string) string {
	var b strings.Builder
	r.inlineInto(&b, n, outer)
	return b.String()
}

func (r *mdRenderer) inlineInto(b *strings.Builder, n ast.Node, outer string) {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch c := c.(type) {
		case *ast.Text:
			b.WriteString(sanitize(string(c.Segment.Value(r.src))))
			if c.HardLineBreak() {
				b.WriteByte('\n')
			} else if c.SoftLineBreak() {
				b.WriteByte(' ')
			}
		case *ast.String:
			b.WriteString(sanitize(string(c.Value)))
		case *ast.CodeSpan:
			r.styled(b, c, r.th.Code, outer)
		case *ast.Emphasis:
			style := sItalic
			if c.Level >= 2 {
				style = sBold
			}
			r.styled(b, c, style, outer)
		case *extast.Strikethrough:
			r.styled(b, c, sStrike, outer)
		case *ast.Link:
			r.styled(b, c, sUnderline+r.th.Link, outer)
			if url := string(c.Destination); url != r.inline(c, "") {
				b.WriteString(" " + r.th.Muted + "(" + sanitize(url) + ")" + reset + outer)
			}
		case *ast.AutoLink:
			b.WriteString(r.th.Link + sanitize(string(c.URL(r.src))) + reset + outer)
		case *ast.Image:
			b.WriteString(r.th.Muted + "[image: " + r.inline(c, "") + "]" + reset + outer)
		case *ast.RawHTML:
			for i := 0; i < c.Segments.Len(); i++ {
				seg := c.Segments.At(i)
				b.WriteString(sanitize(string(seg.Value(r.src))))
			}
		default:
			r.inlineInto(b, c, outer)
		}
	}
}

func (r *mdRenderer) styled(b *strings.Builder, n ast.Node, style, outer string) {
	b.WriteString(style)
	r.inlineInto(b, n, outer+style)
	b.WriteString(reset + outer)
}
