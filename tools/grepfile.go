package tools

import (
	"bytes"
	"cmp"
	"errors"
	"io"
	"strings"
	"unicode/utf8"

	"pi/internal/safefile"
)

// grepBlock is how much of a file a grep worker holds at a time. A file that fits is searched
// whole; a bigger one a block of whole lines at a time, so that memory does not grow with the
// files searched (two 3 GB files took 6.3 GB when each was read whole).
const grepBlock = 256 << 10

// grepOverlap is how much of a line longer than a block is searched again with its next
// piece, so that a match of up to that length across two pieces is still found.
const grepOverlap = 4 << 10

// file searches one file, returning at most limit+1 matches (one more than shown, so the caller
// knows there are more) with their context lines, and whether a line longer than a block was
// searched in pieces. Unreadable and binary files give nothing.
func (s *grepSearch) file(p, rel string, buf *[]byte, sc *searchScratch) ([]grepLine, bool) {
	f, err := safefile.Open(p)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	return s.search(f, f.Size(), rel, buf, sc)
}

// search searches the size bytes r holds a block at a time, in *buf (made to the block size
// when it is not). A file is binary, and gives nothing, when its first block has a NUL byte
// (a file that fits in one block: anywhere in it); a NUL in a later block ends the search
// there, keeping what was found before, as ripgrep does.
func (s *grepSearch) search(r io.Reader, size int64, rel string, buf *[]byte, sc *searchScratch) ([]grepLine, bool) {
	block := cmp.Or(s.block, grepBlock)
	if len(*buf) != block {
		*buf = make([]byte, block)
	}
	fs := &fileScan{s: s, rel: rel, line: 1}
	left, kept := size, 0 // bytes still to read; bytes of buf carried over from the last block
	for first := true; fs.matches <= s.limit; first = false {
		n, err := io.ReadFull(r, (*buf)[kept:kept+int(min(left, int64(block-kept)))])
		left -= int64(n)
		eof := left == 0 || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF)
		if err != nil && !eof {
			break
		}
		if bytes.IndexByte((*buf)[kept:kept+n], 0) >= 0 {
			if first {
				return nil, false
			}
			break
		}
		kept = fs.block((*buf)[:kept+n], kept, eof, sc)
		if eof {
			break
		}
	}
	if fs.long != nil {
		fs.endLong()
	}
	return fs.out, fs.piecewise
}

// fileScan is the search of one file, one block of whole lines at a time.
type fileScan struct {
	s         *grepSearch
	rel       string
	out       []grepLine
	matches   int        // matching lines found
	line      int        // the number of the first line of the block
	printed   int        // the number of the last line in out
	after     int        // context lines still to show after the last match
	prev      []grepLine // up to s.context lines just before the block, for the context of a match
	long      *longLine  // the line the block goes on with, when it is longer than a block
	piecewise bool       // a line longer than a block was searched in pieces
}

// longLine is a line longer than a block, searched a piece at a time.
type longLine struct {
	start   []byte // as much of its start as grep shows
	matched bool
}

// longLineStart is how much of a long line's start is kept: enough for GrepMaxLineLength
// characters of four bytes and one more.
const longLineStart = 4 * (GrepMaxLineLength + 1)

// block searches data, which starts at a line start or in fs.long, up to its last line break
// (to its end at eof), and moves the rest to the start of data for the next block, returning
// its length. The first kept bytes of data were there in the last block too.
func (fs *fileScan) block(data []byte, kept int, eof bool, sc *searchScratch) int {
	start := 0
	if fs.long != nil {
		end := bytes.IndexByte(data, '\n')
		if end < 0 {
			end = len(data)
		}
		fs.piece(data[:end], kept, sc)
		if end == len(data) && !eof {
			return keepOverlap(data)
		}
		fs.endLong()
		start = min(end+1, len(data))
	}
	rest := data[start:]
	complete := len(rest)
	if !eof {
		complete = bytes.LastIndexByte(rest, '\n') + 1
	}
	if complete == 0 && !eof && start == 0 { // a full block with no line break
		fs.long = &longLine{}
		fs.piecewise = true
		fs.piece(rest, 0, sc)
		return keepOverlap(data)
	}
	fs.lines(rest[:complete], eof, sc)
	return copy(data, rest[complete:])
}

// keepOverlap moves the end of a piece of a long line to the start of data, to be searched
// again with the next piece.
func keepOverlap(data []byte) int {
	return copy(data, data[len(data)-min(grepOverlap, len(data)/4):])
}

// piece searches a piece of the long line, whose first kept bytes ended the last piece.
func (fs *fileScan) piece(p []byte, kept int, sc *searchScratch) {
	l := fs.long
	if room := longLineStart - len(l.start); room > 0 {
		l.start = append(l.start, p[kept:kept+min(room, len(p)-kept)]...)
	}
	if !l.matched && len(fs.s.m.lines(p, 1, sc)) > 0 {
		l.matched = true
	}
}

