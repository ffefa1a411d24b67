package textcalls

import (
	"encoding/json"
	"fmt"
	"strings"

	"pi/provider"
)

// maxHold bounds how much text is held back for markup that never completes; past it the text
// is shown, and recovery at the end looks only at what is still held.
const maxHold = 256 << 10

// Stream passes an adapter's text to a provider.Builder, holding back whatever may be tool-call
// markup. Adapters call Text for every text fragment, Flush before a structured tool call (a
// reply that has them needs no recovery) and before failing, and Finish before Builder.Done.
// Its zero value is not usable; New makes one.
type Stream struct {
	b       *provider.Builder
	req     *provider.Request
	off     bool
	text    strings.Builder
	emitted int  // bytes of text passed to the builder
	pos     int  // where the next scan for markup starts; emitted <= pos
	latched bool // markup naming an offered tool was seen: hold the rest until the end
	types   paramTypes
	sc      scan // the look at the text so far, kept with its unfinished searches
}

// New returns a Stream feeding b for the reply to req. Recovery is off when the request offers
// no tools or the model's configuration turned it off; then Text passes straight through. The
// format this model's calls were last recovered in, read from the conversation, is tried first.
func New(b *provider.Builder, req *provider.Request) *Stream {
	s := &Stream{b: b, req: req, off: len(req.Tools) == 0 || req.Model.NoTextToolCalls}
	if !s.off {
		s.types.tools = req.Tools
		s.sc = scan{offered: s.offered, typeOf: s.types.typeOf, prefer: lastFormat(req.Messages, req.Model.ID), stream: true}
		s.sc.names = make([]string, 0, len(req.Tools))
		s.text.Grow(4 << 10) // a reply's first lines without growing
		for _, t := range req.Tools {
			s.sc.names = append(s.sc.names, t.Name)
			s.sc.escapableName = s.sc.escapableName || strings.ContainsFunc(t.Name, escapable)
		}
	}
	return s
}

// lastFormat is the format of the latest calls recovered from this model's replies.
func lastFormat(msgs []provider.Message, model string) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		m := &msgs[i]
		if m.Role != provider.RoleAssistant || model != "" && m.Model != "" && m.Model != model {
			continue
		}
		if f := Formats(m); len(f) > 0 {
			return f[len(f)-1]
		}
	}
	return ""
}

// scan brings the stream's look at the text up to date.
func (s *Stream) scan(final bool) *scan {
	s.sc.text, s.sc.final = s.text.String(), final
	return &s.sc
}

// Text takes one text fragment of the reply.
func (s *Stream) Text(delta string) {
	if s.off {
		s.b.TextDelta(delta)
		return
	}
	s.text.Grow(len(delta)) // doubles the buffer when full, where appending grows it by a quarter
	s.text.WriteString(delta)
	if !s.latched {
		s.advance()
		s.sc.forget(s.pos)
	}
}

// advance shows the text up to the first place where markup may be starting and is not yet
// known to be plain text.
func (s *Stream) advance() {
	sc := s.scan(false)
	text := sc.text
	for {
		i, cands, partial := sc.next(s.pos)
		switch {
		case i < 0:
			s.emitTo(len(text))
			s.pos = len(text)
			return
		case partial:
			s.emitTo(i)
			s.pos = i
			return
		}
		m, end, more := sc.readAt(i, cands)
		switch {
		case m != nil:
			s.emitTo(i)
			s.pos, s.latched = i, true
			return
		case more:
			s.emitTo(i)
			s.pos = i
			if len(text)-i > maxHold {
				s.emitTo(len(text))
				s.pos = len(text)
			}
			return
		}
		s.pos = max(end, i+1)
	}
}

func (s *Stream) emitTo(n int) {
	if n > s.emitted {
		s.b.TextDelta(s.text.String()[s.emitted:n])
		s.emitted = n
	}
}

func (s *Stream) offered(name string) bool {
	for _, t := range s.req.Tools {
		if t.Name == name {
			return true
		}
	}
	return false
}

// Flush shows everything held back and stops looking for markup in this reply.
func (s *Stream) Flush() {
	if s.off {
		return
	}
	s.emitTo(s.text.Len())
	s.off = true
}

// Finish ends the reply's text. When the reply has no structured tool calls, the held markup
// that names offered tools (and is not quoted from the user's code blocks) becomes tool calls
// after the text, and the message's details record them; everything else is shown as text.
func (s *Stream) Finish() {
	if s.off {
		return
	}
	text := s.text.String()
	var matches []Match
	if len(s.b.Message().ToolCalls()) == 0 {
		matches = s.allowed(text, find(s.scan(true), s.emitted))
	}
	if len(matches) == 0 {
		s.Flush()
		return
	}
	cursor := s.emitted
	for _, m := range matches {
		s.showText(text[cursor:m.Start])
		if m.Thinking != "" {
			s.b.ThinkingDelta(m.Thinking)
		}
		s.showText(m.Keep)
		cursor = m.End
	}
	s.showText(text[cursor:])
	s.emitted, s.off = len(text), true
	var recovered []recoveredCall
	for _, m := range matches {
		for _, c := range m.Calls {
			id := fmt.Sprintf("text_call_%d", len(recovered))
			s.b.ToolCall(id, c.Name, c.Arguments)
			recovered = append(recovered, recoveredCall{ID: id, Name: c.Name, Format: m.Format})
		}
	}
	s.b.Message().Details = detailsWith(s.b.Message().Details, recovered)
}

// showText passes a piece of text between markup to the builder unless it is only white space.
func (s *Stream) showText(t string) {
	if strings.TrimSpace(t) != "" {
		s.b.TextDelta(t)
	}
}

// allowed drops matches the user's own prompt quoted in a code block: a model that repeats a
// call the user showed it is not asking to run it.
func (s *Stream) allowed(text string, matches []Match) []Match {
	if len(matches) == 0 {
		return nil
	}
	q := quotedCalls(s.req.Messages)
	var out []Match
	for _, m := range matches {
		if !q.contains(text[m.Start:m.End], m.Calls) {
			out = append(out, m)
		}
	}
	return out
}

type recoveredCall struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	Format string `json:"format"`
}

// DetailsKey is the field of an assistant message's details that lists the tool calls recovered
// from its text: [{"id", "name", "format"}].
const DetailsKey = "recoveredToolCalls"

func detailsWith(details json.RawMessage, calls []recoveredCall) json.RawMessage {
	fields := map[string]any{}
	if len(details) > 0 {
		_ = json.Unmarshal(details, &fields) // details of another shape are replaced
	}
	fields[DetailsKey] = calls
	out, _ := json.Marshal(fields) // strings and decoded JSON always encode
	return out
}

// Formats lists the format of each tool call of an assistant message that was recovered from
// its text, in order.
func Formats(m *provider.Message) []string {
	if len(m.Details) == 0 {
		return nil
	}
	var d struct {
		Calls []recoveredCall `json:"recoveredToolCalls"`
	}
	if json.Unmarshal(m.Details, &d) != nil {
		return nil
	}
	out := make([]string, 0, len(d.Calls))
	for _, c := range d.Calls {
		out = append(out, c.Format)
	}
	return out
}

// Recovered counts the tool calls of an assistant message that were recovered from its text.
func Recovered(m *provider.Message) int {
	if len(m.Details) == 0 {
		return 0
	}
	var d struct {
		Calls []json.RawMessage `json:"recoveredToolCalls"`
	}
	if json.Unmarshal(m.Details, &d) != nil {
		return 0
	}
	return len(d.Calls)
}
