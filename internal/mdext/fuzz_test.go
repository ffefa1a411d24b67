package mdext

import (
	"bytes"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	extast "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
)

// FuzzGFM: any text parses and renders without a panic, and every table row has as many
// cells as the table has columns.
func FuzzGFM(f *testing.F) {
	for _, s := range []string{
		"| a | b |\n|:-|-:|\n| 1 | 2 | 3 |\n", "a|b\n-|-\n`\\|`|\\\n", "~~a~ ~b~~ ~~~c~~~",
		"- [ ] a\n- [x]\n  - [X] b", "www.a.b/(c)?&x; http://l:1/_ (https://x.y)", "|\n|-|\n||",
	} {
		f.Add(s)
	}
	md := goldmark.New(goldmark.WithExtensions(GFM{}))
	f.Fuzz(func(t *testing.T, src string) {
		var out bytes.Buffer
		if err := md.Convert([]byte(src), &out); err != nil {
			t.Fatalf("convert %q: %v", src, err)
		}
		doc := md.Parser().Parse(text.NewReader([]byte(src)))
		_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
			if table, ok := n.(*extast.Table); ok && entering {
				for row := table.FirstChild(); row != nil; row = row.NextSibling() {
					if row.ChildCount() != len(table.Alignments) {
						t.Fatalf("%q: a row of %d cells in a table of %d columns", src, row.ChildCount(), len(table.Alignments))
					}
				}
			}
			return ast.WalkContinue, nil
		})
	})
}
