package wire

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
)

// NDJSONReader reads newline-delimited JSON values, one per line, as Ollama streams them.
type NDJSONReader struct {
	sc *bufio.Scanner
}

// NewNDJSONReader reads lines from r.
func NewNDJSONReader(r io.Reader) *NDJSONReader {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), MaxLine)
	sc.Split(splitLines)
	return &NDJSONReader{sc: sc}
}

// Next returns the next non-blank line, trimmed. The slice is valid until the next call. It does
// not check that the line is JSON: the caller decodes it and decides what a bad line means. At
// the end it returns io.EOF.
func (r *NDJSONReader) Next() ([]byte, error) {
	for r.sc.Scan() {
		line := bytes.TrimSpace(r.sc.Bytes())
		if len(line) > 0 {
			return line, nil
		}
	}
	if err := r.sc.Err(); err != nil {
		return nil, fmt.Errorf("reading JSON lines: %w", err)
	}
	return nil, io.EOF
}
