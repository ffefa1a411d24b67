package wire

import "bytes"

// MaxLine bounds one line of a stream. Servers send a whole tool call or a base64 image in a
// single line, so it is generous; past it the stream is treated as broken, not as a memory sink.
const MaxLine = 16 << 20

// splitLines is a bufio.SplitFunc that ends lines at "\n", "\r\n" or a lone "\r", as the SSE
// specification asks. A "\r" at the end of the buffer waits for the next byte, so a "\r\n" split
// across two reads is still one line end.
func splitLines(data []byte, atEOF bool) (advance int, token []byte, err error) {
	i := bytes.IndexAny(data, "\r\n")
	if i < 0 {
		if atEOF && len(data) > 0 {
			return len(data), data, nil
		}
		return 0, nil, nil
	}
	if data[i] == '\n' {
		return i + 1, data[:i], nil
	}
	if i+1 < len(data) {
		if data[i+1] == '\n' {
			return i + 2, data[:i], nil
		}
		return i + 1, data[:i], nil
	}
	if atEOF {
		return i + 1, data[:i], nil
	}
	return 0, nil, nil
}
