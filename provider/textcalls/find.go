// Package textcalls recovers tool calls that a model wrote as text: small and quantised models,
// and servers whose chat template does not parse tool calls, put the call in the reply's text
// instead of the structured field. The shapes it knows are a table (shapes.go): each entry names
// a format, says how its opening markup is spotted, reads it, and carries its samples, so a new
// model family's shape is one entry. A shape becomes a call only when every call in it names a
// tool the request offered, every argument was understood, and it is the reply's own action —
// not markup shown in a code block or inline code, not a call the user's own prompt quoted.
//
// Find is the parser. Stream sits between an adapter and its provider.Builder: it holds back
// text that may be the start of such markup, so a front end never shows it as prose, and at the
// end of a reply with no structured calls turns what it recognised into tool calls.
//
// It owns the recognition of these shapes only; it must not decide which tools exist or run
// anything.
package textcalls

import (
	"math/bits"
	"strings"
)

// Call is one tool call read from text.
type Call struct {
	Name      string
	Arguments map[string]any
}

// Match is one piece of markup holding calls: Text[Start:End] is the markup. Thinking is
// reasoning the markup carried (harmony's analysis channel), Keep text it carried for the reader
// (harmony's final channel); both are shown in its place.
type Match struct {
	Start, End int
	Format     string
	Calls      []Call
	Thinking   string
	Keep       string
}

// scan is one look at a reply: the text so far, whether it is complete, and what the request
// offered.
type scan struct {
	text    string
	final   bool
	offered func(string) bool
	typeOf  func(tool, param string) string // JSON Schema type of a parameter, "" when unknown
	prefer  string                          // the format this model used last: tried first
	names   []string                        // the offered tools' names, for a stream's partial lines
	memo    searches                        // a stream's unfinished searches (search.go)
	stream  bool                            // the text will grow: searches are remembered
	// escapableName says an offered name holds a character a JSON escape other than \u writes.
	escapableName bool
}

// paramType is the schema type of a tool's parameter, "" when unknown.
func (sc *scan) paramType(tool, param string) string {
	if sc.typeOf == nil {
		return ""
	}
	return sc.typeOf(tool, param)
}

// offeredPrefix reports whether some offered tool's name begins with s.
func (sc *scan) offeredPrefix(s string) bool {
	for _, n := range sc.names {
		if strings.HasPrefix(n, s) {
			return true
		}
	}
	return false
}

// result is what a reader made of the markup at one place. more says it cannot decide before
// more text arrives (never when the scan is final). Otherwise calls == nil means it is not
// this shape (or not a call), and scanning resumes at end.
type result struct {
	end      int
	calls    []Call
	thinking string
	keep     string
	more     bool
}

func undecided() result { return result{more: true} }

// notCall resumes the scan at end.
func notCall(end int) result { return result{end: end} }

// Find returns the markup in text[from:] whose calls all name offered tools, in order. Line
// starts are judged on the whole text, so a caller holding a tail of a longer reply passes the
// whole reply and the tail's start. Without the tools' schemas, XML parameter values stay
// strings.
func Find(text string, from int, offered func(string) bool) []Match {
	return find(&scan{text: text, final: true, offered: offered}, from)
}

func find(sc *scan, from int) []Match {
	var out []Match
	pos := from
	for pos < len(sc.text) {
		i, cands, _ := sc.next(pos)
		if i < 0 {
			break
		}
		m, end, _ := sc.readAt(i, cands)
		if m != nil {
			out = append(out, *m)
		}
		pos = max(end, i+1)
	}
	return out
}

// readAt tries the shapes spotted at i, the model's last format first. It returns the match
// (nil when none holds offered calls), where scanning resumes, and whether a shape needs more
// text to decide.
func (sc *scan) readAt(i int, cands shapeSet) (*Match, int, bool) {
	end, more := i+1, false
	try := func(s *shape) *Match {
		r := s.read(sc, i)
		if r.more {
			more = true
			return nil
		}
		if r.calls != nil && allOffered(r.calls, sc.offered) {
			return &Match{Start: i, End: r.end, Format: s.format, Calls: r.calls, Thinking: r.thinking, Keep: r.keep}
		}
		end = max(end, r.end)
		return nil
	}
	for _, preferred := range [2]bool{true, false} {
		for set := cands; set != 0; set &= set - 1 {
			s := &shapes[bits.TrailingZeros64(uint64(set))]
			if (s.format == sc.prefer) == preferred {
				if m := try(s); m != nil {
					return m, m.End, false
				}
			}
		}
	}
	return nil, end, more
}

func allOffered(calls []Call, offered func(string) bool) bool {
	if len(calls) == 0 {
		return false
	}
	for _, c := range calls {
		if offered == nil || !offered(c.Name) {
			return false
		}
	}
	return true
}

// tagBytes are the bytes markup that may stand anywhere in a line begins with; the shapes
// that must open a line are tried at each line's first character.
const tagBytes = "<[{`~\n"

