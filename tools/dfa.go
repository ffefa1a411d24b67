package tools

import (
	"bytes"
	"encoding/binary"
	"regexp/syntax"
	"slices"
	"unicode/utf8"
)

// lineDFA answers "does this line contain a match?" with a lazily built deterministic
// automaton: one table step per byte, where regexp's own engines interpret every instruction
// for every byte. grep uses it for patterns with no literal text to search for first.
//
// Empty-width assertions are decided per line: ^ and \A at its start, $ and \z at its end, and
// \b and \B between the previous rune (remembered in the state) and the next. A lineDFA is not
// safe for concurrent use: each worker clones its own.
type lineDFA struct {
	prog   *syntax.Prog
	states map[string]*dfaState
	start  *dfaState // at the start of a line
	// emptyLine: an empty line matches.
	emptyLine bool
	// wordAsserts: the pattern has \b or \B, so states remember whether the last rune was a
	// word character.
	wordAsserts bool
}

const (
	flagStart = 1 << iota // at the start of the line: nothing read yet
	flagWord              // the last rune read is a word character
)

const (
	beginOps = syntax.EmptyBeginLine | syntax.EmptyBeginText
	endOps   = syntax.EmptyEndLine | syntax.EmptyEndText
)

// boundary is the word-boundary assertion that holds between two runes' word-ness.
func boundary(before, after bool) syntax.EmptyOp {
	if before != after {
		return syntax.EmptyWordBoundary
	}
	return syntax.EmptyNoWordBoundary
}

// dfaState is a set of instructions the automaton may be at, after empty transitions that
// hold inside a line; pending end-of-line assertions stay in the set for the line's end.
type dfaState struct {
	pcs   []uint32
	flags uint8
	key   string
	match bool
	atEnd int8 // 0 unknown, 1 matches at end of line, -1 does not
	// next caches transitions on ASCII bytes other than newline, filled on first use. Match
	// states cache none, so the scan loop only leaves its fast path for a newline, a non-ASCII
	// byte, a new transition or a match.
	next [256]*dfaState
}

// maxDFAStates bounds the cache; past it the cache is dropped and rebuilt as needed.
const maxDFAStates = 1024

func newLineDFA(re *syntax.Regexp) *lineDFA {
	prog, err := syntax.Compile(re)
	if err != nil {
		return nil
	}
	d := &lineDFA{prog: prog}
	for _, in := range prog.Inst {
		if in.Op == syntax.InstEmptyWidth && syntax.EmptyOp(in.Arg)&(syntax.EmptyWordBoundary|syntax.EmptyNoWordBoundary) != 0 {
			d.wordAsserts = true
		}
	}
	d.reset()
	d.emptyLine = d.hasMatch(d.closure(nil, []uint32{uint32(prog.Start)}, beginOps|endOps|syntax.EmptyNoWordBoundary))
	return d
}

func (d *lineDFA) clone() *lineDFA {
	c := &lineDFA{prog: d.prog, emptyLine: d.emptyLine, wordAsserts: d.wordAsserts}
	c.reset()
	return c
}

func (d *lineDFA) reset() {
	d.states = map[string]*dfaState{}
	d.start = d.state(d.closure(nil, []uint32{uint32(d.prog.Start)}, beginOps), flagStart)
}

func (d *lineDFA) hasMatch(pcs []uint32) bool {
	for _, pc := range pcs {
		if d.prog.Inst[pc].Op == syntax.InstMatch {
			return true
		}
	}
	return false
}

// closure adds pcs and everything reachable from them without consuming input, given the
// assertions that hold at this position, to set (kept sorted and free of duplicates).
func (d *lineDFA) closure(set []uint32, pcs []uint32, cond syntax.EmptyOp) []uint32 {
	stack := append([]uint32(nil), pcs...)
	for len(stack) > 0 {
		pc := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		i, found := slices.BinarySearch(set, pc)
		if found {
			continue
		}
		set = slices.Insert(set, i, pc)
		in := &d.prog.Inst[pc]
		switch in.Op {
		case syntax.InstAlt, syntax.InstAltMatch:
			stack = append(stack, in.Out, in.Arg)
		case syntax.InstCapture, syntax.InstNop:
			stack = append(stack, in.Out)
		case syntax.InstEmptyWidth:
			if syntax.EmptyOp(in.Arg)&^cond == 0 {
				stack = append(stack, in.Out)
			}
		}
	}
	return set
}