// endLong shows the long line, now that it has ended, as a match or as context.
func (fs *fileScan) endLong() {
	l := fs.long
	fs.long = nil
	text := shownText(l.start)
	if l.matched && fs.matches <= fs.s.limit {
		fs.matches++
		fs.before(nil, 0, fs.line)
		fs.add(fs.line, text, true)
		fs.after = fs.s.context
	} else if fs.after > 0 {
		fs.add(fs.line, text, false)
		fs.after--
	}
	fs.keepPrev([]grepLine{{fs.rel, fs.line, text, false}})
	fs.line++
}

// lines searches data, whole lines (the last one may lack its line break when last), and
// shows the matches with up to s.context lines around each, never repeating a line.
func (fs *fileScan) lines(data []byte, last bool, sc *searchScratch) {
	spans := fs.s.m.lines(data, fs.s.limit+1-fs.matches, sc)
	fs.matches += len(spans)
	cur, curLine := 0, fs.line // the line after the last one shown, for context after it
	at, lineNo := 0, fs.line   // the line starting at byte at is lineNo
	for _, sp := range spans {
		lineNo += bytes.Count(data[at:sp.start], []byte{'\n'})
		at = sp.start
		fs.afterLines(data, cur, curLine, lineNo)
		fs.before(data, sp.start, lineNo)
		fs.add(lineNo, shownText(data[sp.start:sp.end]), true)
		fs.after = fs.s.context
		cur, curLine = sp.end+1, lineNo+1
	}
	fs.afterLines(data, cur, curLine, -1)
	if last {
		return
	}
	n := lineNo - fs.line + bytes.Count(data[at:], []byte{'\n'}) // the lines in data
	if fs.s.context > 0 {
		fs.keepPrev(lastLines(data, fs.rel, fs.line+n, min(n, fs.s.context)))
	}
	fs.line += n
}

// afterLines shows the context lines still due after the last match, from the line starting
// at byte cur of data (line curLine) up to line stop (-1: to the end of data).
func (fs *fileScan) afterLines(data []byte, cur, curLine, stop int) {
	for ; fs.after > 0 && cur < len(data) && curLine != stop; curLine++ {
		e := len(data)
		if i := bytes.IndexByte(data[cur:], '\n'); i >= 0 {
			e = cur + i
		}
		fs.add(curLine, shownText(data[cur:e]), false)
		fs.after--
		cur = e + 1
	}
}

// before shows the context lines before line lineNo, which starts at byte start of data, that
// are not shown yet: from data, and before its start from fs.prev.
func (fs *fileScan) before(data []byte, start, lineNo int) {
	var lines []grepLine
	st := start
	for l := lineNo - 1; l >= max(lineNo-fs.s.context, fs.printed+1); l-- {
		if st == 0 {
			k := l - (fs.line - len(fs.prev))
			if k < 0 {
				break
			}
			lines = append(lines, fs.prev[k])
			continue
		}
		ps := bytes.LastIndexByte(data[:st-1], '\n') + 1
		lines = append(lines, grepLine{fs.rel, l, shownText(data[ps : st-1]), false})
		st = ps
	}
	for k := len(lines) - 1; k >= 0; k-- {
		fs.out = append(fs.out, lines[k])
	}
}

func (fs *fileScan) add(line int, text string, match bool) {
	fs.out = append(fs.out, grepLine{fs.rel, line, text, match})
	fs.printed = line
}

// keepPrev adds lines, which end just before the next block, to fs.prev, keeping the last
// s.context.
func (fs *fileScan) keepPrev(lines []grepLine) {
	c := fs.s.context
	if c == 0 {
		return
	}
	fs.prev = append(fs.prev, lines...)
	if len(fs.prev) > c {
		fs.prev = append(fs.prev[:0], fs.prev[len(fs.prev)-c:]...)
	}
}

// lastLines returns the last n lines of data, which ends with a line break before line next.
func lastLines(data []byte, rel string, next, n int) []grepLine {
	lines := make([]grepLine, n)
	end := len(data) - 1
	for k := n - 1; k >= 0; k-- {
		ps := bytes.LastIndexByte(data[:end], '\n') + 1
		lines[k] = grepLine{rel, next - n + k, shownText(data[ps:end]), false}
		end = ps - 1
	}
	return lines
}

// shownText is a line as grep's output may show it: valid UTF-8, without a final CR, and no
// longer than cutLine needs to cut it to GrepMaxLineLength characters the same, so that a
// long line costs no more memory than a short one.
func shownText(line []byte) string {
	line = bytes.TrimSuffix(line, []byte{'\r'})
	if len(line) > GrepMaxLineLength {
		line = line[:shownPrefix(line)]
	}
	return strings.ToValidUTF8(string(line), "\uFFFD")
}

// shownPrefix is the length of the start of line that holds its first GrepMaxLineLength+1
// characters after strings.ToValidUTF8, which turns each run of invalid bytes into one.
func shownPrefix(line []byte) int {
	i, n, invalid := 0, 0, false
	for i < len(line) && n <= GrepMaxLineLength {
		r, size := utf8.DecodeRune(line[i:])
		bad := r == utf8.RuneError && size == 1
		if !bad || !invalid {
			n++
		}
		invalid = bad
		i += size
	}
	return i
}
