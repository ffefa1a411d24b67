package ollamatest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
)

// These tests run the scripted model on a real server over plain HTTP, one wire format each,
// so a failure here points at the model or the server, not at pi's adapters.

const testModel = "pi-scripted"

var readSchema = json.RawMessage(`{"type":"object","properties":{"path":{"type":"string","description":"File to read"}},"required":["path"]}`)

const userAsk = "Read the README."

// startWithModel starts a server and creates the ReadRoundTrip model on it.
func startWithModel(t *testing.T) (*Server, context.Context) {
	t.Helper()
	s := Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	t.Cleanup(cancel)
	start := time.Now()
	if err := s.CreateModel(ctx, testModel, ReadRoundTrip()); err != nil {
		t.Fatal(err)
	}
	t.Logf("model created in %v", time.Since(start))
	return s, ctx
}

func nativeTools() []map[string]any {
	return []map[string]any{{"type": "function", "function": map[string]any{
		"name": "read", "description": "Read a file", "parameters": readSchema}}}
}

type nativeCall struct {
	ID       string `json:"id,omitempty"`
	Function struct {
		Name      string         `json:"name"`
		Arguments map[string]any `json:"arguments"`
	} `json:"function"`
}

type nativeMessage struct {
	Role      string       `json:"role"`
	Content   string       `json:"content"`
	ToolCalls []nativeCall `json:"tool_calls,omitempty"`
	ToolName  string       `json:"tool_name,omitempty"`
}

type nativeReply struct {
	Message         nativeMessage `json:"message"`
	DoneReason      string        `json:"done_reason"`
	PromptEvalCount int           `json:"prompt_eval_count"`
	EvalCount       int           `json:"eval_count"`
}

func nativeChat(t *testing.T, s *Server, ctx context.Context, msgs []nativeMessage) nativeReply {
	t.Helper()
	var out nativeReply
	req := map[string]any{"model": testModel, "messages": msgs, "tools": nativeTools(), "stream": false,
		"options": map[string]any{"temperature": 1.5}}
	if err := s.PostJSON(ctx, "/api/chat", req, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestServerShowsToolsCapability(t *testing.T) {
	s, ctx := startWithModel(t)
	var show struct {
		Capabilities []string `json:"capabilities"`
	}
	if err := s.PostJSON(ctx, "/api/show", map[string]any{"model": testModel}, &show); err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{"completion", "tools"} {
		if !slices.Contains(show.Capabilities, c) {
			t.Errorf("capabilities %v lack %q", show.Capabilities, c)
		}
	}
}

func TestNativeChatRoundTrip(t *testing.T) {
	s, ctx := startWithModel(t)
	user := nativeMessage{Role: "user", Content: userAsk}
	var first nativeReply
	for run := 0; run < 5; run++ { // temperature 1.5 must not change a token
		start := time.Now()
		r := nativeChat(t, s, ctx, []nativeMessage{user})
		t.Logf("run %d: tool call reply in %v (prompt %d tokens, output %d)", run, time.Since(start), r.PromptEvalCount, r.EvalCount)
		if run == 0 {
			first = r
		}
		if len(r.Message.ToolCalls) != 1 || r.Message.Content != "" {
			t.Fatalf("run %d: message %+v, want one tool call and no text", run, r.Message)
		}
		call := r.Message.ToolCalls[0].Function
		if call.Name != "read" || call.Arguments["path"] != ReadPath || len(call.Arguments) != 1 {
			t.Fatalf("run %d: call %+v, want read %s", run, call, ReadPath)
		}
	}
	msgs := []nativeMessage{user, first.Message, {Role: "tool", ToolName: "read", Content: "hello"}}
	for run := 0; run < 5; run++ {
		start := time.Now()
		r := nativeChat(t, s, ctx, msgs)
		t.Logf("run %d: final reply in %v (prompt %d tokens, output %d)", run, time.Since(start), r.PromptEvalCount, r.EvalCount)
		if r.Message.Content != FinalAnswer || len(r.Message.ToolCalls) != 0 || r.DoneReason != "stop" {
			t.Fatalf("run %d: %+v, want %q and done_reason stop", run, r, FinalAnswer)
		}
	}
}

// TestNativeChatStreams checks that a reply arrives in several chunks, as the word-sized
// pieces promise, so streaming code paths are exercised.
func TestNativeChatStreams(t *testing.T) {
	s, ctx := startWithModel(t)
	body, _ := json.Marshal(map[string]any{"model": testModel, "stream": true, "tools": nativeTools(), "messages": []nativeMessage{
		{Role: "user", Content: userAsk}, {Role: "assistant", ToolCalls: []nativeCall{readCall()}},
		{Role: "tool", ToolName: "read", Content: "hello"}}})
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, s.BaseURL+"/api/chat", bytes.NewReader(body))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var text string
	chunks := 0
	for sc := bufio.NewScanner(resp.Body); sc.Scan(); {
		var r nativeReply
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("chunk %q: %v", sc.Text(), err)
		}
		if r.Message.Content != "" {
			chunks++
			text += r.Message.Content
		}
	}
	if text != FinalAnswer || chunks < 2 {
		t.Errorf("streamed %q in %d chunks, want %q in several", text, chunks, FinalAnswer)
	}
}

