package ollamatest

import (
	"encoding/json"
	"testing"
)

// The same round trip through Ollama's OpenAI and Anthropic compatible endpoints, which the
// openai and anthropic adapters talk to.

type openaiMessage struct {
	Role       string           `json:"role"`
	Content    string           `json:"content"`
	ToolCalls  []openaiToolCall `json:"tool_calls,omitempty"`
	ToolCallID string           `json:"tool_call_id,omitempty"`
}

type openaiToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

type openaiReply struct {
	Choices []struct {
		Message      openaiMessage `json:"message"`
		FinishReason string        `json:"finish_reason"`
	} `json:"choices"`
}

func TestOpenAIChatCompletionsRoundTrip(t *testing.T) {
	s, ctx := startWithModel(t)
	ask := func(msgs []openaiMessage) (openaiMessage, string) {
		t.Helper()
		var out openaiReply
		req := map[string]any{"model": testModel, "messages": msgs, "temperature": 1.5,
			"tools": nativeTools()} // the native tool shape is OpenAI's
		if err := s.PostJSON(ctx, "/v1/chat/completions", req, &out); err != nil {
			t.Fatal(err)
		}
		if len(out.Choices) != 1 {
			t.Fatalf("%d choices", len(out.Choices))
		}
		return out.Choices[0].Message, out.Choices[0].FinishReason
	}
	user := openaiMessage{Role: "user", Content: userAsk}
	msg, finish := ask([]openaiMessage{user})
	if len(msg.ToolCalls) != 1 || finish != "tool_calls" {
		t.Fatalf("reply %+v, finish %q; want one tool call", msg, finish)
	}
	call := msg.ToolCalls[0]
	var args map[string]any
	if err := json.Unmarshal([]byte(call.Function.Arguments), &args); err != nil || call.Function.Name != "read" || args["path"] != ReadPath {
		t.Fatalf("call %+v (%v), want read %s", call, err, ReadPath)
	}
	msg, finish = ask([]openaiMessage{user, msg, {Role: "tool", ToolCallID: call.ID, Content: "hello"}})
	if msg.Content != FinalAnswer || finish != "stop" {
		t.Fatalf("reply %+v, finish %q; want %q", msg, finish, FinalAnswer)
	}
}

type anthropicBlock struct {
	Type      string         `json:"type"`
	Text      string         `json:"text,omitempty"`
	ID        string         `json:"id,omitempty"`
	Name      string         `json:"name,omitempty"`
	Input     map[string]any `json:"input,omitempty"`
	ToolUseID string         `json:"tool_use_id,omitempty"`
	Content   string         `json:"content,omitempty"`
}

type anthropicMessage struct {
	Role    string           `json:"role"`
	Content []anthropicBlock `json:"content"`
}

type anthropicReply struct {
	Content    []anthropicBlock `json:"content"`
	StopReason string           `json:"stop_reason"`
}

func TestAnthropicMessagesRoundTrip(t *testing.T) {
	s, ctx := startWithModel(t)
	tools := []map[string]any{{"name": "read", "description": "Read a file", "input_schema": readSchema}}
	ask := func(msgs []anthropicMessage) anthropicReply {
		t.Helper()
		var out anthropicReply
		req := map[string]any{"model": testModel, "max_tokens": 256, "messages": msgs, "tools": tools}
		if err := s.PostJSON(ctx, "/v1/messages", req, &out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	user := anthropicMessage{Role: "user", Content: []anthropicBlock{{Type: "text", Text: userAsk}}}
	r := ask([]anthropicMessage{user})
	var use *anthropicBlock
	for i := range r.Content {
		if r.Content[i].Type == "tool_use" {
			use = &r.Content[i]
		}
	}
	if use == nil || use.Name != "read" || use.Input["path"] != ReadPath || r.StopReason != "tool_use" {
		t.Fatalf("reply %+v, want a read tool_use for %s", r, ReadPath)
	}
	result := anthropicMessage{Role: "user", Content: []anthropicBlock{{Type: "tool_result", ToolUseID: use.ID, Content: "hello"}}}
	r = ask([]anthropicMessage{user, {Role: "assistant", Content: []anthropicBlock{*use}}, result})
	if len(r.Content) != 1 || r.Content[0].Type != "text" || r.Content[0].Text != FinalAnswer || r.StopReason != "end_turn" {
		t.Fatalf("reply %+v, want %q and end_turn", r, FinalAnswer)
	}
}
