package main

import (
	"encoding/json"
	"testing"

	"bytes"
	"context"
	"pi/provider"
	"pi/provider/faux"
	"pi/tools"
	"strings"
)

func TestAgentEventJSONShapes(t *testing.T) {
	user := provider.UserText("hi", 7)
	partial := provider.Message{Role: provider.RoleAssistant, Content: []provider.Block{provider.Text("He")},
		Usage: &provider.Usage{}, StopReason: provider.StopStop, Timestamp: 8}
	delta := provider.Event{Type: provider.EventTextDelta, ContentIndex: 0, Delta: "He", Partial: &partial}
	res := tools.Result{Content: []provider.Block{provider.Text("ok")}, Details: map[string]int{"lines": 3}}
	cases := []struct {
		ev   AgentEvent
		want string
	}{
		{AgentEvent{Type: EvAgentStart}, `{"type":"agent_start"}`},
		{AgentEvent{Type: EvMessageEnd, Message: &user}, `{"type":"message_end","message":{"role":"user","content":"hi","timestamp":7}}`},
		{AgentEvent{Type: EvToolExecutionStart, ToolCallID: "c1", ToolName: "read", Args: map[string]any{"path": "a"}},
			`{"type":"tool_execution_start","toolCallId":"c1","toolName":"read","args":{"path":"a"}}`},
		{AgentEvent{Type: EvToolExecutionEnd, ToolCallID: "c1", ToolName: "read", Result: &res},
			`{"type":"tool_execution_end","toolCallId":"c1","toolName":"read","result":{"content":[{"type":"text","text":"ok"}],"details":{"lines":3}},"isError":false}`},
		{AgentEvent{Type: EvTurnEnd, Message: &user}, `{"type":"turn_end","message":{"role":"user","content":"hi","timestamp":7},"toolResults":[]}`},
		{AgentEvent{Type: EvAgentEnd}, `{"type":"agent_end","messages":[]}`},
		{AgentEvent{Type: EvMessageUpdate, Message: &partial, AssistantEvent: &delta},
			`{"type":"message_update","message":{"role":"assistant","content":[{"type":"text","text":"He"}],"api":"","provider":"","model":"","usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":8},` +
				`"assistantMessageEvent":{"type":"text_delta","contentIndex":0,"delta":"He","partial":{"role":"assistant","content":[{"type":"text","text":"He"}],"api":"","provider":"","model":"","usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":8}}}`},
		{AgentEvent{Type: EvAutoRetryStart, Retry: &RetryInfo{Attempt: 1, MaxAttempts: 3, DelayMs: 2000, Error: "503"}},
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

// TestJSONModeReportsQueueChanges checks that --mode json writes queue_update when a follow-up
// is queued during a run and again when it is delivered.
func TestJSONModeReportsQueueChanges(t *testing.T) {
	var a *app
	a = newOpsApp(t, fauxModel(false),
		faux.Reply(func(*provider.Request) provider.Message {
			a.agent.FollowUp(provider.UserText("one more thing", 2))
			return faux.Text("first answer")
		}),
		faux.Text("second answer"))
	var out, errOut bytes.Buffer
	if code := runJSONMode(context.Background(), a, []string{"go"}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	var updates []string
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		if strings.Contains(line, `"type":"queue_update"`) {
			updates = append(updates, line)
		}
	}
	want := []string{`{"type":"queue_update","steering":[],"followUp":["one more thing"]}`,
		`{"type":"queue_update","steering":[],"followUp":[]}`}
	if strings.Join(updates, "\n") != strings.Join(want, "\n") {
		t.Fatalf("queue updates:\n%s", strings.Join(updates, "\n"))
	}
}
