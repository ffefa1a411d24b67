package export

import (
	"bytes"
	"html"
	"html/template"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/util"

	"pi/internal/mdext"
)

// markdown renders text as HTML: GitHub's flavour (tables, task lists, strikethrough,
// autolinks), code blocks highlighted, HTML in the text shown as text (as the terminal UI
// does), unsafe link schemes dropped (goldmark's default).
func markdown(text string) template.HTML {
	md := goldmark.New(goldmark.WithExtensions(mdext.GFM{}),
		goldmark.WithRendererOptions(renderer.WithNodeRenderers(util.Prioritized(codeRenderer{}, 100))))
	var buf bytes.Buffer
	if err := md.Convert([]byte(text), &buf); err != nil {
		return template.HTML("<pre>" + html.EscapeString(text) + "</pre>") // goldmark fails only on write errors
	}
	return template.HTML(buf.String()) // goldmark escapes what it copies from the text
}

// codeRenderer draws fenced code blocks with highlight, and HTML as text.
type codeRenderer struct{}

func (codeRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(ast.KindFencedCodeBlock, renderFenced)
	reg.Register(ast.KindRawHTML, renderRawHTML)
	reg.Register(ast.KindHTMLBlock, renderHTMLBlock)
}

func renderRawHTML(w util.BufWriter, source []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	if entering {
		segs := n.(*ast.RawHTML).Segments
		for i := 0; i < segs.Len(); i++ {
			s := segs.At(i)
			_, _ = w.Write(util.EscapeHTML(s.Value(source)))
		}
	}
	return ast.WalkSkipChildren, nil
}

func renderHTMLBlock(w util.BufWriter, source []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	hb := n.(*ast.HTMLBlock)
	_, _ = w.WriteString("<p>")
	lines := hb.Lines()
	for i := 0; i < lines.Len(); i++ {
		s := lines.At(i)
		_, _ = w.Write(util.EscapeHTML(s.Value(source)))
	}
	if hb.HasClosure() {
		_, _ = w.Write(util.EscapeHTML(hb.ClosureLine.Value(source)))
	}
	_, _ = w.WriteString("</p>\n")
	return ast.WalkSkipChildren, nil
}

func renderFenced(w util.BufWriter, source []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	fb := n.(*ast.FencedCodeBlock)
	lang := string(fb.Language(source))
	var code bytes.Buffer
	lines := fb.Lines()
	for i := 0; i < lines.Len(); i++ {
		seg := lines.At(i)
		code.Write(seg.Value(source))
	}
	_, _ = w.WriteString(`<pre class="code"><code data-lang="` + html.EscapeString(lang) + `">`)
	_, _ = w.WriteString(highlight(code.String(), lang))
	_, _ = w.WriteString("</code></pre>\n")
	return ast.WalkSkipChildren, nil
}
