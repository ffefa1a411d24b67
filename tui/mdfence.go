package tui

import (
	"strings"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"

	"pi/internal/codelang"
)

// fenceState lays out an open chunk that is a fenced code block still streaming, line by
// line: the lines of complete code lines stay in Markdown.lines between frames, and only new
// lines are highlighted and wrapped. It gives the lines goldmark and mdRenderer.code would
// (TestMarkdownStreamedEqualsParsed checks every prefix), and gives up, for a full parse of the
// chunk, on anything it does not handle: a line that may close the fence, a control byte.
type fenceState struct {
	start   int // offset of the chunk in the source
	spec    *codelang.Spec
	head    string // the fence line as shown
	base    int    // index in Markdown.lines of the first code line
	done    int    // bytes of the chunk laid out: complete code lines, up to the last non-empty one
	end     int    // len(Markdown.lines) after those lines
	inBlock bool   // comment state after them
	empty   int    // empty code lines seen after them
	broken  bool   // the chunk is not (or no longer) one this handles
}

// layOutFence appends the lines of the open chunk to m.lines (which ends with the final
// chunks) when it is a streaming fenced code block, and reports whether it did.
func (m *Markdown) layOutFence(open string) bool {
	f := m.fence
	if f == nil || f.start != m.stableEnd {
		if f = m.startFence(open); f == nil {
			return false
		}
		m.fence = f
	}
	if f.broken {
		return false
	}
	r := &mdRenderer{th: m.th, cache: m.codeCache}
	m.lines = m.lines[:f.end]
	for {
		nl := strings.IndexByte(open[f.done:], '\n')
		if nl < 0 {
			break
		}
		if !f.addLine(m, r, open[f.done:f.done+nl]) {
			return false
		}
		f.done += nl + 1
	}
	last := open[f.done:]
	if !plainCode(last) {
		f.broken = true
		return false
	}
	m.lines = m.lines[:f.end]
	switch inBlock := f.inBlock; {
	case last != "":
		for range f.empty {
			m.lines, inBlock = m.appendCode(r, "", f.spec, inBlock)
		}
		m.lines, _ = m.appendCode(r, sanitize(last), f.spec, inBlock)
	case f.end == f.base: // no code yet: one empty line, as an empty body gives
		m.lines, _ = m.appendCode(r, "", f.spec, false)
	}
	m.lines = append(m.lines, paint(m.th.CodeFence, "```"))
	return true
}

// addLine takes one complete code line; it reports false when the chunk must be parsed.
func (f *fenceState) addLine(m *Markdown, r *mdRenderer, line string) bool {
	if !plainCode(line) {
		f.broken = true
		return false
	}
	if line == "" { // trailing empty lines are not shown until a line with text follows
		f.empty++
		return true
	}
	m.lines = m.lines[:f.end]
	for ; f.empty > 0; f.empty-- {
		m.lines, f.inBlock = m.appendCode(r, "", f.spec, f.inBlock)
	}
	m.lines, f.inBlock = m.appendCode(r, sanitize(line), f.spec, f.inBlock)
	f.end = len(m.lines)
	return true
}

func (m *Markdown) appendCode(r *mdRenderer, line string, spec *codelang.Spec, inBlock bool) ([]string, bool) {
	lines, after := r.codeLine(line, spec, inBlock, m.width)
	return append(m.lines, lines...), after
}

// startFence begins the line-by-line layout of open, which must start with a complete
// opening fence line (as goldmark reads it) at column 0; nil otherwise.
func (m *Markdown) startFence(open string) *fenceState {
	nl := strings.IndexByte(open, '\n')
	if nl < 0 || !(strings.HasPrefix(open, "```") || strings.HasPrefix(open, "~~~")) {
		return nil
	}
	head := []byte(open[:nl+1])
	n, ok := m.parser.Parse(text.NewReader(head)).FirstChild().(*ast.FencedCodeBlock)
	if !ok {
		return nil
	}
	lang := string(n.Language(head))
	m.lines = joinBlocks(m.lines, []string{Truncate(paint(m.th.CodeFence, "```"+lang), m.width, "")})
	f := &fenceState{start: m.stableEnd, spec: codelang.Lookup(strings.ToLower(lang)), done: nl + 1}
	f.base, f.end, f.head = len(m.lines), len(m.lines), m.lines[len(m.lines)-1]
	return f
}

// plainCode is true for a code line this layout handles like goldmark: one that cannot be
// (or grow into) a closing fence, without control characters but tabs (goldmark reads a lone
// CR as a line end, sanitize would drop an escape sequence running over lines).
func plainCode(line string) bool {
	if t := strings.TrimLeft(line, " \t"); strings.HasPrefix(t, "`") || strings.HasPrefix(t, "~") {
		return false
	}
	for i := 0; i < len(line); i++ {
		if c := line[i]; (c < 0x20 && c != '\t') || c == 0x7f {
			return false
		}
	}
	return true
}
