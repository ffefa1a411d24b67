package tools

import (
	"bytes"
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"
	"testing"
)

// regexpLines is the reference the fast paths must agree with: the expression on every line.
func regexpLines(m *matcher, data []byte) []lineSpan {
	var out []lineSpan
	for pos := 0; pos < len(data); {
		end := len(data)
		if i := bytes.IndexByte(data[pos:], '\n'); i >= 0 {
			end = pos + i
		}
		if m.re.Match(data[pos:end]) {
			out = append(out, lineSpan{pos, end})
		}
		pos = end + 1
	}
	return out
}

func TestLineDFA(t *testing.T) {
	lines := []string{"", "abc", "ABC123", "Foo123 bar", "x\u00e9y", "tab\there", "a.b", "Straße 42", "zzz999",
		"Foo", "a Foo.", "ABC", "xABC", " ", "é", "Fooé"}
	patterns := []string{`[A-Z][a-z]+[0-9]{3}`, `^$`, `^a`, `c$`, `^abc$`, `(?i)abc`, `\d{3}`, `a.b`, `é`, `[^a-z]`,
		`(?i)STRASSE|straße`, `x*`, `\Aabc\z`, `\t`, `(a|b)+c`, `[[:upper:]]{2,}`, `.\d$`,
		`\bFoo\b`, `\b[A-Z]{3}\b`, `\Bbc`, `\b`, `\B`, `^\b`, `\b$`, `o\b`, `\d\B`}
	for _, p := range patterns {
		re := regexp.MustCompile(p)
		tree, _ := syntax.Parse(p, syntax.Perl)
		d := newLineDFA(tree.Simplify())
		if d == nil {
			t.Fatalf("%q: no DFA", p)
		}
		for _, l := range lines {
			if got, want := d.matchLine([]byte(l)), re.MatchString(l); got != want {
				t.Errorf("%q on %q: DFA %v, regexp %v", p, l, got, want)
			}
		}
	}
}

// FuzzLineDFA holds the DFA to regexp's answer on single lines.
func FuzzLineDFA(f *testing.F) {
	f.Add(`[A-Z][a-z]+[0-9]{3}`, "Abc1234")
	f.Add(`^x|y$`, "axy")
	f.Add(`(?i)k`, "\u212a")
	f.Add(`\b[A-Z]+\b`, "x ABC.d")
	f.Add(`^\B.\b$`, "é")
	f.Fuzz(func(t *testing.T, pattern, line string) {
		if strings.Contains(line, "\n") {
			return
		}
		re, err := regexp.Compile(pattern)
		if err != nil {
			return
		}
		tree, _ := syntax.Parse(pattern, syntax.Perl)
		d := newLineDFA(tree.Simplify())
		if d == nil {
			return
		}
		if got, want := d.matchLine([]byte(line)), re.MatchString(line); got != want {
			t.Fatalf("%q on %q: DFA %v, regexp %v", pattern, line, got, want)
		}
	})
}

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
		got := m.lines([]byte(data), 1<<30, &searchScratch{})
		want := regexpLines(m, []byte(data))
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("pattern %q on %q: prefiltered %v, every line %v", pattern, data, got, want)
		}
	})
}

func FuzzLowerASCII(f *testing.F) {
	f.Add([]byte("Hello, WORLD @[`{ \xc3\x89 AZaz"))
	f.Fuzz(func(t *testing.T, b []byte) {
		want := make([]byte, len(b))
		for i, c := range b {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			want[i] = c
		}
		if got := lowerASCII(nil, b); !bytes.Equal(got, want) {
			t.Fatalf("lowerASCII(%q) = %q, want %q", b, got, want)
		}
	})
}
