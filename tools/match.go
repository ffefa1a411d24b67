package tools

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"regexp"
	"regexp/syntax"
	"unicode/utf8"
)

// matcher finds matching lines. Go's regexp scans text at a few tens of MB/s, far slower than a
// byte search, so when every match must contain one of a few literal strings the matcher first
// looks for those with bytes.Index (SIMD) and runs the expression only on the lines they hit.
type matcher struct {
	re   *regexp.Regexp
	lits [][]byte // every match contains one of these; none known when empty
	fold bool     // lits are ASCII lower case and must be found case-insensitively
	// foldRisky: a literal has k or s, which also fold from U+212A KELVIN SIGN and U+017F LONG S;
	// files holding those are searched with the expression alone.
	foldRisky bool
	pure      bool // the pattern is exactly lits[0]: a hit needs no check by re
	// dfa screens lines when there are no literals; nil when the pattern has word boundaries.
	dfa *lineDFA
}

// searchScratch is one worker's reusable state: the lowered copy of a file for
// case-insensitive literals, and its own DFA, whose cache grows as it runs.
type searchScratch struct {
	lower []byte
	dfa   *lineDFA
}

func newMatcher(pattern string, literal, ignoreCase bool) (*matcher, error) {
	expr := pattern
	if literal {
		expr = regexp.QuoteMeta(pattern)
	}
	if ignoreCase {
		expr = "(?i)" + expr
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, fmt.Errorf("invalid regular expression %q: %w (set literal to search plain text)", pattern, err)
	}
	m := &matcher{re: re}
	tree, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return m, nil
	}
	tree = tree.Simplify()
	lits, fold, ok := requiredLiterals(tree)
	if !ok {
		m.dfa = newLineDFA(tree)
		return m, nil
	}
	for _, l := range lits {
		if fold && bytes.ContainsAny(l, "ks") {
			m.foldRisky = true
		}
	}
	m.lits, m.fold = lits, fold
	m.pure = !fold && len(lits) == 1 && tree.Op == syntax.OpLiteral
	return m, nil
}

// requiredLiterals returns strings of which every match of re contains at least one, choosing
// the longest where there is a choice. fold means they are to be found ignoring ASCII case.
// ok is false when no useful set exists (an empty string, a newline, non-ASCII folding, or
// more than eight alternatives).
func requiredLiterals(re *syntax.Regexp) (lits [][]byte, fold, ok bool) {
	switch re.Op {
	case syntax.OpLiteral:
		s := string(re.Rune)
		fold = re.Flags&syntax.FoldCase != 0
		if s == "" || bytes.ContainsRune([]byte(s), '\n') || fold && !isASCII(s) {
			return nil, false, false
		}
		if fold {
			s = string(lowerASCII(nil, []byte(s)))
		}
		return [][]byte{[]byte(s)}, fold, true
	case syntax.OpCapture, syntax.OpPlus:
		return requiredLiterals(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return requiredLiterals(re.Sub[0])
		}
	case syntax.OpConcat:
		best := -1
		for _, sub := range re.Sub {
			l, f, ok := requiredLiterals(sub)
			if ok && (best < 0 || shortest(l) > best) {
				lits, fold, best = l, f, shortest(l)
			}
		}
		return lits, fold, best >= 0
	case syntax.OpAlternate:
		for _, sub := range re.Sub {
			l, f, ok := requiredLiterals(sub)
			if !ok || (len(lits) > 0 && f != fold) {
				return nil, false, false
			}
			lits, fold = append(lits, l...), f
		}
		return lits, fold, len(lits) <= 8
	}
	return nil, false, false
}