// next finds the first place at or after from where markup may start and the shapes that may
// start there. partial says the text ends inside what may become an opener (e.g. "<tool_"),
// which a stream must hold back; then i is where it starts and no shape is returned.
func (sc *scan) next(from int) (int, shapeSet, bool) {
	text := sc.text
	lineStart := atLineStart(text, from)
	for i := from; i < len(text); {
		if lineStart {
			lineStart = false
			for i < len(text) && (text[i] == ' ' || text[i] == '\t') {
				i++
			}
			if i == len(text) {
				break
			}
			if cands, partial := sc.shapesAt(i, true); partial || cands != 0 {
				return i, cands, partial
			}
			if text[i] == '\n' {
				lineStart = true
			}
			i++
			continue
		}
		for i < len(text) && !isTagByte[text[i]] {
			i++
		}
		if i == len(text) {
			break
		}
		if text[i] == '\n' {
			i++
			lineStart = true
			continue
		}
		if cands, partial := sc.shapesAt(i, false); partial || cands != 0 {
			return i, cands, partial
		}
		i++
	}
	return -1, 0, false
}

var isTagByte = func() (is [256]bool) {
	for _, c := range []byte(tagBytes) {
		is[c] = true
	}
	return is
}()

// shapeSet is a set of the shapes' indexes in the table.
type shapeSet uint64

const _ = uint(64 - len(shapes)) // a shapeSet holds every shape

// firstByte and secondByte list, for each byte, the shapes that may have it first (second) in
// their opener: those with an opener that does, and those spotted otherwise. A shape outside
// both sets at a place cannot start there. Computed once and never written.
var firstByte, secondByte = func() (first, second [256]shapeSet) {
	for k, s := range shapes {
		for c := range first {
			if s.spot != nil {
				first[c] |= 1 << k
				second[c] |= 1 << k
			}
		}
		for _, op := range s.openers {
			first[op[0]] |= 1 << k
			for c := range second {
				if len(op) == 1 || op[1] == byte(c) {
					second[c] |= 1 << k
				}
			}
		}
	}
	return first, second
}()

// mayOpen is the set of shapes that may start at i, by its first two bytes.
func (sc *scan) mayOpen(i int) shapeSet {
	set := firstByte[sc.text[i]]
	if i+1 < len(sc.text) {
		set &= secondByte[sc.text[i+1]]
	}
	return set
}

// shapesAt lists the shapes whose opener is at i; partial says the text ends inside one.
func (sc *scan) shapesAt(i int, lineStart bool) (shapeSet, bool) {
	return sc.shapesAmong(sc.mayOpen(i), i, lineStart)
}

// shapesAmong is shapesAt trying only the shapes of set.
func (sc *scan) shapesAmong(set shapeSet, i int, lineStart bool) (shapeSet, bool) {
	inlineCode := i > 0 && sc.text[i-1] == '`' // `<tool_call>` in inline code is a mention
	var cands shapeSet
	for ; set != 0; set &= set - 1 {
		k := bits.TrailingZeros64(uint64(set))
		s := &shapes[k]
		if s.lineStart && !lineStart || !s.lineStart && inlineCode {
			continue
		}
		switch s.spotAt(sc, i) {
		case spotYes:
			cands |= 1 << k
		case spotPartial:
			return 0, true
		}
	}
	return cands, false
}

type spot int

const (
	spotNo spot = iota
	spotYes
	spotPartial
)

func (s *shape) spotAt(sc *scan, i int) spot {
	if s.spot != nil {
		return s.spot(sc, i)
	}
	return literalSpot(sc.text[i:], s.openers)
}

func literalSpot(rest string, openers []string) spot {
	for _, op := range openers {
		if rest[0] != op[0] {
			continue
		}
		if strings.HasPrefix(rest, op) {
			return spotYes
		}
		if len(rest) < len(op) && strings.HasPrefix(op, rest) {
			return spotPartial
		}
	}
	return spotNo
}

func isIdent(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// atLineStart reports whether only spaces or tabs stand between the last newline (or the start
// of the text) and i.
func atLineStart(text string, i int) bool {
	for j := i - 1; j >= 0; j-- {
		switch text[j] {
		case '\n':
			return true
		case ' ', '\t':
		default:
			return false
		}
	}
	return true
}

func skipSpace(text string, i int) int {
	for i < len(text) && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r') {
		i++
	}
	return i
}

// pending reports whether a stream must wait at p: the text ends there, or with the beginning
// of one of toks.
func pending(sc *scan, p int, toks ...string) bool {
	if sc.final {
		return false
	}
	rest := sc.text[p:]
	for _, t := range toks {
		if len(rest) < len(t) && strings.HasPrefix(t, rest) {
			return true
		}
	}
	return rest == ""
}

// closeOrEnd finds closeTag at or after from: the body's end and the end of the markup. When the
// tag is missing, a final scan ends the body at the end of the text; otherwise ok is false.
func closeOrEnd(sc *scan, from int, closeTag string) (bodyEnd, end int, ok bool) {
	if j := sc.index(from, closeTag); j >= 0 {
		return j, j + len(closeTag), true
	}
	if sc.final {
		return len(sc.text), len(sc.text), true
	}
	return 0, 0, false
}
