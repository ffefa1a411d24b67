package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"pi/provider"
	"pi/provider/internal/replay"
)

var update = flag.Bool("update", false, "rewrite golden files")

const fixtures = "../../testdata/openai"

func testModel() provider.Model {
	return provider.Model{ID: "gpt-4.1", Provider: "openai", API: API, Input: []string{"text", "image"},
		ContextWindow: 8192, MaxTokens: 1024, Cost: provider.ModelCost{Input: 2, Output: 8, CacheRead: 0.5}}
}

func TestStreamFixtures(t *testing.T) {
	for _, tt := range replay.Scenarios() {
		t.Run(tt.Name, func(t *testing.T) {
			srv := replay.Serve(t, filepath.Join(fixtures, tt.Name+".sse"))
			p := New(Config{BaseURL: srv.URL + "/v1"})
			evs, msg := replay.Run(t, p, &provider.Request{Model: testModel(), Messages: []provider.Message{provider.UserText("hi", 1)}})
			if msg.StopReason != tt.Stop {
				t.Errorf("stop reason %s (%s), want %s", msg.StopReason, msg.ErrorMessage, tt.Stop)
			}
			if got := srv.Paths(); len(got) != 1 || got[0] != "/v1/chat/completions" {
				t.Errorf("paths %v", got)
			}
			if err := replay.CheckEvents(evs); err != nil {
				t.Error(err)
			}
			replay.Golden(t, filepath.Join(fixtures, tt.Name+".golden"), replay.Transcript(evs, msg), *update)
		})
	}
}

func TestClassification(t *testing.T) {
	for name, want := range map[string][2]bool{"rate_limited": {true, false}, "overflow": {false, true}, "error_midstream": {true, false}} {
		srv := replay.Serve(t, filepath.Join(fixtures, name+".sse"))
		_, msg := replay.Run(t, New(Config{BaseURL: srv.URL}), &provider.Request{Model: testModel()})
		if got := [2]bool{provider.IsRetryable(&msg), provider.IsContextOverflow(&msg)}; got != want {
			t.Errorf("%s (%q): retryable, overflow = %v, want %v", name, msg.ErrorMessage, got, want)
		}
	}
}

func TestRetryThenSuccess(t *testing.T) {
	srv := replay.Serve(t, filepath.Join(fixtures, "rate_limited.sse"), filepath.Join(fixtures, "text.sse"))
	var waits []time.Duration
	p := &provider.Retrying{Provider: New(Config{BaseURL: srv.URL + "/v1"}), Policy: provider.DefaultRetryPolicy(),
		Sleep: func(ctx context.Context, d time.Duration) error { waits = append(waits, d); return nil }}
	evs, msg := replay.Run(t, p, &provider.Request{Model: testModel(), Messages: []provider.Message{provider.UserText("hi", 1)}})
	if !reflect.DeepEqual(waits, []time.Duration{3 * time.Second}) {
		t.Errorf("waits %v, want the server's Retry-After", waits)
	}
	replay.Golden(t, filepath.Join(fixtures, "text.golden"), replay.Transcript(evs, msg), false)
}

func TestAbortMidStream(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hel\"}}]}\n\n")
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	defer srv.Close()
	replay.CheckAbort(t, New(Config{BaseURL: srv.URL}), testModel(), "Hel")
}

func TestAPIKeyKeptOutOfErrors(t *testing.T) {
	const key = "sk-proj-abcdefghijklmnop"
	var auth string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth = r.Header.Get("Authorization")
		w.WriteHeader(401)
		io.WriteString(w, `{"error":{"message":"Incorrect API key provided: `+key+`.","type":"invalid_request_error"}}`)
	}))
	defer srv.Close()
	p := New(Config{BaseURL: srv.URL, APIKey: key, Headers: map[string]string{"X-Title": "pi"}})
	_, msg := replay.Run(t, p, &provider.Request{Model: testModel()})
	if auth != "Bearer "+key {
		t.Errorf("authorization %q", auth)
	}
	if strings.Contains(msg.ErrorMessage, key) || !strings.Contains(msg.ErrorMessage, "401") {
		t.Errorf("error message %q", msg.ErrorMessage)
	}
	if _, err := p.ListModels(context.Background()); err == nil || strings.Contains(err.Error(), key) {
		t.Errorf("list error %v", err)
	}
}

