package agent

import (
	"encoding/json"
	"testing"

	"pi/provider"
	"pi/tools"
)

func TestAgentEventJSONShapes(t *testing.T) {
	user := provider.UserText("hi", 7)
	partial := provider.Message{Role: provider.RoleAssistant, Content: []provider.Block{provider.Text("He")},
		Usage: &provider.Usage{}, StopReason: provider.StopStop, Timestamp: 8}
	delta := provider.Event{Type: provider.EventTextDelta, ContentIndex: 0, Delta: "He", Partial: &partial}
	res := tools.Result{Content: []provider.Block{provider.Text("ok")}, Details: map[string]int{"lines": 3}}
	cases := []struct {
		ev   Event
		want string
	}{
		{Event{Type: EvAgentStart}, `{"type":"agent_start"}`},
		{Event{Type: EvMessageEnd, Message: &user}, `{"type":"message_end","message":{"role":"user","content":"hi","timestamp":7}}`},
		{Event{Type: EvToolExecutionStart, ToolCallID: "c1", ToolName: "read", Args: map[string]any{"path": "a"}},
			`{"type":"tool_execution_start","toolCallId":"c1","toolName":"read","args":{"path":"a"}}`},
		{Event{Type: EvToolExecutionEnd, ToolCallID: "c1", ToolName: "read", Result: &res},
			`{"type":"tool_execution_end","toolCallId":"c1","toolName":"read","result":{"content":[{"type":"text","text":"ok"}],"details":{"lines":3}},"isError":false}`},
		{Event{Type: EvTurnEnd, Message: &user}, `{"type":"turn_end","message":{"role":"user","content":"hi","timestamp":7},"toolResults":[]}`},
		{Event{Type: EvAgentEnd}, `{"type":"agent_end","messages":[]}`},
		{Event{Type: EvSubagent, AgentID: "agent-2", Sub: &Event{Type: EvToolExecutionStart, ToolCallID: "c9", ToolName: "grep", Args: map[string]any{}}},
			`{"type":"subagent_event","agentId":"agent-2","event":{"type":"tool_execution_start","toolCallId":"c9","toolName":"grep","args":{}}}`},
		{Event{Type: EvMessageUpdate, Message: &partial, AssistantEvent: &delta},
			`{"type":"message_update","message":{"role":"assistant","content":[{"type":"text","text":"He"}],"api":"","provider":"","model":"","usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":8},` +
				`"assistantMessageEvent":{"type":"text_delta","contentIndex":0,"delta":"He","partial":{"role":"assistant","content":[{"type":"text","text":"He"}],"api":"","provider":"","model":"","usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":8}}}`},
		{Event{Type: EvAutoRetryStart, Retry: &RetryInfo{Attempt: 1, MaxAttempts: 3, DelayMs: 2000, Error: "503"}},
			`{"type":"auto_retry_start","attempt":1,"maxAttempts":3,"delayMs":2000,"errorMessage":"503"}`},
	}
	for _, tc := range cases {
		t.Run(tc.ev.Type, func(t *testing.T) {
			got, err := json.Marshal(tc.ev)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Fatalf("\n got %s\nwant %s", got, tc.want)
			}
		})
	}
}
