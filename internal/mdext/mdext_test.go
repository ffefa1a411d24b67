package mdext

import (
	"bytes"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	extast "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
)

func toHTML(t *testing.T, src string) string {
	t.Helper()
	var out bytes.Buffer
	if err := goldmark.New(goldmark.WithExtensions(GFM{})).Convert([]byte(src), &out); err != nil {
		t.Fatalf("convert %q: %v", src, err)
	}
	return out.String()
}

// Samples after the GFM spec's sections on tables, strikethrough, task list items and
// extended autolinks (our own text; the spec's expected structure).
func TestGFMToHTML(t *testing.T) {
	cases := []struct{ name, src, want string }{
		{"table", "| name | size |\n| --- | --- |\n| a.go | 12 |\n",
			"<table>\n<thead>\n<tr>\n<th>name</th>\n<th>size</th>\n</tr>\n</thead>\n<tbody>\n<tr>\n<td>a.go</td>\n<td>12</td>\n</tr>\n</tbody>\n</table>\n"},
		{"alignments, no outer pipes", "left | mid | right | none\n:--- | :-: | --: | -\nl | m | r | n\n",
			"<table>\n<thead>\n<tr>\n<th style=\"text-align:left\">left</th>\n<th style=\"text-align:center\">mid</th>\n<th style=\"text-align:right\">right</th>\n<th>none</th>\n</tr>\n</thead>\n<tbody>\n<tr>\n<td style=\"text-align:left\">l</td>\n<td style=\"text-align:center\">m</td>\n<td style=\"text-align:right\">r</td>\n<td>n</td>\n</tr>\n</tbody>\n</table>\n"},
		{"escaped pipes, in code too", "| a\\|b |\n| --- |\n| `x\\|y` **p\\|q** |\n",
			"<table>\n<thead>\n<tr>\n<th>a|b</th>\n</tr>\n</thead>\n<tbody>\n<tr>\n<td><code>x|y</code> <strong>p|q</strong></td>\n</tr>\n</tbody>\n</table>\n"},
		{"cells are inline content", "| *em* | [l](/u) |\n|---|---|\n",
			"<table>\n<thead>\n<tr>\n<th><em>em</em></th>\n<th><a href=\"/u\">l</a></th>\n</tr>\n</thead>\n</table>\n"},
		{"short and long rows", "| a | b |\n| - | - |\n| 1 |\n| 1 | 2 | 3 |\n",
			"<table>\n<thead>\n<tr>\n<th>a</th>\n<th>b</th>\n</tr>\n</thead>\n<tbody>\n<tr>\n<td>1</td>\n<td></td>\n</tr>\n<tr>\n<td>1</td>\n<td>2</td>\n</tr>\n</tbody>\n</table>\n"},
		{"header and delimiter widths differ: no table", "| a | b |\n| --- |\n| c |\n",
			"<p>| a | b |\n| --- |\n| c |</p>\n"},
		{"ends at a block", "| a |\n| - |\n| b |\n> quote\n",
			"<table>\n<thead>\n<tr>\n<th>a</th>\n</tr>\n</thead>\n<tbody>\n<tr>\n<td>b</td>\n</tr>\n</tbody>\n</table>\n<blockquote>\n<p>quote</p>\n</blockquote>\n"},
		{"paragraph before the header", "intro\n| a |\n| - |\n",
			"<p>intro</p>\n<table>\n<thead>\n<tr>\n<th>a</th>\n</tr>\n</thead>\n</table>\n"},
		{"dashes alone are a heading", "a\n---\n", "<h2>a</h2>\n"},
		{"strikethrough", "~~gone~~ and ~also~\n", "<p><del>gone</del> and <del>also</del></p>\n"},
		{"three tildes are text", "not ~~~this~~~\n", "<p>not ~~~this~~~</p>\n"},
		{"runs of different lengths do not pair", "~~a~ b\n", "<p>~~a~ b</p>\n"},
		{"no strike across paragraphs", "~~a\n\nb~~\n", "<p>~~a</p>\n<p>b~~</p>\n"},
		{"task list", "- [ ] todo\n- [x] done\n- [X] done too\n",
			"<ul>\n<li><input disabled=\"\" type=\"checkbox\"> todo</li>\n<li><input checked=\"\" disabled=\"\" type=\"checkbox\"> done</li>\n<li><input checked=\"\" disabled=\"\" type=\"checkbox\"> done too</li>\n</ul>\n"},
		{"only at an item's start", "- a [ ] b\n- [y] c\n- [x]d\n\n[ ] e\n",
			"<ul>\n<li>a [ ] b</li>\n<li>[y] c</li>\n<li>[x]d</li>\n</ul>\n<p>[ ] e</p>\n"},
		{"www link", "see www.example.org/a.\n", "<p>see <a href=\"http://www.example.org/a\">www.example.org/a</a>.</p>\n"},
		{"https link, balanced parens", "(https://e.org/w/Go_(lang)) x\n",
			"<p>(<a href=\"https://e.org/w/Go_(lang)\">https://e.org/w/Go_(lang)</a>) x</p>\n"},
		{"entity and trailing punctuation", "http://e.org/?q=1&amp; http://e.org/x?!\n",
			"<p><a href=\"http://e.org/?q=1\">http://e.org/?q=1</a>&amp; <a href=\"http://e.org/x\">http://e.org/x</a>?!</p>\n"},
		{"stops at <", "www.e.org/he<lp\n", "<p><a href=\"http://www.e.org/he\">www.e.org/he</a>&lt;lp</p>\n"},
		{"underscore in the last two segments", "www.a_b.c and http://a_b.x.org ok\n",
			"<p>www.a_b.c and <a href=\"http://a_b.x.org\">http://a_b.x.org</a> ok</p>\n"},
		{"localhost", "at http://localhost:8080/x\n", "<p>at <a href=\"http://localhost:8080/x\">http://localhost:8080/x</a></p>\n"},
		{"no link mid-word or without a domain", "xhttp://e.org www. http:// http://-\n",
			"<p>xhttp://e.org www. http:// http://-</p>\n"},
		{"inside a link's text: not again", "[http://a.org](http://b.org)\n",
			"<p><a href=\"http://b.org\">http://a.org</a></p>\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := toHTML(t, c.src); got != c.want {
				t.Errorf("%q:\n got %q\nwant %q", c.src, got, c.want)
			}
		})
	}
}

