package server

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// A transcript item becomes the pi message RPC mode would list: a tool item its result, an
// assistant reply with its model, usage and a stop reason; unfinished items are left out.
func TestFinishedMessagesAsPi(t *testing.T) {
	text, yes := "done", true
	snap := &SessionSnapshot{Transcript: []Item{
		{Role: "user", Content: []Content{{Type: "text", Text: &text}}, Timestamp: 1},
		{Role: "assistant", Model: &ModelRef{Provider: "ollama", ID: "qwen3"}, Timestamp: 2,
			Usage:   &Usage{Input: 3, Output: 4, TotalTokens: 7, Cost: UsageCost{Total: 0.5}},
			Content: []Content{{Type: "toolCall", ToolCallID: "c1", ToolName: "bash", Input: json.RawMessage(`{"command":"ls"}`)}}},
		{Role: "tool", ToolCallID: "c1", ToolName: "bash", IsError: &yes, Details: json.RawMessage(`{"exit":1}`),
			Content: []Content{{Type: "text", Text: &text}}, Timestamp: 3, Status: "done"},
		{Role: "assistant", Status: "streaming", Content: []Content{{Type: "text", Text: &text}}},
	}}
	want := []string{
		`{"role":"user","content":[{"type":"text","text":"done"}],"timestamp":1}`,
		`{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"bash","arguments":{"command":"ls"}}],"api":"","provider":"ollama","model":"qwen3","usage":{"input":3,"output":4,"cacheRead":0,"cacheWrite":0,"totalTokens":7,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0.5}},"stopReason":"stop","timestamp":2}`,
		`{"role":"toolResult","toolCallId":"c1","toolName":"bash","content":[{"type":"text","text":"done"}],"details":{"exit":1},"isError":true,"timestamp":3}`,
	}
	got := finishedMessages(snap)
	if len(got) != len(want) {
		t.Fatalf("%d messages, want %d", len(got), len(want))
	}
	for i := range want {
		if b, err := json.Marshal(got[i]); err != nil || string(b) != want[i] {
			t.Errorf("message %d is\n%s (%v)\nwant\n%s", i, b, err, want[i])
		}
	}
}

// pi -p --connect prints the last reply of its prompts, run one after the other, and fails
// clearly on a session that is not there.
func TestRunPrintThroughTheTypedClient(t *testing.T) {
	k := startServer(t, slowReply("first reply", 0), nil)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for _, tc := range []struct {
		name          string
		opts          PrintOptions
		code          int
		stdout, error string
	}{
		{"two prompts", PrintOptions{Prompts: []string{"hi", "again"}, Cwd: "/work"}, 0, "second reply\n", ""},
		{"no such session", PrintOptions{Session: "nope", Prompts: []string{"hi"}}, 1, "", "nope"},
		{"no prompt", PrintOptions{}, 2, "", "nothing to do"},
	} {
		var out, errOut bytes.Buffer
		tc.opts.Socket = k.socket
		if code := RunPrint(ctx, tc.opts, &out, &errOut); code != tc.code || out.String() != tc.stdout ||
			!strings.Contains(errOut.String(), tc.error) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q", tc.name, code, out.String(), errOut.String())
		}
	}
}
