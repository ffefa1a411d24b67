package textcalls

import (
	"slices"
	"strings"
)

// A stream reads a held block again as each fragment arrives. The searches that may run to the
// end of the text (a closing tag, the end of a JSON value, a closing fence) remember where they
// stopped, so that each reading looks only at the new bytes: the text only grows, so a search
// resumed where it stopped finds what a search from its start would. Find has no memory; its
// searches run whole.

type searchKind uint8

const (
	searchIndex searchKind = iota
	searchJSON
	searchFence
)

type searchKey struct {
	kind   searchKind
	from   int
	needle string
}

// searchState is where a search that reached the end of the text stopped: next is the first
// place not yet read (or ruled out), found the answer once known (-1 before), json jsonEnd's
// state at next.
type searchState struct {
	key         searchKey
	next, found int
	json        jsonState
}

// searches holds the searches of one stream's text that reached its end unanswered: the few
// of the block it holds, so a list serves.
type searches []searchState

// resume returns where a search stopped, or a state starting at from.
func (sc *scan) resume(k searchKey) searchState {
	for _, st := range sc.memo {
		if st.key == k {
			return st
		}
	}
	return searchState{key: k, next: k.from, found: -1}
}

// remember records where a search stopped; a search that was found at once needs no record.
func (sc *scan) remember(st searchState) {
	for j := range sc.memo {
		if sc.memo[j].key == st.key {
			sc.memo[j] = st
			return
		}
	}
	if sc.stream && st.found < 0 {
		sc.memo = append(sc.memo, st)
	}
}

// forget drops the searches that started before pos: a stream has moved past them.
func (sc *scan) forget(pos int) {
	sc.memo = slices.DeleteFunc(sc.memo, func(st searchState) bool { return st.key.from < pos })
}

// index is the position of the first needle at or after from, or -1.
func (sc *scan) index(from int, needle string) int {
	k := searchKey{searchIndex, from, needle}
	st := sc.resume(k)
	if st.found < 0 {
		if j := strings.Index(sc.text[st.next:], needle); j >= 0 {
			st.found = st.next + j
		} else {
			// A needle cut by the end of the text starts in its last len(needle)-1 bytes.
			st.next = max(st.next, len(sc.text)-len(needle)+1)
		}
		sc.remember(st)
	}
	return st.found
}

// indexToken finds the first of toks at or after from: its position and length, or -1.
func (sc *scan) indexToken(from int, toks []string) (int, int) {
	best, n := -1, 0
	for _, t := range toks {
		if j := sc.index(from, t); j >= 0 && (best < 0 || j < best) {
			best, n = j, len(t)
		}
	}
	return best, n
}

// jsonEnd is jsonEnd on the scan's text.
func (sc *scan) jsonEnd(i int) int {
	k := searchKey{kind: searchJSON, from: i}
	st := sc.resume(k)
	if st.found < 0 {
		st.found = st.json.end(sc.text, st.next)
		st.next = len(sc.text)
		sc.remember(st)
	}
	return st.found
}

// closingFence is closingFence on the scan's text, read again from the last line it read: the
// only one that may have grown since.
func (sc *scan) closingFence(from int, marker string) (int, int) {
	k := searchKey{searchFence, from, marker}
	st := sc.resume(k)
	bodyEnd, end := closingFence(sc.text, st.next, marker)
	if end < 0 {
		if nl := strings.LastIndexByte(sc.text[st.next:], '\n'); nl >= 0 {
			st.next += nl + 1
		}
		sc.remember(st)
	}
	return bodyEnd, end
}