// The terminal UI walks the tree itself: the nodes and alignments must be goldmark's.
func TestTableTree(t *testing.T) {
	src := []byte("x\n| a | b | c |\n|:-|-:|:-:|\n| 1 |\n")
	doc := goldmark.New(goldmark.WithExtensions(Table{})).Parser().Parse(text.NewReader(src))
	para, ok := doc.FirstChild().(*ast.Paragraph)
	if !ok || string(para.Lines().Value(src)) != "x" {
		t.Fatalf("first block %T, want the paragraph \"x\"", doc.FirstChild())
	}
	table, ok := para.NextSibling().(*extast.Table)
	if !ok {
		t.Fatalf("second block %T, want *ast.Table", para.NextSibling())
	}
	want := []extast.Alignment{extast.AlignLeft, extast.AlignRight, extast.AlignCenter}
	if len(table.Alignments) != 3 || table.Alignments[0] != want[0] || table.Alignments[1] != want[1] || table.Alignments[2] != want[2] {
		t.Errorf("alignments %v, want %v", table.Alignments, want)
	}
	header, ok := table.FirstChild().(*extast.TableHeader)
	if !ok || header.ChildCount() != 3 {
		t.Fatalf("header %T with %d cells", table.FirstChild(), table.FirstChild().ChildCount())
	}
	row, ok := header.NextSibling().(*extast.TableRow)
	if !ok || row.ChildCount() != 3 || row.LastChild().(*extast.TableCell).Alignment != extast.AlignCenter {
		t.Fatalf("body row %T: want 3 cells, the padded last one centred", header.NextSibling())
	}
}
