package main

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"pi/internal/chattest"
	"pi/internal/pitest"
	"pi/internal/testwait"
	"pi/live"
	"pi/provider"
	"pi/session"
)

// setupLuaProvider builds a session as pi does for --model model, with the Lua provider port
// as the user's script pointed at srv, and more after it.
func setupLuaProvider(t *testing.T, srv *chattest.Server, model string, more ...string) *live.Session {
	t.Helper()
	return setupLuaProviderWith(t, srv, live.Options{Model: model}, more...)
}

// setupLuaProviderWith is setupLuaProvider with more of what the command line says.
func setupLuaProviderWith(t *testing.T, srv *chattest.Server, o live.Options, more ...string) *live.Session {
	t.Helper()
	home := pitest.LuaProviderHome(t, filepath.Join("testdata", "lua", "ollama-chat-provider.lua"), srv.URL, more...)
	t.Setenv("PI_HOME", home)
	var stderr bytes.Buffer
	dir := t.TempDir()
	o.Cwd, o.PiHome, o.Stderr, o.NoExtensions = dir, home, &stderr, true
	o.Session = session.Choice{Dir: filepath.Join(dir, "sessions")} // a file, which the tests read back
	h, err := live.New(context.Background(), o)
	if err != nil {
		t.Fatalf("live.New: %v (%s)", err, stderr.String())
	}
	t.Cleanup(h.Close)
	return h
}

// --model selects a provider a script registers; its computed models are among the
// available ones, and a prompt streams through the script to the server and back.
func TestLuaProviderSelectedByModel(t *testing.T) {
	srv := chattest.Start(t, []string{"m1", "m2"}, chattest.Reply{Lines: []string{chattest.Text("Hello ", ""), chattest.Done("from Lua", 9, 4)}})
	h := setupLuaProvider(t, srv, "ollama-lua/m2")
	if m := h.Agent().Model(); m.Provider != "ollama-lua" || m.ID != "m2" || m.API != "ollama-lua" || m.ContextWindow != 32768 {
		t.Fatalf("model %+v", m)
	}
	var listed []string
	for _, m := range h.AvailableModels(context.Background()) {
		listed = append(listed, m.Provider+"/"+m.ID)
	}
	if !slices.Contains(listed, "ollama-lua/m1") || !slices.Contains(listed, "ollama-lua/m2") {
		t.Fatalf("available models %v", listed)
	}
	if err := h.Send(context.Background(), live.Input{Text: "hi", Source: live.SourceRPC}); err != nil {
		t.Fatal(err)
	}
	msgs := h.Agent().MessagesView()
	last := msgs[len(msgs)-1]
	if last.TextContent() != "Hello from Lua" || last.Provider != "ollama-lua" || last.Usage.Input != 9 || last.Usage.Output != 4 {
		t.Fatalf("reply %+v", last)
	}
	if b := srv.Bodies(); len(b) != 1 || b[0]["model"] != "m2" {
		t.Fatalf("requests %v", b)
	}
}

// Over RPC: the script's models are in get_available_models, set_model moves to one, and the
// next prompt goes to it; pi.unregister_provider takes them away.
func TestRPCLuaProvider(t *testing.T) {
	srv := chattest.Start(t, []string{"m1", "m2"}, chattest.Reply{Lines: []string{chattest.Done("via m1", 3, 2)}})
	h := setupLuaProvider(t, srv, "ollama-lua/m2", `pi.register_command{name = "drop", run = function() pi.unregister_provider("ollama-lua") end}`)
	c, _, stop := startInProcess(t, context.Background(), h)
	defer stop()
	listed := func() []string {
		var out []string
		for _, m := range c.mustCall(map[string]any{"type": "get_available_models"}).data()["models"].([]any) {
			m := m.(map[string]any)
			out = append(out, m["provider"].(string)+"/"+m["id"].(string))
		}
		return out
	}
	if l := listed(); !slices.Contains(l, "ollama-lua/m1") {
		t.Fatalf("available models %v", l)
	}
	c.mustCall(map[string]any{"type": "set_model", "provider": "ollama-lua", "modelId": "m1"})
	c.prompt("hi")
	if got := c.lastText(); got != "via m1" {
		t.Fatalf("last text %v", got)
	}
	if b := srv.Bodies(); len(b) != 1 || b[0]["model"] != "m1" || !strings.Contains(c.state()["model"].(map[string]any)["id"].(string), "m1") {
		t.Fatalf("requests %v", b)
	}
	// A prompt is answered once accepted, as in pi, so the command may still run: wait for it.
	c.mustCall(map[string]any{"type": "prompt", "message": "/drop"})
	gone := testwait.Within(10*time.Second, func() bool { return !slices.Contains(listed(), "ollama-lua/m2") })
	if !gone { // m1 stays listed: it is the current model
		t.Fatalf("pi.unregister_provider left its models: %v", listed())
	}
}

