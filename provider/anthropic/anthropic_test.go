package anthropic

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

const fixtures = "../../testdata/anthropic"

func fixture(name string) string { return filepath.Join(fixtures, name) }

func testModel() provider.Model {
	return provider.Model{ID: "claude-sonnet-4-5", Provider: "anthropic", API: API, Reasoning: true, Input: []string{"text", "image"},
		ContextWindow: 200000, MaxTokens: 16384, Cost: provider.ModelCost{Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75}}
}

func TestStreamFixtures(t *testing.T) {
	for _, tt := range replay.Scenarios() {
		t.Run(tt.Name, func(t *testing.T) {
			srv := replay.Serve(t, fixture(tt.Name+".sse"))
			p := New(Config{BaseURL: srv.URL, APIKey: "sk-ant-test-key"})
			evs, msg := replay.Run(t, p, &provider.Request{Model: testModel(), Messages: []provider.Message{provider.UserText("hi", 1)}})
			if msg.StopReason != tt.Stop {
				t.Errorf("stop reason %s (%s), want %s", msg.StopReason, msg.ErrorMessage, tt.Stop)
			}
			h := srv.Headers()[0]
			if srv.Paths()[0] != "/v1/messages" || h.Get("X-Api-Key") != "sk-ant-test-key" || h.Get("Anthropic-Version") != Version {
				t.Errorf("path %v, headers %v", srv.Paths(), h)
			}
			if err := replay.CheckEvents(evs); err != nil {
				t.Error(err)
			}
			replay.Golden(t, fixture(tt.Name+".golden"), replay.Transcript(evs, msg), *update)
		})
	}
}

func TestClassification(t *testing.T) {
	for name, want := range map[string][2]bool{"rate_limited": {true, false}, "overflow": {false, true}, "error_midstream": {true, false}} {
		srv := replay.Serve(t, fixture(name+".sse"))
		_, msg := replay.Run(t, New(Config{BaseURL: srv.URL}), &provider.Request{Model: testModel()})
		if got := [2]bool{provider.IsRetryable(&msg), provider.IsContextOverflow(&msg)}; got != want {
			t.Errorf("%s (%q): retryable, overflow = %v, want %v", name, msg.ErrorMessage, got, want)
		}
	}
}

func TestRetryThenSuccess(t *testing.T) {
	srv := replay.Serve(t, fixture("rate_limited.sse"), fixture("text.sse"))
	var waits []time.Duration
	p := &provider.Retrying{Provider: New(Config{BaseURL: srv.URL, APIKey: "sk-ant-test-key"}), Policy: provider.DefaultRetryPolicy(),
		Sleep: func(ctx context.Context, d time.Duration) error { waits = append(waits, d); return nil }}
	evs, msg := replay.Run(t, p, &provider.Request{Model: testModel(), Messages: []provider.Message{provider.UserText("hi", 1)}})
	if !reflect.DeepEqual(waits, []time.Duration{3 * time.Second}) {
		t.Errorf("waits %v", waits)
	}
	replay.Golden(t, fixture("text.golden"), replay.Transcript(evs, msg), false)
}

func TestAbortMidStream(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Hel\"}}\n\n")
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	defer srv.Close()
	replay.CheckAbort(t, New(Config{BaseURL: srv.URL}), testModel(), "Hel")
}

func TestListModels(t *testing.T) {
	srv := replay.Serve(t, fixture("models.json.http"))
	models, err := New(Config{BaseURL: srv.URL + "/v1/"}).ListModels(context.Background())
	if err != nil || len(models) != 2 || models[0].ID != "claude-haiku-4-5-20251001" || models[0].Name != "Claude Haiku 4.5" {
		t.Fatalf("%+v %v", models, err)
	}
	if srv.Paths()[0] != "/v1/models" {
		t.Errorf("path %v", srv.Paths())
	}
}

func conversation() []provider.Message {
	signed := provider.Block{Type: provider.BlockThinking, Thinking: "I should read it.", ThinkingSignature: "sig-1"}
	redacted := provider.Block{Type: provider.BlockThinking, Thinking: "[Reasoning redacted]", ThinkingSignature: "enc-2", Redacted: true}
	unsigned := provider.Thinking("from a local model")
	return []provider.Message{
		{Role: provider.RoleUser, Content: []provider.Block{provider.Text("What is in logo.png and a.go?"), provider.Image("aGVsbG8=", "image/png")}, Timestamp: 1},
		{Role: provider.RoleAssistant, Content: []provider.Block{signed, redacted, unsigned, provider.Text("Reading."),
			provider.ToolCall("toolu_1", "read", map[string]any{"path": "logo.png"}), provider.ToolCall("toolu_2", "read", map[string]any{"path": "a.go", "limit": 10.0})},
			StopReason: provider.StopToolUse, Timestamp: 2},
		{Role: provider.RoleToolResult, ToolCallID: "toolu_1", ToolName: "read", Content: []provider.Block{provider.Text("Read image file [image/png]"), provider.Image("aGVsbG8=", "image/png")}, Timestamp: 3},
		{Role: provider.RoleToolResult, ToolCallID: "toolu_2", ToolName: "read", Content: []provider.Block{provider.Text("no such file")}, IsError: true, Timestamp: 4},
		provider.UserText("Go on.", 5),
	}
}

