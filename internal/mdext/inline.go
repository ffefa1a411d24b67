package mdext

import (
	"github.com/yuin/goldmark/ast"
	extast "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// strikeParser reads runs of one or two tildes as delimiters; a pair of runs of the same
// length around text makes a Strikethrough (GFM: three or more tildes are text).
type strikeParser struct{}

func (strikeParser) Trigger() []byte { return []byte{'~'} }

func (strikeParser) Parse(parent ast.Node, block text.Reader, pc parser.Context) ast.Node {
	before := block.PrecendingCharacter()
	line, segment := block.PeekLine()
	d := parser.ScanDelimiter(line, before, 1, strikeDelimiter{})
	// before == '~': the rest of a run too long to be a delimiter, which stays text.
	if d == nil || d.OriginalLength > 2 || before == '~' {
		return nil
	}
	d.Segment = segment.WithStop(segment.Start + d.OriginalLength)
	block.Advance(d.OriginalLength)
	pc.PushDelimiter(d)
	return d
}

func (strikeParser) CloseBlock(parent ast.Node, pc parser.Context) {}

type strikeDelimiter struct{}

func (strikeDelimiter) IsDelimiter(b byte) bool { return b == '~' }

func (strikeDelimiter) CanOpenCloser(opener, closer *parser.Delimiter) bool {
	return opener.Char == closer.Char && opener.OriginalLength == closer.OriginalLength
}

func (strikeDelimiter) OnMatch(consumes int) ast.Node { return extast.NewStrikethrough() }

// taskParser reads `[ ]`, `[x]` or `[X]` followed by white space at the very start of a list
// item's first paragraph.
type taskParser struct{}

func (taskParser) Trigger() []byte { return []byte{'['} }

func (taskParser) Parse(parent ast.Node, block text.Reader, pc parser.Context) ast.Node {
	item, ok := parent.Parent().(*ast.ListItem)
	if !ok || item.FirstChild() != parent || parent.HasChildren() {
		return nil
	}
	line, _ := block.PeekLine()
	if len(line) < 3 || line[0] != '[' || line[2] != ']' || !(line[1] == ' ' || line[1] == '\t' || line[1] == 'x' || line[1] == 'X') {
		return nil
	}
	n := 3
	if n < len(line) && !util.IsSpace(line[n]) {
		return nil
	}
	for n < len(line) && (line[n] == ' ' || line[n] == '\t') {
		n++
	}
	block.Advance(n)
	return extast.NewTaskCheckBox(line[1] == 'x' || line[1] == 'X')
}

func (taskParser) CloseBlock(parent ast.Node, pc parser.Context) {}
