package provider

import (
	"reflect"
	"testing"
)

func TestReplayMessages(t *testing.T) {
	call := func(id string) Block { return ToolCall(id, "read", map[string]any{"path": id}) }
	asst := func(reason StopReason, blocks ...Block) Message {
		return Message{Role: RoleAssistant, StopReason: reason, Content: blocks}
	}
	result := func(id string) Message { return Message{Role: RoleToolResult, ToolCallID: id, ToolName: "read"} }
	missing := func(id string) Message {
		return Message{Role: RoleToolResult, ToolCallID: id, ToolName: "read",
			Content: []Block{Text("No result provided")}, IsError: true}
	}
	user := UserText("go", 1)
	tests := []struct {
		name string
		in   []Message
		want []Message
	}{
		{"complete round trip kept", []Message{user, asst(StopToolUse, call("a")), result("a")},
			[]Message{user, asst(StopToolUse, call("a")), result("a")}},
		{"errored and aborted replies dropped", []Message{user, asst(StopError, Text("x")), asst(StopAborted), user},
			[]Message{user, user}},
		{"orphan call gets a result before the next user message",
			[]Message{user, asst(StopToolUse, call("a"), call("b")), result("b"), user},
			[]Message{user, asst(StopToolUse, call("a"), call("b")), result("b"), missing("a"), user}},
		{"orphan at the end", []Message{user, asst(StopToolUse, call("a"))},
			[]Message{user, asst(StopToolUse, call("a")), missing("a")}},
		{"application roles dropped", []Message{user, {Role: "custom"}}, []Message{user}},
		{"a result whose call was left out is left out", []Message{user, asst(StopAborted, call("a")), result("a"), user},
			[]Message{user, user}},
		{"a result with no call at all", []Message{user, result("z"), asst(StopStop, Text("ok"))},
			[]Message{user, asst(StopStop, Text("ok"))}},
	}
	for _, tt := range tests {
		if got := ReplayMessages(tt.in); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s:\n got %+v\nwant %+v", tt.name, got, tt.want)
		}
	}
}
