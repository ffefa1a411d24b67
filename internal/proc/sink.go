package proc

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"sync"
)

// tailSink keeps the tail of a command's output in bounded memory and, once the output is
// over the limits, copies it to a spill file: all of it up to spillHead bytes, and past that
// the tail in memory when the command ends, after a line saying how much was left out.
type tailSink struct {
	maxBytes, maxLines int
	spillDir           *SpillDir
	spillHead          int

	mu       sync.Mutex
	buf      []byte // the output's tail; the whole output until it passes 4*maxBytes
	total    int
	newlines int
	lastByte byte
	changed  bool
	spill    *os.File
	spilled  int  // bytes of the output's start in the spill file
	headLine bool // they end with a line break
	spillErr error
}

// Write never fails: a spill file that cannot be written costs the full copy, not the command.
func (s *tailSink) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.buf = append(s.buf, p...)
	s.total += len(p)
	s.newlines += bytes.Count(p, []byte{'\n'})
	if len(p) > 0 {
		s.lastByte, s.changed = p[len(p)-1], true
	}
	if s.spill == nil && s.spillErr == nil && (s.total > s.maxBytes || s.lines() > s.maxLines) {
		// buf still holds everything: trimming starts only past four times the byte limit
		s.spill, s.spillErr = s.spillDir.create()
		s.writeHead(s.buf)
	} else {
		s.writeHead(p)
	}
	if len(s.buf) > 4*s.maxBytes {
		// keeping twice the limit leaves a line start before the last maxBytes to cut at
		keep := 2 * s.maxBytes
		s.buf = append(s.buf[:0], s.buf[len(s.buf)-keep:]...)
	}
	return len(p), nil
}

// writeHead copies p, the next bytes of the output, to the spill file while it holds less
// than spillHead of them. s.mu must be held.
func (s *tailSink) writeHead(p []byte) {
	if s.spill == nil || s.spillErr != nil || s.spilled >= s.spillHead {
		return
	}
	p = p[:min(len(p), s.spillHead-s.spilled)]
	var n int
	n, s.spillErr = s.spill.Write(p)
	s.spilled += n
	if n > 0 {
		s.headLine = p[n-1] == '\n'
	}
}

// lines counts the output's lines: a final newline ends a line, it does not start one.
// s.mu must be held.
func (s *tailSink) lines() int {
	if s.total > 0 && s.lastByte != '\n' {
		return s.newlines + 1
	}
	return s.newlines
}

// takeChanged reports whether output arrived since the last call.
func (s *tailSink) takeChanged() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.changed
	s.changed = false
	return c
}

// finishSpill completes the spill file once the output has ended: what of the output it lacks
// is taken from the tail in memory, after a line saying how many bytes were left out between
// the two when the tail does not reach back to the file's end. The tail then starts at a line.
func (s *tailSink) finishSpill() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.spill == nil {
		return
	}
	tailStart := s.total - len(s.buf) // where in the output buf starts
	if s.spillErr == nil && s.spilled < s.total {
		tail := s.buf[max(s.spilled-tailStart, 0):]
		if gap := tailStart - s.spilled; gap > 0 {
			if i := bytes.IndexByte(tail, '\n'); i >= 0 && i+1 < len(tail) {
				tail, gap = tail[i+1:], gap+i+1
			}
			sep := "\n"
			if s.headLine {
				sep = ""
			}
			_, s.spillErr = fmt.Fprintf(s.spill, "%s[... %d bytes of output left out ...]\n", sep, gap)
		}
		if s.spillErr == nil {
			_, s.spillErr = s.spill.Write(tail)
		}
	}
	size, _ := s.spill.Seek(0, io.SeekCurrent)
	s.spill.Close()
	s.spillDir.done(s.spill.Name(), size)
}

// closeSpill closes a spill file finishSpill did not, when the command could not be run.
func (s *tailSink) closeSpill() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.spill != nil {
		s.spill.Close()
	}
}

// output is the output so far; how the command ended is RunShell's to fill in.
func (s *tailSink) output() Output {
	s.mu.Lock()
	defer s.mu.Unlock()
	o := Output{Tail: string(s.buf), TotalBytes: s.total, TotalLines: s.lines(), SpillErr: s.spillErr}
	if s.spill != nil {
		o.FullOutputPath = s.spill.Name()
	}
	return o
}