// pi --list-models lists the models of the providers the user's scripts register.
func TestListModelsHasLuaProviders(t *testing.T) {
	srv := chattest.Start(t, []string{"m1", "m2"})
	setupLuaProvider(t, srv, "ollama-lua/m1")
	t.Chdir(t.TempDir())
	var out, errOut bytes.Buffer
	if code := run(context.Background(), []string{"--list-models"}, strings.NewReader(""), &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	if !strings.Contains(out.String(), "ollama-lua/m1\tcontext 32768\nollama-lua/m2\tcontext 32768\n") {
		t.Fatalf("listing:\n%s", out.String())
	}
}

// runEventsScript adds a message at before_agent_start and upper-cases the model's reply at
// message_end.
const runEventsScript = `
pi.on("before_agent_start", function(ev) return {message = {content = "Today is a holiday.", custom_type = "calendar"}} end)
pi.on("message_end", function(ev)
  if ev.message.role ~= "assistant" then return end
  local m = ev.message
  m.content = {{type = "text", text = string.upper(m.content[1].text)}}
  return {message = m}
end)`

// before_agent_start's message follows the prompt to the model and into the session;
// message_end's replacement is what the transcript and the session keep.
func TestRunEventsAddAndReplaceMessages(t *testing.T) {
	srv := chattest.Start(t, []string{"m1"}, chattest.Reply{Lines: []string{chattest.Done("hello", 1, 1)}})
	h := setupLuaProvider(t, srv, "ollama-lua/m1", runEventsScript)
	if err := h.Send(context.Background(), live.Input{Text: "hi", Source: live.SourceRPC}); err != nil {
		t.Fatal(err)
	}
	var roles, texts []string
	for _, m := range h.Agent().MessagesView() {
		roles, texts = append(roles, string(m.Role)), append(texts, m.TextContent())
	}
	if strings.Join(roles, " ") != "user custom assistant" || texts[1] != "Today is a holiday." || texts[2] != "HELLO" {
		t.Fatalf("transcript %v %q", roles, texts)
	}
	sent, _ := json.Marshal(srv.Bodies()[0]["messages"].([]any)[2:])
	if string(sent) != `[{"content":"Today is a holiday.","role":"user"}]` {
		t.Fatalf("sent after the prompt %s", sent)
	}
	entries, _ := sessionSnapshot(t, h).Entries()
	last := entries[len(entries)-1]
	if last.Message == nil || last.Message.TextContent() != "HELLO" || entries[len(entries)-2].Type != session.TypeCustomMessage || entries[len(entries)-2].CustomType != "calendar" {
		t.Fatalf("session %+v", entries)
	}
}

// Over RPC the client sees the added message and the replaced reply, in the events and in
// get_messages.
func TestRPCRunEventsAddAndReplaceMessages(t *testing.T) {
	srv := chattest.Start(t, []string{"m1"}, chattest.Reply{Lines: []string{chattest.Done("hello", 1, 1)}})
	h := setupLuaProvider(t, srv, "ollama-lua/m1", runEventsScript)
	c, _, stop := startInProcess(t, context.Background(), h)
	defer stop()
	from := c.mark()
	c.prompt("hi")
	end := c.await(from, "the assistant's message_end", func(l rpcLine) bool {
		m, _ := l["message"].(map[string]any)
		return l["type"] == "message_end" && m["role"] == "assistant"
	})
	if got, _ := json.Marshal(end["message"].(map[string]any)["content"]); string(got) != `[{"text":"HELLO","type":"text"}]` {
		t.Fatalf("message_end %s", got)
	}
	if roles := messageRoles(c.messages()); strings.Join(roles, " ") != "user custom assistant" || c.lastText() != "HELLO" {
		t.Fatalf("get_messages roles %v, last text %v", roles, c.lastText())
	}
}

// An RPC abort reaches the script's HTTP request: the server sees its client go, and the
// reply ends as aborted with what had arrived.
func TestRPCAbortReachesLuaProvider(t *testing.T) {
	srv := chattest.Start(t, []string{"m1"}, chattest.Reply{Lines: []string{chattest.Text("partial", "")}, Stall: true})
	h := setupLuaProvider(t, srv, "ollama-lua/m1")
	c, _, stop := startInProcess(t, context.Background(), h)
	defer stop()
	from := c.mark()
	c.mustCall(map[string]any{"type": "prompt", "message": "hi"})
	c.awaitEvent(from, "message_update")
	c.mustCall(map[string]any{"type": "abort"})
	select {
	case <-srv.Gone():
	case <-time.After(10 * time.Second):
		t.Fatal("the script's request outlived the abort")
	}
	c.awaitEvent(from, "agent_end")
	msgs := h.Agent().MessagesView()
	if last := msgs[len(msgs)-1]; last.StopReason != provider.StopAborted || last.TextContent() != "partial" {
		t.Fatalf("reply %+v", last)
	}
}
