package tools

import (
	"fmt"
	"strings"
	"testing"
)

func TestRequiredLiterals(t *testing.T) {
	tests := []struct {
		pattern    string
		literal    bool
		ignoreCase bool
		want       string // literals joined by |, "" for none
		fold, pure bool
	}{
		{"context.Context", true, false, "context.Context", false, true},
		{`func \w+\(ctx`, false, false, "func ", false, false},
		{`TODO|FIXME`, false, false, "TODO|FIXME", false, false},
		{`(?:foo)+bar`, false, false, "foo", false, false},
		{`deadline exceeded`, false, true, "deadline exceeded", true, false},
		{`Straße`, false, true, "", false, false}, // non-ASCII folding: no prefilter
		{`[A-Z][a-z]+[0-9]{3}`, false, false, "", false, false},
		{`a?b*`, false, false, "", false, false},
		{`x|\d+`, false, false, "", false, false},
	}
	for _, tc := range tests {
		m, err := newMatcher(tc.pattern, tc.literal, tc.ignoreCase)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, l := range m.lits {
			got = append(got, string(l))
		}
		if strings.Join(got, "|") != tc.want || m.fold != tc.fold || m.pure != tc.pure {
			t.Errorf("%q: lits %q fold %v pure %v; want %q %v %v", tc.pattern, got, m.fold, m.pure, tc.want, tc.fold, tc.pure)
		}
	}
}

// FuzzMatcher checks the literal prefilter never changes which lines match: the result must
// equal running the expression on every line.
func FuzzMatcher(f *testing.F) {
	f.Add("alpha\nBeta gamma\n\u212Aelvin\n", "kelvin", true)
	f.Add("TODO one\nFIXME two\nnone\n", "TODO|FIXME", false)
	f.Add("x\n\ny\n", "^$", false)
	f.Fuzz(func(t *testing.T, data, pattern string, ignoreCase bool) {
		m, err := newMatcher(pattern, false, ignoreCase)
		if err != nil {
			return
		}
		var scratch []byte
		got := m.lines([]byte(data), 1<<30, &scratch)
		want := m.eachLine([]byte(data), 1<<30)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("pattern %q on %q: prefiltered %v, every line %v", pattern, data, got, want)
		}
	})
}
