package mdext

import (
	"github.com/yuin/goldmark/ast"
	extast "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/util"
)

// The HTML renderers write what the GFM spec's examples show, but for a cell's alignment,
// which is a style (HTML5 has no align attribute); nodes made by these parsers carry no other
// attributes.

type tableHTML struct{}

func (tableHTML) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(extast.KindTable, renderTable)
	reg.Register(extast.KindTableHeader, renderTableHeader)
	reg.Register(extast.KindTableRow, renderTableRow)
	reg.Register(extast.KindTableCell, renderTableCell)
}

func renderTable(w util.BufWriter, source []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	if entering {
		_, _ = w.WriteString("<table>\n")
	} else {
		_, _ = w.WriteString("</table>\n")
	}
	return ast.WalkContinue, nil
}

func renderTableHeader(w util.BufWriter, source []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	if entering {
		_, _ = w.WriteString("<thead>\n<tr>\n")
		return ast.WalkContinue, nil
	}
	_, _ = w.WriteString("</tr>\n</thead>\n")
	if n.NextSibling() != nil {
		_, _ = w.WriteString("<tbody>\n")
	}
	return ast.WalkContinue, nil
}

func renderTableRow(w util.BufWriter, source []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	if entering {
		_, _ = w.WriteString("<tr>\n")
		return ast.WalkContinue, nil
	}
	_, _ = w.WriteString("</tr>\n")
	if n.NextSibling() == nil {
		_, _ = w.WriteString("</tbody>\n")
	}
	return ast.WalkContinue, nil
}

func renderTableCell(w util.BufWriter, source []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	tag := "td"
	if _, header := n.Parent().(*extast.TableHeader); header {
		tag = "th"
	}
	if !entering {
		_, _ = w.WriteString("</" + tag + ">\n")
		return ast.WalkContinue, nil
	}
	_, _ = w.WriteString("<" + tag)
	if a := n.(*extast.TableCell).Alignment; a != extast.AlignNone {
		_, _ = w.WriteString(` style="text-align:` + a.String() + `"`)
	}
	_ = w.WriteByte('>')
	return ast.WalkContinue, nil
}

type strikeHTML struct{}

func (strikeHTML) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(extast.KindStrikethrough, func(w util.BufWriter, source []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering {
			_, _ = w.WriteString("<del>")
		} else {
			_, _ = w.WriteString("</del>")
		}
		return ast.WalkContinue, nil
	})
}

type taskHTML struct{}

func (taskHTML) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(extast.KindTaskCheckBox, func(w util.BufWriter, source []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		if n.(*extast.TaskCheckBox).IsChecked {
			_, _ = w.WriteString(`<input checked="" disabled="" type="checkbox"> `)
		} else {
			_, _ = w.WriteString(`<input disabled="" type="checkbox"> `)
		}
		return ast.WalkContinue, nil
	})
}