func TestListModels(t *testing.T) {
	srv := replay.Serve(t, filepath.Join(fixtures, "models.json.http"))
	models, err := New(Config{BaseURL: srv.URL + "/v1"}).ListModels(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range models {
		got = append(got, m.ID)
	}
	if !reflect.DeepEqual(got, []string{"Qwen/Qwen3-8B", "qwen3-1.7b"}) || models[0].ContextWindow != 32768 || srv.Paths()[0] != "/v1/models" {
		t.Errorf("models %v %+v", got, models)
	}
}

func tools() []provider.ToolDef {
	return []provider.ToolDef{
		{Name: "read", Description: "Read a file.", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"},"limit":{"type":"integer"}},"required":["path"]}`)},
		{Name: "bash", Description: "Run a command.", Parameters: json.RawMessage(`{
			"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]}`)},
		{Name: "noargs", Description: "No parameters."},
	}
}

func requestBody(t *testing.T, p *Provider, req *provider.Request) []byte {
	t.Helper()
	data, err := json.MarshalIndent(p.buildRequest(req), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestRequestBody(t *testing.T) {
	p := New(Config{BaseURL: "http://127.0.0.1:1234/v1"})
	m := testModel()
	m.Reasoning = true
	req := &provider.Request{Model: m, SystemPrompt: "You are pi.", Messages: replay.Conversation(), Tools: tools(),
		Options: provider.Options{Thinking: "medium"}}
	replay.Golden(t, filepath.Join(fixtures, "request.golden.json"), string(requestBody(t, p, req))+"\n", *update)
	if !bytes.Equal(requestBody(t, p, req), requestBody(t, p, req)) {
		t.Error("the same request serialised differently")
	}
}

// max is the highest effort such servers take, as xhigh is.
func TestReasoningEffortOfEachLevel(t *testing.T) {
	for level, want := range map[string]string{"": "", "off": "", "minimal": "low", "low": "low", "medium": "medium",
		"high": "high", "xhigh": "high", "max": "high"} {
		if got := reasoningEffort(level); got != want {
			t.Errorf("reasoningEffort(%q) = %q, want %q", level, got, want)
		}
	}
}

// TestRequestPrefixStable checks that a turn only appends to the previous request: the model
// server can then reuse its cache for everything before the newest message.
func TestRequestPrefixStable(t *testing.T) {
	p := New(Config{BaseURL: "http://127.0.0.1:1234/v1"})
	msgs := replay.Conversation()
	var prev *chatRequest
	for turn := 0; turn < 4; turn++ {
		req := p.buildRequest(&provider.Request{Model: testModel(), SystemPrompt: "You are pi.", Messages: msgs, Tools: tools()})
		if prev != nil {
			before, _ := json.Marshal(prev.Messages)
			after, _ := json.Marshal(req.Messages[:len(prev.Messages)])
			if !bytes.Equal(before, after) {
				t.Fatalf("turn %d changed the prefix:\n%s\n%s", turn, before, after)
			}
			tb, _ := json.Marshal(prev.Tools)
			ta, _ := json.Marshal(req.Tools)
			if !bytes.Equal(tb, ta) {
				t.Fatalf("turn %d changed the tools", turn)
			}
		}
		prev = req
		id := "call_t" + string(rune('a'+turn))
		msgs = append(msgs,
			provider.Message{Role: provider.RoleAssistant, Content: []provider.Block{provider.ToolCall(id, "bash", map[string]any{"command": "ls", "timeout": 5.0, "cwd": "/"})}, StopReason: provider.StopToolUse},
			provider.Message{Role: provider.RoleToolResult, ToolCallID: id, ToolName: "bash", Content: []provider.Block{provider.Text("a.go")}})
	}
}
