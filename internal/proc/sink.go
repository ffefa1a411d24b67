package proc

import (
	"bytes"
	"os"
	"sync"
)

// tailSink keeps the tail of a command's output in bounded memory and, once the output is
// over the limits, copies all of it to a temporary file so nothing is lost.
type tailSink struct {
	maxBytes, maxLines int
	tempDir            string

	mu       sync.Mutex
	buf      []byte // the output's tail; the whole output until it passes 4*maxBytes
	total    int
	newlines int
	lastByte byte
	changed  bool
	spill    *os.File
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
		s.spill, s.spillErr = os.CreateTemp(s.tempDir, "pi-bash-*.log")
		if s.spill != nil {
			_, s.spillErr = s.spill.Write(s.buf)
		}
	} else if s.spill != nil && s.spillErr == nil {
		_, s.spillErr = s.spill.Write(p)
	}
	if len(s.buf) > 4*s.maxBytes {
		// keeping twice the limit leaves a line start before the last maxBytes to cut at
		keep := 2 * s.maxBytes
		s.buf = append(s.buf[:0], s.buf[len(s.buf)-keep:]...)
	}
	return len(p), nil
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
