package session

import (
	"reflect"
	"testing"

	"pi/provider"
)

func TestRowTexts(t *testing.T) {
	cases := []struct {
		name    string
		rows    []TreeRow
		texts   []string
		current int
	}{
		{"none", nil, []string{}, 0},
		{"no current row", []TreeRow{{Text: "a"}, {Text: "b"}}, []string{"a", "b"}, 0},
		{"current last", []TreeRow{{Text: "a"}, {Text: "b"}, {Text: "● c", Current: true}}, []string{"a", "b", "● c"}, 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			texts, current := RowTexts(c.rows)
			if !reflect.DeepEqual(texts, c.texts) || current != c.current {
				t.Fatalf("RowTexts = %q, %d; want %q, %d", texts, current, c.texts, c.current)
			}
		})
	}
}

// TestUserTextsForEditingDropOnlyNamedFiles: a message goes back to the editor (/fork, /tree)
// as typed, its @words attaching their files again when sent; a file
// nothing in the text names (an @file argument of the command line) stays, so nothing is lost.
func TestUserTextsForEditingDropOnlyNamedFiles(t *testing.T) {
	block := "<file name=\"/p/main.go\">\npackage main\n</file>\n"
	cases := []struct{ text, want string }{
		{block + "explain @main.go", "explain @main.go"},
		{block + "explain it", block + "explain it"},
		{"<context>\nx\n</context>\n\n" + block + "explain @main.go", "explain @main.go"},
	}
	for _, c := range cases {
		m := provider.UserText(c.text, 1)
		if got := EditableText(&m); got != c.want {
			t.Errorf("EditableText(%q) = %q, want %q", c.text, got, c.want)
		}
	}
	queued := provider.UserText(block+"explain @main.go", 1)
	if got := messagePreview(&queued); got != "[main.go, 12 B] explain @main.go" {
		t.Errorf("tree row %q", got)
	}
}
