package provider

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Arguments asked for again: when a tool call's arguments fail validation after repair, the
// agent may ask the model once more for that call's arguments alone, with the server
// constraining the reply to the tool's parameter schema (Ollama's format, an OpenAI-compatible
// server's response_format). The request repeats the conversation exactly as it was sent for
// the reply that made the call, so the server's prompt cache holds, then that reply with only
// this call, the call's error result, and one short user message naming the tool and the
// problem. (A user message straight after the user's own would be merged into it by Ollama's
// templates, and OpenAI-compatible servers want every call answered.)

// ArgumentsRequest is one such retry.
type ArgumentsRequest struct {
	// Request is what was sent for the reply that made the call; it is not changed.
	Request *Request
	Tool    ToolDef
	// Reply is the assistant message that made Call; Result is the text of the error result
	// the call would get, and Problem what validation said, in short.
	Reply   *Message
	Call    Block
	Result  string
	Problem string
}

// ArgumentsReply is what the retry gave back.
type ArgumentsReply struct {
	Arguments map[string]any
	Text      string // the reply as the server sent it
	Usage     *Usage
}

// ArgumentsConstrainer is an optional capability of a provider: it can ask the model for a tool
// call's arguments with the reply constrained to the tool's schema.
type ArgumentsConstrainer interface {
	ConstrainedArguments(ctx context.Context, ar *ArgumentsRequest) (ArgumentsReply, error)
}

// ErrNoConstrainedArguments says a provider cannot constrain a reply to a schema.
var ErrNoConstrainedArguments = errors.New("this provider cannot constrain a reply to a schema")

// ConstrainedArguments asks p for the arguments of ar's call again, if p can constrain its reply;
// otherwise it returns ErrNoConstrainedArguments.
func ConstrainedArguments(ctx context.Context, p Provider, ar *ArgumentsRequest) (ArgumentsReply, error) {
	c, ok := p.(ArgumentsConstrainer)
	if !ok {
		return ArgumentsReply{}, ErrNoConstrainedArguments
	}
	return c.ConstrainedArguments(ctx, ar)
}

// ConstrainedArguments implements ArgumentsConstrainer when the wrapped provider does. It is
// tried once: a retry of a retry would cost more than the precise error result it replaces.
func (r *Retrying) ConstrainedArguments(ctx context.Context, ar *ArgumentsRequest) (ArgumentsReply, error) {
	return ConstrainedArguments(ctx, r.Provider, ar)
}

// AskArguments is ConstrainedArguments for an adapter whose Stream honours Request.ReplySchema:
// it streams ArgumentsRetryRequest(ar) through p and reads the reply as the arguments. A failed
// reply, one cut off, or one that is not a JSON object is an error.
func AskArguments(ctx context.Context, p Provider, ar *ArgumentsRequest) (ArgumentsReply, error) {
	reply := p.Stream(ctx, ArgumentsRetryRequest(ar), func(Event) {})
	out := ArgumentsReply{Text: reply.TextContent(), Usage: reply.Usage}
	switch reply.StopReason {
	case StopError, StopAborted:
		return out, fmt.Errorf("asking for the arguments of %q again: %s", ar.Tool.Name, OneLine(reply.ErrorMessage, 200))
	case StopLength:
		return out, fmt.Errorf("asking for the arguments of %q again: the reply reached the output limit", ar.Tool.Name)
	}
	text := out.Text
	if strings.TrimSpace(text) == "" { // a server may still answer with a call to that tool
		for _, c := range reply.ToolCalls() {
			if c.Name == ar.Tool.Name && c.RawArguments == "" {
				out.Arguments = c.Arguments
				return out, nil
			}
		}
	}
	args := map[string]any{}
	if err := json.Unmarshal([]byte(strings.TrimSpace(text)), &args); err != nil || args == nil {
		return out, fmt.Errorf("asking for the arguments of %q again: the reply %s is not a JSON object", ar.Tool.Name, quoteStart(text))
	}
	out.Arguments = args
	return out, nil
}

// ArgumentsRetryRequest is ar.Request followed by the call, its error and an instruction to
// give the arguments alone, the reply constrained to the tool's schema. Thinking stays as it
// was: some templates render the thinking switch in the system prompt, and changing it would
// cost the whole prompt again (Ollama lets a thinking model think before the schema applies).
func ArgumentsRetryRequest(ar *ArgumentsRequest) *Request {
	req := *ar.Request
	msgs := req.Messages[:len(req.Messages):len(req.Messages)]
	if ar.Reply != nil {
		reply := *ar.Reply
		reply.Content = nil
		for _, b := range ar.Reply.Content {
			if b.Type != BlockToolCall || b.ID == ar.Call.ID {
				reply.Content = append(reply.Content, b)
			}
		}
		msgs = append(msgs, reply, Message{Role: RoleToolResult, ToolCallID: ar.Call.ID, ToolName: ar.Call.Name,
			Content: []Block{Text(ar.Result)}, IsError: true, Timestamp: reply.Timestamp})
	}
	req.Messages = append(msgs, Message{Role: RoleUser, Content: []Block{Text(ArgumentsRetryPrompt(ar))}})
	req.ReplySchema = ar.Tool.Parameters
	if len(req.ReplySchema) == 0 {
		req.ReplySchema = json.RawMessage(`{"type":"object","properties":{}}`)
	}
	return &req
}

// ArgumentsRetryPrompt is the instruction of the retry: the tool and what was wrong, cut so
// that a huge bad argument does not make the retry expensive.
func ArgumentsRetryPrompt(ar *ArgumentsRequest) string {
	return fmt.Sprintf("Your call to the tool %q had invalid arguments (%s). "+
		"Reply with only the corrected arguments of that call, as one JSON object.",
		ar.Tool.Name, strings.TrimSpace(OneLine(ar.Problem, 300)))
}
