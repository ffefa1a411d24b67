package wire

// progressScanner tells a stream's data from its keep-alives, byte by byte, for the idle
// timeout: a server whose model is stuck may well keep its keep-alive loop running. Line ends,
// blank lines (spaces and tabs only) and comment lines (whose first byte past any blanks is
// ':', the SSE keep-alive ": ping") are keep-alives; every other byte is data. Neither an SSE
// field nor a JSON value starts with ':', so one scanner serves both formats. It keeps its
// state across calls, so the count does not depend on how the stream is cut into reads.
type progressScanner struct {
	line lineState
	cr   bool // the last byte was '\r': a '\n' after it ends the same line

	// Since the last byte of data:
	comments   bool // a comment line arrived
	blankLines int  // blank lines arrived; one ends every SSE event
}

type lineState uint8

const (
	lineStart   lineState = iota // at the start of a line, or past blanks only
	lineComment                  // in a comment line
	lineData                     // in a line of data
)

// scan reads p and returns how many of its bytes are data.
func (s *progressScanner) scan(p []byte) int {
	data := 0
	for _, c := range p {
		cr := s.cr
		s.cr = c == '\r'
		switch {
		case c == '\n' && cr:
		case c == '\n' || c == '\r':
			if s.line == lineStart {
				s.blankLines++
			}
			s.line = lineStart
		case s.line == lineComment:
		case s.line == lineData:
			data++
		case c == ' ' || c == '\t':
		case c == ':':
			s.line = lineComment
			s.comments = true
		default:
			s.line = lineData
			data++
		}
		if s.line == lineData {
			s.comments, s.blankLines = false, 0
		}
	}
	return data
}
