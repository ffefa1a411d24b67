package wire

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
)

// NDJSONReader reads newline-delimited JSON values, one per line, as Ollama streams them.
type NDJSONReader struct {
	sc  *bufio.Scanner
	cut bool // the last line had no line end: the stream ended, or a read failed, inside it
}

// NewNDJSONReader reads lines from r.
func NewNDJSONReader(in io.Reader) *NDJSONReader {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 0, 64<<10), MaxLine)
	r := &NDJSONReader{sc: sc}
	sc.Split(func(data []byte, atEOF bool) (int, []byte, error) {
		advance, token, err := splitLines(data, atEOF)
		r.cut = token != nil && advance == len(token)
		return advance, token, err
	})
	return r
}

// Next returns the next non-blank line, trimmed. The slice is valid until the next call. It does
// not check that the line is JSON: the caller decodes it and decides what a bad line means. At
// the end it returns io.EOF. A line cut off by a read error is not returned: the error is.
func (r *NDJSONReader) Next() ([]byte, error) {
	for r.sc.Scan() {
		if r.cut && r.sc.Err() != nil {
			break // the scanner hands over what it had when the read failed
		}
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
