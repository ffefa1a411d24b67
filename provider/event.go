package provider

import (
	"encoding/json"
	"time"
	"unsafe"
)

// EventType names a stream event, as pi names them.
type EventType string

const (
	EventStart         EventType = "start"
	EventTextStart     EventType = "text_start"
	EventTextDelta     EventType = "text_delta"
	EventTextEnd       EventType = "text_end"
	EventThinkingStart EventType = "thinking_start"
	EventThinkingDelta EventType = "thinking_delta"
	EventThinkingEnd   EventType = "thinking_end"
	EventToolCallStart EventType = "toolcall_start"
	EventToolCallDelta EventType = "toolcall_delta"
	EventToolCallEnd   EventType = "toolcall_end"
	EventDone          EventType = "done"
	EventError         EventType = "error"
)

// Event is one step of a streamed reply. Partial is the message so far (start and the block
// events); Message is the final message (done and error).
type Event struct {
	Type         EventType
	ContentIndex int
	Delta        string     // *_delta
	Content      string     // text_end, thinking_end: the whole block text
	ToolCall     *Block     // toolcall_end
	Reason       StopReason // done, error
	Partial      *Message
	Message      *Message
}

// MarshalJSON writes the event in pi's shape.
func (e Event) MarshalJSON() ([]byte, error) {
	w := NewObjectWriter()
	w.Field("type", e.Type)
	switch e.Type {
	case EventStart:
	case EventDone:
		w.Field("reason", e.Reason)
		w.Field("message", e.Message)
		return w.Close()
	case EventError:
		w.Field("reason", e.Reason)
		w.Field("error", e.Message)
		return w.Close()
	default:
		w.Field("contentIndex", e.ContentIndex)
		switch e.Type {
		case EventTextDelta, EventThinkingDelta, EventToolCallDelta:
			w.Field("delta", e.Delta)
		case EventTextEnd, EventThinkingEnd:
			w.Field("content", e.Content)
		case EventToolCallEnd:
			w.Field("toolCall", e.ToolCall)
		}
	}
	if e.Partial != nil { // left out where a front end sends the partial reply only now and then
		w.Field("partial", e.Partial)
	}
	return w.Close()
}

// Builder assembles an assistant message from streamed pieces and emits pi's events for them.
// Adapters and the faux provider use it so that every provider streams the same way.
type Builder struct {
	msg     Message
	emit    func(Event)
	open    int    // index of the open block, or -1
	text    []byte // the open text or thinking block's text; see grow
	rawArgs []byte
}

// NewBuilder starts an assistant message for model. It emits nothing until Start.
func NewBuilder(model *Model, emit func(Event)) *Builder {
	return &Builder{
		msg: Message{Role: RoleAssistant, API: model.API, Provider: model.Provider, Model: model.ID,
			Usage: &Usage{}, StopReason: StopStop, Timestamp: time.Now().UnixMilli()},
		emit: emit,
		open: -1,
	}
}

// Message is the message so far; callers may set Usage, ResponseID and the like on it.
func (b *Builder) Message() *Message { return &b.msg }

// Start emits the start event.
func (b *Builder) Start() { b.emit(Event{Type: EventStart, Partial: &b.msg}) }

// TextDelta appends text, opening a text block first if the open block is another kind.
func (b *Builder) TextDelta(s string) {
	i := b.ensureOpen(BlockText)
	b.msg.Content[i].Text = b.grow(s)
	b.emit(Event{Type: EventTextDelta, ContentIndex: i, Delta: s, Partial: &b.msg})
}

// ThinkingDelta appends thinking text, opening a thinking block first when needed.
func (b *Builder) ThinkingDelta(s string) {
	i := b.ensureOpen(BlockThinking)
	b.msg.Content[i].Thinking = b.grow(s)
	b.emit(Event{Type: EventThinkingDelta, ContentIndex: i, Delta: s, Partial: &b.msg})
}

// SetThinkingSignature records the signature of the open thinking block.
func (b *Builder) SetThinkingSignature(sig string) {
	i := b.ensureOpen(BlockThinking)
	b.msg.Content[i].ThinkingSignature += sig
}

