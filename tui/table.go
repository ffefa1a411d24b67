package tui

import (
	"strings"

	extast "github.com/yuin/goldmark/extension/ast"
)

const tableSep = " │ "

// table lays out a GFM table: cells wrap inside their columns, columns shrink (widest first)
// to fit the width, and a table whose widths were frozen keeps them (see Markdown.Freeze).
func (r *mdRenderer) table(t *extast.Table, width int) []string {
	var rows [][]string
	for row := t.FirstChild(); row != nil; row = row.NextSibling() {
		var cells []string
		for c := row.FirstChild(); c != nil; c = c.NextSibling() {
			style := ""
			if _, header := row.(*extast.TableHeader); header {
				style = sBold
			}
			cells = append(cells, style+r.inline(c, style)+resetIf(style))
		}
		rows = append(rows, cells)
	}
	cols := len(t.Alignments)
	for _, row := range rows {
		cols = max(cols, len(row))
	}
	if cols == 0 {
		return nil
	}
	widths := r.columnWidths(rows, cols, width)
	r.tables = append(r.tables, widths)
	var out []string
	for i, row := range rows {
		out = append(out, r.tableRow(row, widths, t.Alignments)...)
		if i == 0 {
			parts := make([]string, len(widths))
			for k, w := range widths {
				parts[k] = strings.Repeat("─", w)
			}
			out = append(out, paint(r.th.Muted, strings.Join(parts, "─┼─")))
		}
	}
	return out
}

func resetIf(style string) string {
	if style == "" {
		return ""
	}
	return reset
}

// columnWidths returns the frozen widths for this table if there are any, else the natural
// widths shrunk to fit.
func (r *mdRenderer) columnWidths(rows [][]string, cols, width int) []int {
	if n := len(r.tables); n < len(r.frozen) && len(r.frozen[n]) > 0 {
		widths := append([]int(nil), r.frozen[n]...)
		for len(widths) < cols {
			widths = append(widths, 3)
		}
		return widths
	}
	widths := make([]int, cols)
	for _, row := range rows {
		for i, c := range row {
			widths[i] = max(widths[i], Width(c), 1)
		}
	}
	budget := width - Width(tableSep)*(cols-1)
	for sum(widths) > budget {
		widest := 0
		for i, w := range widths {
			if w > widths[widest] {
				widest = i
			}
		}
		if widths[widest] <= 3 {
			break
		}
		widths[widest]--
	}
	return widths
}

func sum(xs []int) int {
	s := 0
	for _, x := range xs {
		s += x
	}
	return s
}

// tableRow lays out one row: each cell wrapped to its column, the row as tall as its tallest
// cell, cells padded by alignment.
func (r *mdRenderer) tableRow(cells []string, widths []int, align []extast.Alignment) []string {
	wrapped := make([][]string, len(widths))
	height := 1
	for i, w := range widths {
		cell := ""
		if i < len(cells) {
			cell = cells[i]
		}
		wrapped[i] = Wrap(cell, w)
		height = max(height, len(wrapped[i]))
	}
	out := make([]string, height)
	for line := range height {
		parts := make([]string, len(widths))
		for i, w := range widths {
			s := ""
			if line < len(wrapped[i]) {
				s = wrapped[i][line]
			}
			a := extast.AlignNone
			if i < len(align) {
				a = align[i]
			}
			parts[i] = alignCell(s, w, a)
		}
		out[line] = strings.TrimRight(strings.Join(parts, paint(r.th.Muted, tableSep)), " ")
	}
	return out
}

func alignCell(s string, w int, a extast.Alignment) string {
	pad := w - Width(s)
	if pad <= 0 {
		return s
	}
	switch a {
	case extast.AlignRight:
		return strings.Repeat(" ", pad) + s
	case extast.AlignCenter:
		return strings.Repeat(" ", pad/2) + s + strings.Repeat(" ", pad-pad/2)
	}
	return s + strings.Repeat(" ", pad)
}
