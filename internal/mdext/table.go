package mdext

import (
	"github.com/yuin/goldmark/ast"
	extast "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// tableTransformer turns a paragraph that holds a header row followed by a delimiter row into
// a table; the paragraph's lines before the header stay a paragraph. The paragraph has already
// ended where GFM ends a table (a blank line or another block), so every line after the
// delimiter row is a body row.
type tableTransformer struct{}

func (tableTransformer) Transform(para *ast.Paragraph, reader text.Reader, pc parser.Context) {
	lines := para.Lines()
	source := reader.Source()
	for i := 1; i < lines.Len(); i++ {
		delim := lines.At(i)
		aligns := parseDelimiterRow(delim.Value(source))
		if aligns == nil {
			continue
		}
		header := parseRow(source, lines.At(i-1), aligns, true)
		if header.ChildCount() != len(aligns) { // GFM: then the line is no delimiter row
			continue
		}
		table := extast.NewTable()
		table.Alignments = aligns
		table.SetPos(lines.At(i - 1).Start)
		table.AppendChild(table, extast.NewTableHeader(header))
		for j := i + 1; j < lines.Len(); j++ {
			table.AppendChild(table, parseRow(source, lines.At(j), aligns, false))
		}
		parent := para.Parent()
		parent.InsertAfter(parent, para, table)
		lines.SetSliced(0, i-1)
		if lines.Len() == 0 {
			parent.RemoveChild(parent, para)
			return
		}
		last := lines.At(lines.Len() - 1)
		if last.Stop > last.Start && source[last.Stop-1] == '\n' {
			last.Stop-- // the paragraph now ends on this line
		}
		lines.Set(lines.Len()-1, last)
		return
	}
}

// parseDelimiterRow returns the columns' alignments if line is a delimiter row, else nil:
// cells of `-`s with an optional `:` at either end, between pipes (outer ones optional).
func parseDelimiterRow(line []byte) []extast.Alignment {
	if w, _ := util.IndentWidth(line, 0); w > 3 {
		return nil
	}
	line = util.TrimRightSpace(util.TrimLeftSpace(line))
	hasPipe, hasColon := false, false
	for _, b := range line {
		switch b {
		case '|':
			hasPipe = true
		case ':':
			hasColon = true
		case '-', ' ', '\t':
		default:
			return nil
		}
	}
	if !hasPipe && !hasColon { // a line of dashes alone is a setext underline or a rule
		return nil
	}
	var aligns []extast.Alignment
	for _, cell := range splitCells(line) {
		a, ok := cellAlignment(util.TrimRightSpace(util.TrimLeftSpace(line[cell[0]:cell[1]])))
		if !ok {
			return nil
		}
		aligns = append(aligns, a)
	}
	return aligns
}

func cellAlignment(cell []byte) (extast.Alignment, bool) {
	left := len(cell) > 0 && cell[0] == ':'
	right := len(cell) > 1 && cell[len(cell)-1] == ':'
	dashes := cell
	if left {
		dashes = dashes[1:]
	}
	if right {
		dashes = dashes[:len(dashes)-1]
	}
	if len(dashes) == 0 {
		return extast.AlignNone, false
	}
	for _, b := range dashes {
		if b != '-' {
			return extast.AlignNone, false
		}
	}
	switch {
	case left && right:
		return extast.AlignCenter, true
	case left:
		return extast.AlignLeft, true
	case right:
		return extast.AlignRight, true
	}
	return extast.AlignNone, true
}

// splitCells returns the [start, stop) of each cell of a trimmed row: split at pipes that no
// backslash escapes, the outer pipes dropped.
func splitCells(line []byte) [][2]int {
	var cells [][2]int
	start := 0
	if len(line) > 0 && line[0] == '|' {
		start = 1
	}
	for i := start; i < len(line); i++ {
		switch line[i] {
		case '\\':
			i++
		case '|':
			cells = append(cells, [2]int{start, i})
			start = i + 1
		}
	}
	if start < len(line) {
		cells = append(cells, [2]int{start, len(line)})
	}
	return cells
}

// parseRow splits a row into cells whose text is parsed as inline content later. A body row
// is cut or padded to the header's width; the header row keeps all its cells (so that the
// caller can tell a mismatch).
func parseRow(source []byte, line text.Segment, aligns []extast.Alignment, header bool) *extast.TableRow {
	line = line.TrimLeftSpace(source)
	line = line.TrimRightSpace(source)
	row := extast.NewTableRow(aligns)
	row.SetPos(line.Start)
	for i, c := range splitCells(source[line.Start:line.Stop]) {
		if i >= len(aligns) && !header {
			break
		}
		cell := extast.NewTableCell()
		if i < len(aligns) {
			cell.Alignment = aligns[i]
		}
		seg := text.NewSegment(line.Start+c[0], line.Start+c[1])
		seg = seg.TrimLeftSpace(source)
		seg = seg.TrimRightSpace(source)
		cell.SetPos(seg.Start)
		cell.Lines().Append(seg)
		row.AppendChild(row, cell)
	}
	for i := row.ChildCount(); i < len(aligns); i++ {
		cell := extast.NewTableCell()
		cell.Alignment = aligns[i]
		row.AppendChild(row, cell)
	}
	return row
}

// cellPipeTransformer drops the backslash of `\|` inside code spans in table cells: GFM
// escapes a cell's pipes there too, where a backslash otherwise stays as written.
type cellPipeTransformer struct{}

func (cellPipeTransformer) Transform(doc *ast.Document, reader text.Reader, pc parser.Context) {
	source := reader.Source()
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if cell, ok := n.(*extast.TableCell); ok && entering {
			_ = ast.Walk(cell, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
				if span, ok := n.(*ast.CodeSpan); ok && entering {
					unescapePipes(span, source)
				}
				return ast.WalkContinue, nil
			})
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
}

// unescapePipes splits each text of span at `\|`, leaving the backslash out.
func unescapePipes(span *ast.CodeSpan, source []byte) {
	for c := span.FirstChild(); c != nil; {
		next := c.NextSibling()
		t, ok := c.(*ast.Text)
		for ok {
			seg := t.Segment
			at := indexEscapedPipe(source[seg.Start:seg.Stop])
			if at < 0 {
				break
			}
			before := ast.NewRawTextSegment(seg.WithStop(seg.Start + at))
			after := ast.NewRawTextSegment(seg.WithStart(seg.Start + at + 1))
			span.InsertBefore(span, t, before)
			span.InsertBefore(span, t, after)
			span.RemoveChild(span, t)
			t = after
		}
		c = next
	}
}

func indexEscapedPipe(b []byte) int {
	for i := 0; i+1 < len(b); i++ {
		if b[i] == '\\' && b[i+1] == '|' {
			return i
		}
	}
	return -1
}