func (d *lineDFA) state(pcs []uint32, flags uint8) *dfaState {
	buf := make([]byte, 1, 1+4*len(pcs))
	buf[0] = flags
	for _, pc := range pcs {
		buf = binary.LittleEndian.AppendUint32(buf, pc)
	}
	if s, ok := d.states[string(buf)]; ok {
		return s
	}
	if len(d.states) >= maxDFAStates {
		d.reset()
	}
	s := &dfaState{pcs: pcs, flags: flags, key: string(buf), match: d.hasMatch(pcs)}
	d.states[s.key] = s
	return s
}

// step is the state after s reads r.
func (d *lineDFA) step(s *dfaState, r rune) *dfaState {
	pcs := s.pcs
	isWord := syntax.IsWordChar(r)
	if d.wordAsserts { // follow the \b and \B that hold before r
		cond := boundary(s.flags&flagWord != 0, isWord)
		if s.flags&flagStart != 0 {
			cond |= beginOps
		}
		if pcs = d.closure(nil, s.pcs, cond); d.hasMatch(pcs) {
			return d.state(pcs, s.flags)
		}
	}
	var next []uint32
	for _, pc := range pcs {
		in := &d.prog.Inst[pc]
		var ok bool
		switch in.Op {
		case syntax.InstRune:
			ok = in.MatchRune(r)
		case syntax.InstRune1:
			ok = r == in.Rune[0]
		case syntax.InstRuneAny:
			ok = true
		case syntax.InstRuneAnyNotNL:
			ok = r != '\n'
		}
		if ok {
			next = append(next, in.Out)
		}
	}
	next = append(next, uint32(d.prog.Start)) // unanchored: a match may start anywhere
	var flags uint8
	if d.wordAsserts && isWord {
		flags = flagWord
	}
	return d.state(d.closure(nil, next, 0), flags)
}

// matchesAtEnd reports whether s reaches a match once end-of-line assertions hold.
func (d *lineDFA) matchesAtEnd(s *dfaState) bool {
	if s.atEnd == 0 {
		cond := endOps | boundary(s.flags&flagWord != 0, false)
		if s.flags&flagStart != 0 {
			cond |= beginOps
		}
		s.atEnd = -1
		if d.hasMatch(d.closure(nil, s.pcs, cond)) {
			s.atEnd = 1
		}
	}
	return s.atEnd == 1
}

// matchLine reports whether line (without its newline) holds a match.
func (d *lineDFA) matchLine(line []byte) bool {
	start, _ := d.nextLine(line, 0)
	return start >= 0
}

// nextLine returns the bounds of the first line at or after pos (a line start) that holds a
// match, or -1, -1. It reads the data once, resetting at each newline.
func (d *lineDFA) nextLine(data []byte, pos int) (int, int) {
	lineStart, s := pos, d.start
	for i := pos; i < len(data); {
		if n := s.next[data[i]]; n != nil {
			s, i = n, i+1
			continue
		}
		c := data[i]
		switch {
		case c == '\n':
			if d.lineEnds(s, i == lineStart) {
				return lineStart, i
			}
			i++
			lineStart, s = i, d.start
		case s.match:
			end := len(data)
			if j := bytes.IndexByte(data[i:], '\n'); j >= 0 {
				end = i + j
			}
			return lineStart, end
		case c < utf8.RuneSelf:
			n := d.step(s, rune(c))
			s.next[c] = n
			s, i = n, i+1
		default:
			r, size := utf8.DecodeRune(data[i:])
			s, i = d.step(s, r), i+size
		}
	}
	if (lineStart < len(data) || len(data) == 0) && d.lineEnds(s, lineStart == len(data)) {
		return lineStart, len(data)
	}
	return -1, -1
}

// lineEnds reports whether a line whose scan ended in s matches; an empty line is decided
// apart, because there the start- and end-of-line assertions hold together.
func (d *lineDFA) lineEnds(s *dfaState, empty bool) bool {
	if empty {
		return d.emptyLine
	}
	return s.match || d.matchesAtEnd(s)
}
