package ollama

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"pi/provider"
	"pi/provider/internal/replay"
)

func tools() []provider.ToolDef {
	return []provider.ToolDef{
		{Name: "read", Description: "Read a file.", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string","description":"file"},"limit":{"type":"integer"}},"required":["path"]}`)},
		{Name: "bash", Description: "Run a command.", Parameters: json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"},"timeout":{"type":"number"}},"required":["command"]}`)},
		{Name: "noargs", Description: "No parameters."},
	}
}

func infoFrom(t *testing.T, file string) *modelInfo {
	t.Helper()
	data, err := os.ReadFile(fixture(file))
	if err != nil {
		t.Fatal(err)
	}
	var resp api.ShowResponse
	if err := json.Unmarshal(data[bytes.Index(data, []byte("\n\n"))+2:], &resp); err != nil {
		t.Fatal(err)
	}
	return parseShow(&resp)
}

func body(t *testing.T, p *Provider, req *provider.Request, info *modelInfo) []byte {
	t.Helper()
	chat, err := p.buildRequest(req, info)
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.MarshalIndent(chat, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestRequestBody(t *testing.T) {
	p := newProvider(t, "http://127.0.0.1:11434")
	llava := testModel()
	llava.ID = "llava:7b"
	tests := []struct {
		golden, show string
		model        provider.Model
		thinking     string
	}{
		{"request_qwen3.golden.json", "show_qwen3.json.http", testModel(), "medium"},
		{"request_gptoss.golden.json", "show_gptoss.json.http", provider.Model{ID: "gpt-oss:20b", ContextWindow: 65536, MaxTokens: 4096}, "xhigh"},
		{"request_llava.golden.json", "show_llava.json.http", llava, "high"},
	}
	for _, tt := range tests {
		req := &provider.Request{Model: tt.model, SystemPrompt: "You are pi.", Messages: replay.Conversation(), Tools: tools(),
			Options: provider.Options{Thinking: tt.thinking}}
		info := infoFrom(t, tt.show)
		got := body(t, p, req, info)
		replay.Golden(t, fixture(tt.golden), string(got)+"\n", *update)
		if !bytes.Equal(got, body(t, p, req, info)) {
			t.Errorf("%s: the same request serialised differently", tt.golden)
		}
	}
}

func TestThinkValue(t *testing.T) {
	qwen, oss, llava := infoFrom(t, "show_qwen3.json.http"), infoFrom(t, "show_gptoss.json.http"), infoFrom(t, "show_llava.json.http")
	tests := []struct {
		level string
		info  *modelInfo
		want  any
	}{
		{"", qwen, false}, {"off", qwen, false}, {"minimal", qwen, true}, {"high", qwen, true},
		{"off", oss, "low"}, {"minimal", oss, "low"}, {"medium", oss, "medium"}, {"xhigh", oss, "high"}, {"max", oss, "high"}, {"max", qwen, true},
		{"high", llava, nil},
	}
	for _, tt := range tests {
		v := thinkValue(tt.level, tt.info)
		var got any
		if v != nil {
			got = v.Value
		}
		if got != tt.want {
			t.Errorf("thinkValue(%q) = %v, want %v", tt.level, got, tt.want)
		}
	}
}

func TestNumCtx(t *testing.T) {
	p := newProvider(t, "http://x:1")
	tests := []struct {
		configured, trained, want int
	}{
		{0, 40960, 32768}, {0, 4096, 4096}, {0, 0, 32768}, {8192, 40960, 8192},
		{65536, 40960, 40960}, // Ollama would cap it there anyway, without a word
	}
	for _, tt := range tests {
		if got := p.numCtx(&provider.Model{ContextWindow: tt.configured}, &modelInfo{contextLength: tt.trained}); got != tt.want {
			t.Errorf("numCtx(%d, %d) = %d, want %d", tt.configured, tt.trained, got, tt.want)
		}
	}
}

// TestRequestPrefixStable checks that a turn only appends to the previous request, so Ollama
// reuses its cached prefix.
func TestRequestPrefixStable(t *testing.T) {
	p := newProvider(t, "http://127.0.0.1:11434")
	info := infoFrom(t, "show_qwen3.json.http")
	msgs := replay.Conversation()
	var prev *api.ChatRequest
	for turn := 0; turn < 4; turn++ {
		req, err := p.buildRequest(&provider.Request{Model: testModel(), SystemPrompt: "You are pi.", Messages: msgs, Tools: tools()}, info)
		if err != nil {
			t.Fatal(err)
		}
		if prev != nil {
			before, _ := json.Marshal(prev.Messages)
			after, _ := json.Marshal(req.Messages[:len(prev.Messages)])
			tb, _ := json.Marshal(prev.Tools)
			ta, _ := json.Marshal(req.Tools)
			if !bytes.Equal(before, after) || !bytes.Equal(tb, ta) {
				t.Fatalf("turn %d changed the prefix:\n%s\n%s", turn, before, after)
			}
		}
		prev = req
		id := fmt.Sprintf("call_%d", turn)
		msgs = append(msgs,
			provider.Message{Role: provider.RoleAssistant, Content: []provider.Block{provider.ToolCall(id, "bash", map[string]any{"command": "ls", "timeout": 5.0, "cwd": "/"})}, StopReason: provider.StopToolUse},
			provider.Message{Role: provider.RoleToolResult, ToolCallID: id, ToolName: "bash", Content: []provider.Block{provider.Text("a.go")}})
	}
}

func TestHost(t *testing.T) {
	tests := []struct{ env, want string }{
		{"", "http://127.0.0.1:11434"},
		{"0.0.0.0", "http://0.0.0.0:11434"},
		{"127.0.0.1:8080", "http://127.0.0.1:8080"},
		{":9000", "http://127.0.0.1:9000"},
		{"https://ollama.example.com", "https://ollama.example.com:443"},
		{"http://gpu-box:11434/", "http://gpu-box:11434"},
		{"example.com/ollama", "http://example.com:11434/ollama"},
		{"[::1]:11434", "http://[::1]:11434"},
		{`"localhost:5000"`, "http://localhost:5000"},
	}
	for _, tt := range tests {
		got := Host(func(string) string { return tt.env })
		if got != tt.want {
			t.Errorf("Host(%q) = %q, want %q", tt.env, got, tt.want)
		}
	}
}

func TestDescribeAndList(t *testing.T) {
	srv := replay.Serve(t, fixture("show_qwen3.json.http"), fixture("tags.json.http"), fixture("show_llava.json.http"))
	p := newProvider(t, srv.URL)
	m, caps, err := p.Describe(context.Background(), "qwen3:1.7b")
	if err != nil {
		t.Fatal(err)
	}
	if m.ContextWindow != 32768 || !m.Reasoning || m.AcceptsImages() || !reflect.DeepEqual(caps, []string{"completion", "tools", "thinking"}) {
		t.Errorf("described %+v %v", m, caps)
	}
	if _, _, err := p.Describe(context.Background(), "qwen3:1.7b"); err != nil {
		t.Fatal(err) // cached: no second /api/show
	}
	list, err := p.ListModels(context.Background())
	if err != nil || len(list) != 2 || list[0].ID != "llava:7b" || !list[0].AcceptsImages() || list[0].ContextWindow != 4096 ||
		list[1].ContextWindow != 32768 {
		t.Fatalf("list %+v %v", list, err)
	}
	if got := srv.Paths(); len(got) != 3 {
		t.Errorf("requests %v: qwen3 should have been described once", got)
	}
}

func TestDiscover(t *testing.T) {
	// llava (no tools) is listed first; qwen3, which has tools, is chosen.
	srv := replay.Serve(t, fixture("tags_llava_first.json.http"), fixture("show_llava.json.http"), fixture("show_qwen3.json.http"))
	m, why, err := newProvider(t, srv.URL).Choose(context.Background())
	if err != nil || m.ID != "qwen3:1.7b" || why != "the newest of 2 local models that calls tools" {
		t.Fatalf("discovered %+v (%q), %v", m, why, err)
	}
	empty := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(`{"models":[]}`)) }))
	defer empty.Close()
	if _, err := newProvider(t, empty.URL).Discover(context.Background()); err == nil || !strings.Contains(err.Error(), "ollama pull") {
		t.Errorf("no models: %v", err)
	}
	if _, err := newProvider(t, "http://127.0.0.1:1").Discover(context.Background()); err == nil || !strings.Contains(err.Error(), "ollama serve") {
		t.Errorf("no server: %v", err)
	}
}