func tools() []provider.ToolDef {
	return []provider.ToolDef{
		{Name: "read", Description: "Read a file.", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"},"limit":{"type":"integer"}},"required":["path"]}`)},
		{Name: "noargs", Description: "No parameters."},
	}
}

func TestRequestBody(t *testing.T) {
	req := &provider.Request{Model: testModel(), SystemPrompt: "You are pi.", Messages: conversation(), Tools: tools(),
		Options: provider.Options{Thinking: "high"}}
	got, _ := json.MarshalIndent(buildRequest(req), "", "  ")
	replay.Golden(t, fixture("request.golden.json"), string(got)+"\n", *update)
	again, _ := json.MarshalIndent(buildRequest(req), "", "  ")
	if !bytes.Equal(got, again) {
		t.Error("the same request serialised differently")
	}
}

func TestThinkingBudget(t *testing.T) {
	temp := 0.2
	tests := []struct {
		level     string
		maxTokens int
		reasoning bool
		wantMax   int
		wantThink int
		wantTemp  bool
	}{
		{"", 4096, true, 4096, 0, true},
		{"off", 4096, true, 4096, 0, true},
		{"low", 16384, true, 16384, 2048, false},
		{"high", 4096, true, 16384 + 8192, 16384, false},
		{"high", 4096, false, 4096, 0, true},
		{"max", 4096, true, 32768 + 8192, 32768, false}, // the highest pi gives: xhigh's
	}
	for _, tt := range tests {
		m := testModel()
		m.MaxTokens, m.Reasoning = tt.maxTokens, tt.reasoning
		r := buildRequest(&provider.Request{Model: m, Options: provider.Options{Thinking: tt.level, Temperature: &temp}})
		think := 0
		if r.Thinking != nil {
			think = r.Thinking.BudgetTokens
		}
		if r.MaxTokens != tt.wantMax || think != tt.wantThink || (r.Temperature != nil) != tt.wantTemp {
			t.Errorf("%+v: max %d, budget %d, temperature %v", tt, r.MaxTokens, think, r.Temperature)
		}
	}
}

// TestRequestPrefixStable checks that a turn only appends: apart from the moving cache
// breakpoint (which the server's cache key ignores), nothing before the newest message changes.
func TestRequestPrefixStable(t *testing.T) {
	msgs := conversation()
	var prev *request
	for turn := 0; turn < 4; turn++ {
		req := buildRequest(&provider.Request{Model: testModel(), SystemPrompt: "You are pi.", Messages: msgs, Tools: tools()})
		if prev != nil {
			before := withoutBreakpoints(t, prev.Messages)
			after := withoutBreakpoints(t, req.Messages[:len(prev.Messages)])
			if before != after {
				t.Fatalf("turn %d changed the prefix:\n%s\n%s", turn, before, after)
			}
		}
		last := req.Messages[len(req.Messages)-1].Content
		if last[len(last)-1].CacheControl == nil || req.System[0].CacheControl == nil {
			t.Fatalf("turn %d: breakpoints missing", turn)
		}
		prev = req
		id := "toolu_t" + string(rune('a'+turn))
		msgs = append(msgs,
			provider.Message{Role: provider.RoleAssistant, Content: []provider.Block{provider.ToolCall(id, "read", map[string]any{"path": "x", "offset": 1.0})}, StopReason: provider.StopToolUse},
			provider.Message{Role: provider.RoleToolResult, ToolCallID: id, ToolName: "read", Content: []provider.Block{provider.Text("x")}})
	}
}

func withoutBreakpoints(t *testing.T, msgs []message) string {
	data, err := json.Marshal(msgs)
	if err != nil {
		t.Fatal(err)
	}
	return strings.ReplaceAll(string(data), `,"cache_control":{"type":"ephemeral"}`, "")
}

func TestAPIKeyKeptOutOfErrors(t *testing.T) {
	const key = "sk-ant-api03-secretsecret"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(401)
		io.WriteString(w, `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key `+key+`"}}`)
	}))
	defer srv.Close()
	_, msg := replay.Run(t, New(Config{BaseURL: srv.URL, APIKey: key}), &provider.Request{Model: testModel()})
	if strings.Contains(msg.ErrorMessage, key) || !strings.Contains(msg.ErrorMessage, "authentication_error") {
		t.Errorf("error message %q", msg.ErrorMessage)
	}
}

// TestHeaderTokensKeptOutOfErrors: a token in the configured headers, or the start of one as
// a server masks it, does not reach the error message.
func TestHeaderTokensKeptOutOfErrors(t *testing.T) {
	const token = "gw-token-Qx7vR2mK9pL4nB8w"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(401)
		io.WriteString(w, `{"type":"error","error":{"type":"authentication_error","message":"bad token `+
			r.Header.Get("X-Gateway-Token")+` (starts `+token[:14]+`***)"}}`)
	}))
	defer srv.Close()
	p := New(Config{BaseURL: srv.URL, APIKey: "sk-ant-api03-secretsecret", Headers: map[string]string{"X-Gateway-Token": token}})
	_, msg := replay.Run(t, p, &provider.Request{Model: testModel()})
	if strings.Contains(msg.ErrorMessage, token[:6]) || !strings.Contains(msg.ErrorMessage, "authentication_error") {
		t.Errorf("error message %q", msg.ErrorMessage)
	}
}
