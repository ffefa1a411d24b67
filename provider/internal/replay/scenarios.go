package replay

import (
	"context"
	"reflect"
	"testing"
	"time"

	"pi/provider"
)

// Scenario is one recorded stream every adapter is tested with, named as its fixture file
// (without extension), and the stop reason the reply must end with.
type Scenario struct {
	Name string
	Stop provider.StopReason
}

// Scenarios lists the streams each adapter has a recording of: text, thinking, one and two
// tool calls, a length stop, an error mid-stream, a malformed chunk, a 429, an overflow.
func Scenarios() []Scenario {
	return []Scenario{
		{"text", provider.StopStop},
		{"thinking", provider.StopStop},
		{"tool_call", provider.StopToolUse},
		{"parallel_tools", provider.StopToolUse},
		{"length", provider.StopLength},
		{"error_midstream", provider.StopError},
		{"malformed", provider.StopError},
		{"rate_limited", provider.StopError},
		{"overflow", provider.StopError},
	}
}

// Run streams req through p and checks that the last event carries the returned message.
func Run(t testing.TB, p provider.Provider, req *provider.Request) ([]provider.Event, provider.Message) {
	t.Helper()
	var evs []provider.Event
	msg := p.Stream(context.Background(), req, func(e provider.Event) { evs = append(evs, e) })
	if len(evs) == 0 {
		t.Fatalf("no events")
	}
	if last := evs[len(evs)-1]; last.Message == nil || !reflect.DeepEqual(*last.Message, msg) {
		t.Errorf("the last event does not carry the returned message")
	}
	return evs, msg
}

// CheckAbort streams from p, cancels at the first text delta, and checks that the reply comes
// back aborted with the partial text within 100 ms of the cancellation.
func CheckAbort(t testing.TB, p provider.Provider, model provider.Model, wantPartial string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var cancelled time.Time
	msg := p.Stream(ctx, &provider.Request{Model: model}, func(e provider.Event) {
		if e.Type == provider.EventTextDelta && cancelled.IsZero() {
			cancelled = time.Now()
			cancel()
		}
	})
	if cancelled.IsZero() {
		t.Fatalf("no text arrived: %s %q", msg.StopReason, msg.ErrorMessage)
	}
	if d := time.Since(cancelled); d > 100*time.Millisecond {
		t.Errorf("returned %v after cancellation", d)
	}
	if msg.StopReason != provider.StopAborted || msg.TextContent() != wantPartial {
		t.Errorf("got %s %q, want the partial text %q, aborted", msg.StopReason, msg.TextContent(), wantPartial)
	}
}

// Conversation is a tool round trip with thinking, images and an interrupted reply: every kind
// of content a request carries.
func Conversation() []provider.Message {
	read := provider.ToolCall("call_1", "read", map[string]any{"path": "logo.png", "limit": 10.0})
	return []provider.Message{
		{Role: provider.RoleUser, Content: []provider.Block{provider.Text("What is in logo.png?"), provider.Image("aGVsbG8=", "image/png")}, Timestamp: 1},
		{Role: provider.RoleAssistant, Content: []provider.Block{provider.Thinking("I should read it."), provider.Text("Reading."), read}, StopReason: provider.StopToolUse, Timestamp: 2},
		{Role: provider.RoleToolResult, ToolCallID: "call_1", ToolName: "read", Content: []provider.Block{provider.Text("Read image file [image/png]"), provider.Image("aGVsbG8=", "image/png")}, Timestamp: 3},
		{Role: provider.RoleAssistant, Content: []provider.Block{provider.Text("It is")}, StopReason: provider.StopAborted, ErrorMessage: "Request was aborted", Timestamp: 4},
		provider.UserText("Go on.", 5),
	}
}