func TestHeadersAndKey(t *testing.T) {
	var seen []http.Header
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen = append(seen, r.Header.Clone())
		w.WriteHeader(401)
		w.Write([]byte(`{"error":"bad token sekrit-token-123"}`))
	}))
	defer srv.Close()
	p, err := New(Config{BaseURL: srv.URL, APIKey: "sekrit-token-123", Headers: map[string]string{"X-Team": "a"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, msg := replay.Run(t, p, &provider.Request{Model: testModel()})
	if len(seen) == 0 || seen[0].Get("Authorization") != "Bearer sekrit-token-123" || seen[0].Get("X-Team") != "a" {
		t.Errorf("headers %v", seen)
	}
	if strings.Contains(msg.ErrorMessage, "sekrit") {
		t.Errorf("key in error: %q", msg.ErrorMessage)
	}
}

// TestToolsAsTextForModelsWithoutTools: a model whose capabilities lack tools gets them in the
// system prompt (Ollama would refuse the tools field), unless recovery of text calls is off or
// the server lists no capabilities.
func TestToolsAsTextForModelsWithoutTools(t *testing.T) {
	p := newProvider(t, "http://127.0.0.1:11434")
	for _, tc := range []struct {
		name   string
		caps   []string
		off    bool
		asText bool
	}{
		{"no tools capability", []string{"completion"}, false, true},
		{"recovery off", []string{"completion"}, true, false},
		{"old server, no capabilities", nil, false, false},
		{"tools capability", []string{"completion", "tools"}, false, false},
	} {
		m := testModel()
		m.NoTextToolCalls = tc.off
		chat, err := p.buildRequest(&provider.Request{Model: m, SystemPrompt: "You are pi.", Messages: replay.Conversation(), Tools: tools()},
			&modelInfo{capabilities: tc.caps})
		if err != nil {
			t.Fatal(err)
		}
		asText := len(chat.Tools) == 0 && strings.Contains(chat.Messages[0].Content, "<tool_call>")
		if asText != tc.asText {
			t.Errorf("%s: tools as text %v, want %v", tc.name, asText, tc.asText)
		}
		for _, msg := range chat.Messages {
			if tc.asText && (msg.Role == "tool" || len(msg.ToolCalls) > 0) {
				t.Errorf("%s: a %s message kept structured calls or results", tc.name, msg.Role)
			}
		}
	}
}
