package tools

import (
	"bytes"
	"fmt"
	"slices"
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
	spans := make([]span, 0, len(edits))
	for i, e := range edits {
		if e.OldText == "" {
			return "", nil, fmt.Errorf("%s has an empty oldText; give the exact text to replace", label(i))
		}
		start, end, n := findExact(content, e.OldText)
		if n == 0 {
			start, end, n = fuzzyFind(content, e.OldText, fuzzyWindow)
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

// fuzzyWindow is about how much of the original text the fuzzy matcher normalises at a time.
// Its map of where each normalised byte came from costs 16 bytes a byte: over a whole file of
// 1 GB it took 24 GB.
const fuzzyWindow = 64 << 10

// fuzzyFind counts the fuzzy occurrences of sub in content, as strings.Count counts (left to
// right, not overlapping), and, when there is one, returns the span of content it covers. The
// text is compared as fuzzyText sees it, normalised one window of about window bytes at a
// time, with the last len(needle)-1 normalised bytes kept for a match across windows: memory
// grows with the window and sub, not with content.
func fuzzyFind(content, sub string, window int) (start, end, n int) {
	needle := []byte(fuzzyNormalize(sub))
	if len(needle) == 0 {
		return 0, 0, 0
	}
	var f fuzzyText // the normalised text a match may still start in
	var sc fuzzyScratch
	pos := 0 // where in f.s the next match may start: past the last one
	for a := 0; a < len(content); {
		b := fuzzyWindowEnd(content, a, window)
		f.append(content[a:b], a, &sc)
		a = b
		for {
			i := bytes.Index(f.s[pos:], needle)
			if i < 0 {
				break
			}
			i += pos
			if n == 0 {
				start, end = f.from[i], f.to[i+len(needle)-1]
			}
			n++
			pos = i + len(needle)
		}
		drop := max(pos, len(f.s)-len(needle)+1)
		f.drop(drop)
		pos = max(pos-drop, 0)
	}
	return start, end, n
}

// fuzzyWindowEnd returns where the window of s that starts at a ends: window bytes on or up
// to as many again, or at the end of s. It ends after a line break where there is one, so that
// normalisation and the trailing white space rule see whole lines, and in a longer line at a
// point neither reaches across (see fuzzyCut). Only in a stretch of window bytes that has no
// such point (white space or combining marks throughout) is it cut at a plain rune boundary.
func fuzzyWindowEnd(s string, a, window int) int {
	if len(s)-a <= window {
		return len(s)
	}
	lo, hi := a+window, min(len(s), a+2*window)
	if i := strings.IndexByte(s[lo:hi], '\n'); i >= 0 {
		return lo + i + 1
	}
	for k := lo; k < hi; k++ {
		if fuzzyCut(s, k) {
			return k
		}
	}
	k := hi
	for k > lo && k < len(s) && !utf8.RuneStart(s[k]) {
		k--
	}
	return k
}

// fuzzyCut reports whether the text before offset k of s normalises the same alone as it does
// followed by the rest: the rune at k cannot combine with the one before, and that one is not
// white space, which would be trailing if the line ended at k.
func fuzzyCut(s string, k int) bool {
	if !utf8.RuneStart(s[k]) {
		return false
	}
	if r, _ := utf8.DecodeLastRuneInString(s[:k]); unicode.IsSpace(foldTypography(r)) {
		return false
	}
	return s[k] < utf8.RuneSelf || norm.NFKC.PropertiesString(s[k:]).BoundaryBefore()
}

// fuzzyText is a text as the fuzzy matcher sees it — NFKC, typographic quotes, dashes and
// spaces made ASCII, trailing whitespace of each line dropped — with, for every byte, the span
// of the original it came from, so that a fuzzy match replaces exactly the original bytes.
type fuzzyText struct {
	s        []byte
	from, to []int
}

// fuzzyScratch is what fuzzyText.append reuses from one window to the next.
type fuzzyScratch struct {
	b        []byte
	from, to []int
}

// append adds orig, which starts at offset base of the original text and ends at a point
// fuzzyWindowEnd chose, to f.
func (f *fuzzyText) append(orig string, base int, sc *fuzzyScratch) {
	sc.normalize(orig, base)
	keep := trailingSpaceMask(sc.b)
	for i := 0; i < len(keep); {
		if !keep[i] {
			i++
			continue
		}
		j := i + 1
		for j < len(keep) && keep[j] {
			j++
		}
		f.s = append(f.s, sc.b[i:j]...)
		f.from, f.to = append(f.from, sc.from[i:j]...), append(f.to, sc.to[i:j]...)
		i = j
	}
}

// normalize sets sc to orig in NFKC with typography folded, and for each byte the span of the
// original text it came from, orig starting at offset base.
func (sc *fuzzyScratch) normalize(orig string, base int) {
	b, from, to := sc.b[:0], sc.from[:0], sc.to[:0]
	defer func() { sc.b, sc.from, sc.to = b, from, to }()
	if isASCII(orig) { // what NFKC and the folding leave alone, byte for byte
		b = append(b, orig...)
		from, to = slices.Grow(from, len(orig))[:len(orig)], slices.Grow(to, len(orig))[:len(orig)]
		for i := range from {
			from[i], to[i] = base+i, base+i+1
		}
		return
	}
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
				from, to = append(from, base+segStart), append(to, base+p)
			}
			segStart = p
		}
	}
}

// drop forgets the first n bytes of f.
func (f *fuzzyText) drop(n int) {
	f.s = f.s[:copy(f.s, f.s[n:])]
	f.from = f.from[:copy(f.from, f.from[n:])]
	f.to = f.to[:copy(f.to, f.to[n:])]
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
		r, size := rune(b[i-1]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeLastRune(b[:i])
		}
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
