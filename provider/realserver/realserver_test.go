package realserver

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"pi/internal/ollamatest"
	"pi/provider"
	"pi/provider/anthropic"
	"pi/provider/internal/replay"
	"pi/provider/ollama"
	"pi/provider/openai"
)

const modelName = "pi-scripted"

func start(t *testing.T) (*ollamatest.Server, context.Context) {
	t.Helper()
	s := ollamatest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	t.Cleanup(cancel)
	if err := s.CreateModel(ctx, modelName, ollamatest.ReadRoundTrip()); err != nil {
		t.Fatal(err)
	}
	return s, ctx
}

func readTool() []provider.ToolDef {
	return []provider.ToolDef{{Name: "read", Description: "Read a file",
		Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string","description":"File to read"}},"required":["path"]}`)}}
}

func stream(t *testing.T, ctx context.Context, p provider.Provider, req *provider.Request) provider.Message {
	t.Helper()
	var evs []provider.Event
	msg := p.Stream(ctx, req, func(e provider.Event) { evs = append(evs, e) })
	if err := replay.CheckEvents(evs); err != nil {
		t.Errorf("events: %v", err)
	}
	return msg
}

// roundTrip runs the scripted read round trip: a user message gets a read call, its result
// gets the final answer.
func roundTrip(t *testing.T, ctx context.Context, p provider.Provider, model provider.Model) {
	t.Helper()
	msgs := []provider.Message{provider.UserText("Read the README.", 1)}
	req := &provider.Request{Model: model, SystemPrompt: "You are a test.", Messages: msgs, Tools: readTool()}
	reply := stream(t, ctx, p, req)
	calls := reply.ToolCalls()
	if reply.StopReason != provider.StopToolUse || len(calls) != 1 || calls[0].Name != "read" ||
		calls[0].Arguments["path"] != ollamatest.ReadPath || calls[0].ID == "" {
		t.Fatalf("first reply: %s %q %+v", reply.StopReason, reply.ErrorMessage, reply.Content)
	}
	if reply.Usage.Input == 0 || reply.Usage.Output == 0 {
		t.Errorf("usage %+v", reply.Usage)
	}
	req.Messages = append(req.Messages, reply, provider.Message{Role: provider.RoleToolResult,
		ToolCallID: calls[0].ID, ToolName: "read", Content: []provider.Block{provider.Text("hello")}})
	final := stream(t, ctx, p, req)
	if final.StopReason != provider.StopStop || final.TextContent() != ollamatest.FinalAnswer {
		t.Fatalf("final reply: %s %q %q", final.StopReason, final.ErrorMessage, final.TextContent())
	}
}

func TestNativeRoundTrip(t *testing.T) {
	s, ctx := start(t)
	p, err := ollama.New(ollama.Config{BaseURL: "http://" + s.Host}, nil)
	if err != nil {
		t.Fatal(err)
	}
	model, err := p.Discover(ctx)
	if err != nil || model.ID != modelName+":latest" {
		t.Fatalf("discovered %+v, %v", model, err)
	}
	model.Provider = "ollama"
	roundTrip(t, ctx, p, model)
}

func TestOpenAIRoundTrip(t *testing.T) {
	s, ctx := start(t)
	p := openai.New(openai.Config{BaseURL: "http://" + s.Host + "/v1"})
	models, err := p.ListModels(ctx)
	if err != nil || len(models) != 1 {
		t.Fatalf("models %+v, %v", models, err)
	}
	roundTrip(t, ctx, p, provider.Model{ID: modelName, Provider: "ollama-openai", API: openai.API})
}

func TestAnthropicRoundTrip(t *testing.T) {
	s, ctx := start(t)
	p := anthropic.New(anthropic.Config{BaseURL: "http://" + s.Host})
	roundTrip(t, ctx, p, provider.Model{ID: modelName, Provider: "ollama-anthropic", API: anthropic.API})
}

// TestNativeOverflowIsReported checks that with truncate off the server refuses a prompt larger
// than num_ctx instead of silently dropping its start, and that pi classifies the refusal.
func TestNativeOverflowIsReported(t *testing.T) {
	s, ctx := start(t)
	p, err := ollama.New(ollama.Config{BaseURL: "http://" + s.Host}, nil)
	if err != nil {
		t.Fatal(err)
	}
	model := provider.Model{ID: modelName, Provider: "ollama", API: ollama.API, ContextWindow: 64}
	req := &provider.Request{Model: model, Tools: readTool(),
		Messages: []provider.Message{provider.UserText(strings.Repeat("many words here ", 200), 1)}}
	msg := stream(t, ctx, p, req)
	t.Logf("server said: %s", msg.ErrorMessage)
	if msg.StopReason != provider.StopError || !provider.IsContextOverflow(&msg) {
		t.Fatalf("got %s %q, want a context overflow", msg.StopReason, msg.ErrorMessage)
	}
}

// TestNativeAbort cancels while the model is loading or answering: the reply ends aborted.
func TestNativeAbort(t *testing.T) {
	s, ctx := start(t)
	p, err := ollama.New(ollama.Config{BaseURL: "http://" + s.Host}, nil)
	if err != nil {
		t.Fatal(err)
	}
	actx, cancel := context.WithCancel(ctx)
	req := &provider.Request{Model: provider.Model{ID: modelName, API: ollama.API}, Tools: readTool(),
		Messages: []provider.Message{provider.UserText("Read the README.", 1)}}
	var cancelled time.Time
	msg := p.Stream(actx, req, func(e provider.Event) {
		if e.Type == provider.EventStart {
			cancelled = time.Now()
			cancel()
		}
	})
	if msg.StopReason != provider.StopAborted || time.Since(cancelled) > time.Second { // a loaded machine, not a reply that runs on
		t.Fatalf("got %s %q after %v", msg.StopReason, msg.ErrorMessage, time.Since(cancelled))
	}
}