func readCall() nativeCall {
	var c nativeCall
	c.Function.Name = "read"
	c.Function.Arguments = map[string]any{"path": ReadPath}
	return c
}

// TestToolLoopReusesPromptCache runs a 10-turn tool conversation and checks, from the runner's
// cache log, that each request after the first re-uses the whole previous prompt and evaluates
// only what was added since: the property the prompt-prefix test asks of pi. The server runs at
// trace level so that Prompts can show each prompt extends the one before.
func TestToolLoopReusesPromptCache(t *testing.T) {
	s := Start(t, "OLLAMA_DEBUG=2")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var calls []map[string]any
	for k := 1; k <= 10; k++ {
		calls = append(calls, map[string]any{"path": fmt.Sprintf("step%02d.txt", k)})
	}
	if err := s.CreateModel(ctx, testModel, ToolLoop("read", calls, FinalAnswer)); err != nil {
		t.Fatal(err)
	}
	msgs := []nativeMessage{{Role: "system", Content: "You are a test."}, {Role: "user", Content: userAsk}}
	for k, want := range calls {
		r := nativeChat(t, s, ctx, msgs)
		if len(r.Message.ToolCalls) != 1 || r.Message.ToolCalls[0].Function.Arguments["path"] != want["path"] {
			t.Fatalf("turn %d: %+v, want read %v", k, r.Message, want["path"])
		}
		msgs = append(msgs, r.Message, nativeMessage{Role: "tool", ToolName: "read", Content: fmt.Sprintf("contents %d", k)})
	}
	if r := nativeChat(t, s, ctx, msgs); r.Message.Content != FinalAnswer {
		t.Fatalf("last turn: %+v, want %q", r.Message, FinalAnswer)
	}
	checkPromptsExtend(t, s, len(calls)+1)
	loads, err := s.CacheLoads()
	if err != nil {
		t.Fatal(err)
	}
	if len(loads) != len(calls)+1 {
		t.Fatalf("%d cache loads logged, want %d: %+v", len(loads), len(calls)+1, loads)
	}
	for i := 1; i < len(loads); i++ {
		prev, cur := loads[i-1], loads[i]
		t.Logf("turn %d: prompt %d, cached %d, evaluated %d", i, cur.Prompt, cur.Used, cur.Remaining)
		if cur.Used != prev.Prompt || cur.Remaining != cur.Prompt-prev.Prompt {
			t.Errorf("turn %d: %+v after %+v; want the previous prompt cached and only the rest evaluated", i, cur, prev)
		}
	}
}

func checkPromptsExtend(t *testing.T, s *Server, n int) {
	t.Helper()
	prompts, err := s.Prompts()
	if err != nil {
		t.Fatal(err)
	}
	if len(prompts) != n {
		t.Fatalf("%d prompts logged, want %d", len(prompts), n)
	}
	for i := 1; i < len(prompts); i++ {
		if !strings.HasPrefix(prompts[i], prompts[i-1]) {
			t.Errorf("prompt %d does not start with prompt %d:\n%s\n---\n%s", i, i-1, prompts[i-1], prompts[i])
		}
	}
}
