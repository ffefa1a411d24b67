// Package mdext owns pi's goldmark extensions for GitHub's flavour of markdown: tables,
// strikethrough, task list items and bare-URL autolinks, with the HTML renderers of their
// nodes. They stand in for goldmark's own extension package, whose package initialisers
// (linkify and typographer regexps, tables) cost every start of pi some 2,000 allocations
// whether or not anything is rendered; nothing here is built before a parser is. The nodes are
// goldmark's (extension/ast), so renderers that know those keep working. It must not import
// anything of pi's, nor goldmark/extension.
package mdext

import (
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/util"
)

// Table adds GFM tables: a header row, a delimiter row (`| --- | :-: | --: |`) and body rows,
// outer pipes optional, `\|` a pipe inside a cell (code spans too).
type Table struct{}

// Extend implements goldmark.Extender.
func (Table) Extend(m goldmark.Markdown) {
	m.Parser().AddOptions(
		parser.WithParagraphTransformers(util.Prioritized(tableTransformer{}, 200)),
		parser.WithASTTransformers(util.Prioritized(cellPipeTransformer{}, 0)))
	m.Renderer().AddOptions(renderer.WithNodeRenderers(util.Prioritized(tableHTML{}, 500)))
}

// Strikethrough adds `~~text~~` and `~text~`, rendered as <del>.
type Strikethrough struct{}

// Extend implements goldmark.Extender.
func (Strikethrough) Extend(m goldmark.Markdown) {
	m.Parser().AddOptions(parser.WithInlineParsers(util.Prioritized(strikeParser{}, 500)))
	m.Renderer().AddOptions(renderer.WithNodeRenderers(util.Prioritized(strikeHTML{}, 500)))
}

// TaskList adds `[ ]` and `[x]` at the start of a list item, rendered as a disabled checkbox.
type TaskList struct{}

// Extend implements goldmark.Extender.
func (TaskList) Extend(m goldmark.Markdown) {
	m.Parser().AddOptions(parser.WithInlineParsers(util.Prioritized(taskParser{}, 0)))
	m.Renderer().AddOptions(renderer.WithNodeRenderers(util.Prioritized(taskHTML{}, 500)))
}

// Autolink links bare `http://`, `https://` and `www.` URLs (GFM's extended autolinks
// without the e-mail forms). They become goldmark's ast.AutoLink, which every renderer knows.
type Autolink struct{}

// Extend implements goldmark.Extender.
func (Autolink) Extend(m goldmark.Markdown) {
	m.Parser().AddOptions(parser.WithInlineParsers(util.Prioritized(autolinkParser{}, 999)))
}

// GFM is all of the above.
type GFM struct{}

// Extend implements goldmark.Extender.
func (GFM) Extend(m goldmark.Markdown) {
	Table{}.Extend(m)
	Strikethrough{}.Extend(m)
	TaskList{}.Extend(m)
	Autolink{}.Extend(m)
}