func shortest(lits [][]byte) int {
	n := math.MaxInt
	for _, l := range lits {
		n = min(n, len(l))
	}
	return n
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// lowerASCII writes src with A-Z lowered into dst's storage; lengths stay equal, so offsets in
// the result are offsets in src. It works on eight bytes at a time: this pass is most of the
// cost of a case-insensitive search.
func lowerASCII(dst, src []byte) []byte {
	if cap(dst) < len(src) {
		dst = make([]byte, len(src))
	}
	dst = dst[:len(src)]
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	i := 0
	for ; i+8 <= len(src); i += 8 {
		w := binary.LittleEndian.Uint64(src[i:])
		low7 := w &^ highs
		geA := low7 + (0x80-'A')*ones    // high bit set where the byte is >= 'A'
		gtZ := low7 + (0x80-'Z'-1)*ones  // high bit set where the byte is > 'Z'
		upper := geA &^ gtZ &^ w & highs // and where the byte is ASCII
		binary.LittleEndian.PutUint64(dst[i:], w|upper>>2)
	}
	for ; i < len(src); i++ {
		c := src[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		dst[i] = c
	}
	return dst
}

type lineSpan struct{ start, end int } // a line's bytes, without its newline

// lines returns up to n matching lines of data, in order. scratch is reused for the lowered
// copy that case-insensitive literals are searched in.
func (m *matcher) lines(data []byte, n int, sc *searchScratch) []lineSpan {
	if len(m.lits) == 0 || m.foldRisky && (bytes.Contains(data, []byte("\u212A")) || bytes.Contains(data, []byte("\u017F"))) {
		return m.eachLine(data, n, sc)
	}
	hay := data
	if m.fold {
		sc.lower = lowerASCII(sc.lower, data)
		hay = sc.lower
	}
	var out []lineSpan
	f := newMultiFinder(hay, m.lits)
	for pos := 0; pos < len(data) && len(out) < n; {
		hit := f.next(pos)
		if hit < 0 {
			break
		}
		start := pos + bytes.LastIndexByte(data[pos:hit], '\n') + 1
		end := len(data)
		if i := bytes.IndexByte(data[hit:], '\n'); i >= 0 {
			end = hit + i
		}
		if m.pure || m.re.Match(data[start:end]) {
			out = append(out, lineSpan{start, end})
		}
		pos = end + 1
	}
	return out
}

// eachLine tests every line: with the DFA where there is one, then with the expression itself,
// which on a single short line runs regexp's fastest general engine (backtracking).
func (m *matcher) eachLine(data []byte, n int, sc *searchScratch) []lineSpan {
	if m.dfa != nil {
		if sc.dfa == nil {
			sc.dfa = m.dfa.clone()
		}
		return m.dfaLines(data, n, sc.dfa)
	}
	var out []lineSpan
	for pos := 0; pos < len(data) && len(out) < n; {
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

// dfaLines finds lines with the DFA and confirms each with the expression.
func (m *matcher) dfaLines(data []byte, n int, dfa *lineDFA) []lineSpan {
	var out []lineSpan
	for pos := 0; pos < len(data) && len(out) < n; {
		start, end := dfa.nextLine(data, pos)
		if start < 0 {
			break
		}
		if m.re.Match(data[start:end]) {
			out = append(out, lineSpan{start, end})
		}
		pos = end + 1
	}
	return out
}

// multiFinder yields the next position at which any of several literals occurs, searching for
// each only when the scan has passed its last known occurrence.
type multiFinder struct {
	hay  []byte
	lits [][]byte
	at   []int // next known occurrence of each literal; -1 unknown; len(hay) none left
}

func newMultiFinder(hay []byte, lits [][]byte) *multiFinder {
	at := make([]int, len(lits))
	for i := range at {
		at[i] = -1
	}
	return &multiFinder{hay, lits, at}
}

func (f *multiFinder) next(pos int) int {
	best := len(f.hay)
	for i, lit := range f.lits {
		if f.at[i] < pos {
			f.at[i] = len(f.hay)
			if j := bytes.Index(f.hay[pos:], lit); j >= 0 {
				f.at[i] = pos + j
			}
		}
		best = min(best, f.at[i])
	}
	if best == len(f.hay) {
		return -1
	}
	return best
}