// ToolCallStart opens a tool-call block whose arguments follow as JSON text.
func (b *Builder) ToolCallStart(id, name string) {
	b.CloseBlock()
	b.msg.Content = append(b.msg.Content, Block{Type: BlockToolCall, ID: id, Name: name, Arguments: map[string]any{}})
	b.open = len(b.msg.Content) - 1
	b.rawArgs = b.rawArgs[:0]
	b.emit(Event{Type: EventToolCallStart, ContentIndex: b.open, Partial: &b.msg})
}

// ToolCallDelta appends a fragment of the open tool call's argument JSON.
func (b *Builder) ToolCallDelta(fragment string) {
	if b.open < 0 || b.msg.Content[b.open].Type != BlockToolCall {
		b.ToolCallStart("", "")
	}
	b.rawArgs = append(b.rawArgs, fragment...)
	b.emit(Event{Type: EventToolCallDelta, ContentIndex: b.open, Delta: fragment, Partial: &b.msg})
}

// ToolCall emits a whole tool call (start, its arguments as one delta, end), as servers that
// send finished calls need.
func (b *Builder) ToolCall(id, name string, args map[string]any) {
	b.ToolCallStart(id, name)
	if args == nil {
		args = map[string]any{}
	}
	data, _ := json.Marshal(args) // values decoded from JSON always marshal
	b.ToolCallDelta(string(data))
	b.CloseBlock()
}

// CloseBlock ends the open block, if any, and emits its end event.
func (b *Builder) CloseBlock() {
	if b.open < 0 {
		return
	}
	i := b.open
	b.open = -1
	blk := &b.msg.Content[i]
	switch blk.Type {
	case BlockText:
		b.emit(Event{Type: EventTextEnd, ContentIndex: i, Content: blk.Text, Partial: &b.msg})
	case BlockThinking:
		b.emit(Event{Type: EventThinkingEnd, ContentIndex: i, Content: blk.Thinking, Partial: &b.msg})
	case BlockToolCall:
		args, err := ParseArguments(string(b.rawArgs))
		if err != nil {
			blk.RawArguments = string(b.rawArgs)
		}
		blk.Arguments = args
		call := *blk
		b.emit(Event{Type: EventToolCallEnd, ContentIndex: i, ToolCall: &call, Partial: &b.msg})
	}
}

// Done closes the open block and emits done. A reply with tool calls that ended normally gets
// StopReason toolUse, as pi reports it whatever the server said.
func (b *Builder) Done(reason StopReason) Message {
	b.CloseBlock()
	if reason == StopStop && len(b.msg.ToolCalls()) > 0 {
		reason = StopToolUse
	}
	b.msg.StopReason = reason
	final := b.msg.Clone()
	b.emit(Event{Type: EventDone, Reason: reason, Message: &final})
	return final
}

// Fail closes the open block and emits error with the partial content kept. reason is
// StopError or StopAborted.
func (b *Builder) Fail(reason StopReason, errorMessage string) Message {
	b.CloseBlock()
	b.msg.StopReason = reason
	b.msg.ErrorMessage = errorMessage
	final := b.msg.Clone()
	b.emit(Event{Type: EventError, Reason: reason, Message: &final})
	return final
}

// grow appends s to the open block's text and returns the whole text without copying it, so a
// long reply costs linear time, not quadratic. This is safe because bytes already handed out
// in a string are never written again: appends only write past them, and a new block starts a
// new buffer.
func (b *Builder) grow(s string) string {
	b.text = append(b.text, s...)
	return unsafe.String(unsafe.SliceData(b.text), len(b.text))
}

func (b *Builder) ensureOpen(kind string) int {
	if b.open >= 0 && b.msg.Content[b.open].Type == kind {
		return b.open
	}
	b.CloseBlock()
	b.text = nil
	b.msg.Content = append(b.msg.Content, Block{Type: kind})
	b.open = len(b.msg.Content) - 1
	typ := EventTextStart
	if kind == BlockThinking {
		typ = EventThinkingStart
	}
	b.emit(Event{Type: typ, ContentIndex: b.open, Partial: &b.msg})
	return b.open
}
