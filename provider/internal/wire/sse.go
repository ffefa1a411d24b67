package wire

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// Event is one dispatched Server-Sent Event.
type Event struct {
	Name string // the "event:" field; empty means "message"
	Data string // the "data:" lines joined with "\n"
	ID   string
}

// SSEReader reads events from a text/event-stream body.
type SSEReader struct {
	sc *bufio.Scanner
}

// NewSSEReader reads events from r.
func NewSSEReader(r io.Reader) *SSEReader { return newSSEReader(r, MaxLine) }

func newSSEReader(r io.Reader, maxLine int) *SSEReader {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, min(64<<10, maxLine)), maxLine)
	sc.Split(splitLines)
	return &SSEReader{sc: sc}
}

// Next returns the next event with data. Comments (": keep-alive"), "retry:" lines, unknown
// fields and events without data are skipped. An event cut off by the end of the stream is still
// returned: servers that end with "data: [DONE]" and no blank line are common enough. At the
// end it returns io.EOF; a read failure or an over-long line is returned wrapped.
func (r *SSEReader) Next() (Event, error) {
	var ev Event
	var data strings.Builder
	hasData := false
	for r.sc.Scan() {
		line := r.sc.Text()
		if line == "" {
			if hasData {
				ev.Data = data.String()
				return ev, nil
			}
			ev = Event{}
			continue
		}
		if line[0] == ':' {
			continue
		}
		field, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch field {
		case "event":
			ev.Name = value
		case "data":
			if hasData {
				data.WriteByte('\n')
			}
			data.WriteString(value)
			hasData = true
		case "id":
			ev.ID = value
		}
	}
	if err := r.sc.Err(); err != nil {
		return Event{}, fmt.Errorf("reading event stream: %w", err)
	}
	if hasData {
		ev.Data = data.String()
		return ev, nil
	}
	return Event{}, io.EOF
}
