package tools

import (
	"fmt"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Edit is one replacement: OldText must occur exactly once in the file.
type Edit struct {
	OldText string `json:"oldText"`
	NewText string `json:"newText"`
}

// span is where edit idx matched in the original text, [start, end).
type span struct{ start, end, idx int }

// applyEdits replaces every edit's OldText in content (LF line endings, no BOM) with its NewText.
// Every edit is matched against the original content, exactly if possible and otherwise after
// fuzzy normalisation (see fuzzyText); only the matched bytes change, so the rest of the file
// keeps its quotes, dashes and spacing. name is used in errors.
func applyEdits(content string, edits []Edit, name string) (string, []span, error) {
	label := func(i int) string {
		if len(edits) == 1 {
			return "the edit"
		}
		return fmt.Sprintf("edits[%d]", i)
	}
	var fuzzy *fuzzyText
	spans := make([]span, 0, len(edits))
	for i, e := range edits {
		if e.OldText == "" {
			return "", nil, fmt.Errorf("%s has an empty oldText; give the exact text to replace", label(i))
		}
		start, end, n := findExact(content, e.OldText)
		if n == 0 {
			if fuzzy == nil {
				f := newFuzzyText(content)
				fuzzy = &f
			}
			start, end, n = fuzzy.find(e.OldText)
		}
		switch {
		case n == 0:
			return "", nil, fmt.Errorf("%s: oldText was not found in %s. It must match the file exactly, "+
				"including whitespace and line breaks; read the file again if unsure", label(i), name)
		case n > 1:
			return "", nil, fmt.Errorf("%s: oldText occurs %d times in %s; add surrounding lines so it "+
				"matches only once", label(i), n, name)
		}
		spans = append(spans, span{start, end, i})
	}
	sort.Slice(spans, func(a, b int) bool { return spans[a].start < spans[b].start })
	for k := 1; k < len(spans); k++ {
		if spans[k].start < spans[k-1].end {
			a, b := min(spans[k-1].idx, spans[k].idx), max(spans[k-1].idx, spans[k].idx)
			return "", nil, fmt.Errorf("edits[%d] and edits[%d] overlap in %s; merge them into one edit", a, b, name)
		}
	}
	var out strings.Builder
	prev := 0
	for _, s := range spans {
		out.WriteString(content[prev:s.start])
		out.WriteString(edits[s.idx].NewText)
		prev = s.end
	}
	out.WriteString(content[prev:])
	if out.String() == content {
		return "", nil, fmt.Errorf("the edits leave %s unchanged; oldText and newText must differ", name)
	}
	return out.String(), spans, nil
}

func findExact(s, sub string) (start, end, n int) {
	n = strings.Count(s, sub)
	if n == 1 {
		start = strings.Index(s, sub)
		end = start + len(sub)
	}
	return start, end, n
}

// fuzzyText is a text as the fuzzy matcher sees it — NFKC, typographic quotes, dashes and
// spaces made ASCII, trailing whitespace of each line dropped — with, for every byte, the span
// of the original it came from, so that a fuzzy match replaces exactly the original bytes.
type fuzzyText struct {
	s        string
	from, to []int
}

func newFuzzyText(orig string) fuzzyText {
	var b []byte
	var from, to []int
	var it norm.Iter
	it.InitString(norm.NFKC, orig)
	// The iterator may hand out one segment's output in pieces before its position moves, so
	// output bytes past len(from) wait until the input they came from is known.
	segStart := 0
	for !it.Done() {
		for seg := it.Next(); len(seg) > 0; {
			r, size := utf8.DecodeRune(seg)
			seg = seg[size:]
			b = utf8.AppendRune(b, foldTypography(r))
		}
		if p := it.Pos(); p > segStart || it.Done() {
			for len(from) < len(b) {
				from, to = append(from, segStart), append(to, p)
			}
			segStart = p
		}
	}
	keep := trailingSpaceMask(b)
	f := fuzzyText{from: from[:0], to: to[:0]}
	out := b[:0]
	for i, c := range b {
		if keep[i] {
			out = append(out, c)
			f.from, f.to = append(f.from, from[i]), append(f.to, to[i])
		}
	}
	f.s = string(out)
	return f
}

// find counts the fuzzy occurrences of sub and, when there is one, maps it back to the original.
func (f *fuzzyText) find(sub string) (start, end, n int) {
	needle := fuzzyNormalize(sub)
	if needle == "" {
		return 0, 0, 0
	}
	a, b, n := findExact(f.s, needle)
	if n != 1 {
		return 0, 0, n
	}
	return f.from[a], f.to[b-1], 1
}

// fuzzyNormalize applies fuzzyText's normalisation to s.
func fuzzyNormalize(s string) string {
	b := []byte(norm.NFKC.String(s))
	b = []byte(strings.Map(foldTypography, string(b)))
	keep := trailingSpaceMask(b)
	out := b[:0]
	for i, c := range b {
		if keep[i] {
			out = append(out, c)
		}
	}
	return string(out)
}

// trailingSpaceMask marks the bytes of b to keep: all but the whitespace ending each line.
func trailingSpaceMask(b []byte) []bool {
	keep := make([]bool, len(b))
	trailing := true // scanning backwards, still inside the whitespace that ends a line
	for i := len(b); i > 0; {
		r, size := utf8.DecodeLastRune(b[:i])
		i -= size
		switch {
		case r == '\n':
			keep[i], trailing = true, true
		case trailing && unicode.IsSpace(r):
		default:
			trailing = false
			for k := i; k < i+size; k++ {
				keep[k] = true
			}
		}
	}
	return keep
}

// foldTypography maps the characters models retype differently — curly quotes, Unicode dashes
// and special spaces — to their ASCII forms.
func foldTypography(r rune) rune {
	switch {
	case r >= 0x2018 && r <= 0x201B:
		return '\''
	case r >= 0x201C && r <= 0x201F:
		return '"'
	case r >= 0x2010 && r <= 0x2015, r == 0x2212:
		return '-'
	case r == 0x00A0, r >= 0x2002 && r <= 0x200A, r == 0x202F, r == 0x205F, r == 0x3000:
		return ' '
	}
	return r
}
