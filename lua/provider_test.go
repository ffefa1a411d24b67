package lua

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"pi/internal/chattest"
	"pi/provider"
)

// startProvider loads the Lua provider port against srv and returns its definition.
func startProvider(t *testing.T, srv *chattest.Server) (*Runtime, provider.Definition) {
	t.Helper()
	e := newEnv(t)
	e.opts.Host.Config = func(name string) map[string]any {
		if name == "ollama-lua" {
			return map[string]any{"base_url": srv.URL}
		}
		return nil
	}
	r := example(t, e, "ollama-chat-provider.lua")
	defs := r.Providers()
	if len(defs) != 1 || defs[0].Name != "ollama-lua" || defs[0].Stream == nil || defs[0].ListModels == nil {
		t.Fatalf("definitions %+v", defs)
	}
	return r, defs[0]
}

// The provider port streams text, thinking and a tool call from the fake server into pi's
// events, with the usage, and sends the conversation in the server's shape.
func TestLuaProviderStreams(t *testing.T) {
	srv := chattest.Start(t, []string{"m1", "m2"}, chattest.Reply{Lines: []string{
		chattest.Text("", "let me see"), chattest.Text("Hel", ""), chattest.Text("lo", ""),
		chattest.ToolCall("read", map[string]any{"path": "a.txt"}), chattest.Done("", 12, 5)}})
	_, def := startProvider(t, srv)
	models, err := def.ListModels(ctxT(t))
	if err != nil || len(models) != 2 || models[1].ID != "m2" || models[1].ContextWindow != 32768 || models[1].Provider != "ollama-lua" {
		t.Fatalf("models %+v, %v", models, err)
	}
	req := &provider.Request{Model: provider.Model{ID: "m1", Provider: "ollama-lua", API: "ollama-lua", Cost: provider.ModelCost{Input: 1e6}},
		SystemPrompt: "be brief", Messages: []provider.Message{provider.UserText("hi", 1)},
		Tools: []provider.ToolDef{{Name: "read", Description: "reads", Parameters: json.RawMessage(`{"type":"object"}`)}}}
	var types []string
	msg := def.Stream.Stream(ctxT(t), req, func(ev provider.Event) { types = append(types, string(ev.Type)) })
	want := "start thinking_start thinking_delta thinking_end text_start text_delta text_delta text_end toolcall_start toolcall_delta toolcall_end done"
	if got := strings.Join(types, " "); got != want {
		t.Errorf("events\n%s\nwant\n%s", got, want)
	}
	if msg.StopReason != provider.StopToolUse || msg.TextContent() != "Hello" || len(msg.ToolCalls()) != 1 ||
		msg.ToolCalls()[0].Arguments["path"] != "a.txt" || msg.Usage.Input != 12 || msg.Usage.Output != 5 || msg.Usage.Cost.Input != 12 {
		t.Fatalf("message %+v", msg)
	}
	body := srv.Bodies()[0]
	sent, _ := json.Marshal(body["messages"])
	if body["model"] != "m1" || string(sent) != `[{"content":"be brief","role":"system"},{"content":"hi","role":"user"}]` {
		t.Fatalf("request %v", body)
	}
}

// An abort ends the script's HTTP request and the call ends as aborted; a failing server is an
// error message.
func TestLuaProviderAbortAndFailure(t *testing.T) {
	srv := chattest.Start(t, []string{"m1"}, chattest.Reply{Lines: []string{chattest.Text("partial", "")}, Stall: true},
		chattest.Reply{Lines: []string{`{"error":"model m1 not found"}`}})
	_, def := startProvider(t, srv)
	req := &provider.Request{Model: provider.Model{ID: "m1", Provider: "ollama-lua"}, Messages: []provider.Message{provider.UserText("hi", 1)}}
	ctx, cancel := context.WithCancel(ctxT(t))
	done := make(chan provider.Message, 1)
	go func() {
		done <- def.Stream.Stream(ctx, req, func(ev provider.Event) {
			if ev.Type == provider.EventTextDelta {
				cancel()
			}
		})
	}()
	select {
	case <-srv.Gone():
	case <-time.After(10 * time.Second):
		t.Fatal("the HTTP request outlived the abort")
	}
	if msg := <-done; msg.StopReason != provider.StopAborted || msg.TextContent() != "partial" {
		t.Fatalf("aborted message %+v", msg)
	}
	msg := def.Stream.Stream(ctxT(t), req, func(provider.Event) {})
	if msg.StopReason != provider.StopError || !strings.Contains(msg.ErrorMessage, "model m1 not found") {
		t.Fatalf("failed message %+v", msg)
	}
}

// An existing kind with a computed configuration keeps its kind; a kind of the script's own
// without stream, or stream without models, is refused.
func TestRegisterProviderDefinitions(t *testing.T) {
	e := newEnv(t)
	r := e.start(t, `
pi.register_provider("corp", {api = "openai", base_url = "http://127.0.0.1:9/v1", api_key_env = "CORP_KEY",
  headers = {["X-Team"] = "pi"}, models = {{id = "big", context_window = 1000, reasoning = true, cost = {input = 3}}}})
pi.register_provider("gone", {api = "anthropic"})
pi.unregister_provider("gone")
for _, bad in ipairs{{api = "mine"}, {stream = function() end}} do
  local ok, err = pcall(pi.register_provider, "bad", bad)
  pi.notify(tostring(ok) .. " " .. err, "info")
end`)
	defs := r.Providers()
	if len(defs) != 1 {
		t.Fatalf("definitions %+v", defs)
	}
	d := defs[0]
	if d.Kind != "openai" || d.APIKeyEnv != "CORP_KEY" || d.Headers["X-Team"] != "pi" || d.Stream != nil ||
		len(d.Models) != 1 || !d.Models[0].Reasoning || d.Models[0].Cost.Input != 3 || d.Models[0].Input[0] != "text" {
		t.Fatalf("definition %+v", d)
	}
	for _, want := range []string{`(api "mine": pi speaks`, "needs models"} {
		if _, ok := e.noticeContaining(want); !ok {
			t.Errorf("no notice %q in %v", want, e.notices())
		}
	}
}
