package server

import (
	"encoding/json"
	"reflect"
	"testing"

	"pi/provider"
)

func TestItemsFromMessages(t *testing.T) {
	args := map[string]any{"command": "ls"}
	msgs := []provider.Message{
		{Role: provider.RoleUser, Content: []provider.Block{provider.Text("<context>\nDate: x\n</context>"), provider.Text("hi")}, Timestamp: 5},
		{Role: "custom", Content: []provider.Block{provider.Text("a script's note")}},
		{Role: provider.RoleAssistant, Content: []provider.Block{provider.Thinking("hmm"), provider.ToolCall("c1", "bash", args)},
			StopReason: provider.StopToolUse, Provider: "p", Model: "m"},
		{Role: provider.RoleToolResult, ToolCallID: "c1", ToolName: "bash", Content: []provider.Block{provider.Text("out")},
			IsError: true, Details: json.RawMessage(`{"exit":1}`)},
		{Role: provider.RoleAssistant, StopReason: provider.StopAborted, ErrorMessage: "stopped"},
		{Role: provider.RoleAssistant, StopReason: provider.StopError},
	}
	seen := map[string]bool{}
	got := items(msgs, seen)
	type summary struct{ ID, Role, Status, StopReason string }
	var sums []summary
	for _, it := range got {
		sums = append(sums, summary{it.ID, it.Role, it.Status, it.StopReason})
	}
	want := []summary{{"m0", "user", "", ""}, {"m2", "assistant", "complete", "toolUse"}, {"t-c1", "tool", "error", ""},
		{"m4", "assistant", "aborted", "aborted"}, {"m5", "assistant", "error", "error"}}
	if !reflect.DeepEqual(sums, want) {
		t.Fatalf("items: %+v\nwant %+v", sums, want)
	}
	if u := got[0]; len(u.Content) != 1 || *u.Content[0].Text != "hi" {
		t.Errorf("the context block was not dropped: %+v", u.Content)
	}
	if tool := got[2]; string(tool.Input) != `{"command":"ls"}` || !*tool.IsError || string(tool.Details) != `{"exit":1}` {
		t.Errorf("tool item: %+v", tool)
	}
	if !seen["c1"] {
		t.Error("the tool result was not marked seen")
	}
	if m := got[4].Model; m == nil || m.Provider != "unknown" {
		t.Errorf("an assistant without a model must still name one: %+v", m)
	}
}
