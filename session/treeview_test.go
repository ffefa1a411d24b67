package session

import (
	"reflect"
	"testing"
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
