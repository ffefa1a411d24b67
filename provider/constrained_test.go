package provider

import (
	"context"
	"errors"
	"testing"
)

type plainProvider struct{}

func (plainProvider) Stream(_ context.Context, req *Request, emit func(Event)) Message {
	b := NewBuilder(&req.Model, emit)
	b.Start()
	return b.Fail(StopError, "not used")
}

type constrainer struct {
	plainProvider
	asked int
}

func (c *constrainer) ConstrainedArguments(context.Context, *ArgumentsRequest) (ArgumentsReply, error) {
	c.asked++
	return ArgumentsReply{Arguments: map[string]any{"ok": true}}, nil
}

// Retrying passes the capability on, once and without its backoff, and says when the provider
// it wraps has none.
func TestRetryingPassesConstrainedArgumentsOn(t *testing.T) {
	inner := &constrainer{}
	got, err := ConstrainedArguments(context.Background(), &Retrying{Provider: inner, Policy: DefaultRetryPolicy()}, &ArgumentsRequest{})
	if err != nil || got.Arguments["ok"] != true || inner.asked != 1 {
		t.Fatalf("got %v, %v after %d asks", got, err, inner.asked)
	}
	_, err = ConstrainedArguments(context.Background(), &Retrying{Provider: plainProvider{}}, &ArgumentsRequest{})
	if !errors.Is(err, ErrNoConstrainedArguments) {
		t.Fatalf("err = %v, want ErrNoConstrainedArguments", err)
	}
}

// An unchanged request stays unchanged: the retry copies what it appends to.
func TestArgumentsRetryRequestLeavesTheReplyRequestAlone(t *testing.T) {
	msgs := make([]Message, 1, 4)
	msgs[0] = UserText("go", 1)
	call := ToolCall("c1", "t", map[string]any{})
	req := &Request{Messages: msgs}
	retry := ArgumentsRetryRequest(&ArgumentsRequest{Request: req, Tool: ToolDef{Name: "t"}, Call: call,
		Reply: &Message{Role: RoleAssistant, Content: []Block{Text("ok"), call, ToolCall("c2", "u", nil)}}, Result: "bad", Problem: "x"})
	if len(req.Messages) != 1 || req.ReplySchema != nil || len(retry.Messages) != 4 || msgs[:2:2][1].Role != "" {
		t.Fatalf("request changed or retry wrong: %d %s %d", len(req.Messages), req.ReplySchema, len(retry.Messages))
	}
	if got := retry.Messages[1].Content; len(got) != 2 || got[1].ID != "c1" {
		t.Errorf("the repeated reply should keep its text and only call c1: %+v", got)
	}
	if string(retry.ReplySchema) != `{"type":"object","properties":{}}` {
		t.Errorf("a tool without parameters is constrained to %s", retry.ReplySchema)
	}
}
