package lua

import (
	"strings"
	"testing"

	"pi/provider"
)

// before_agent_start handlers chain the system prompt and each may add a custom message;
// message_end handlers may replace a message with one of the same role, the next handler
// seeing the replacement.
func TestStartRunAndMessageEnd(t *testing.T) {
	e := newEnv(t)
	r := e.start(t, `
pi.on("before_agent_start", function(ev)
  return {system_prompt = ev.system_prompt .. " +a", message = {content = "remember: " .. ev.prompt, custom_type = "memo", details = {n = 1}}}
end)
pi.on("before_agent_start", function(ev)
  return {system_prompt = ev.system_prompt .. " +b", message = {content = {{type = "text", text = "second"}}, custom_type = "memo2", display = false}}
end)
pi.on("message_end", function(ev)
  if ev.message.role ~= "assistant" then return end
  local m = ev.message
  m.content = {{type = "text", text = "[redacted]"}}
  return {message = m}
end)
pi.on("message_end", function(ev)
  if ev.message.role == "assistant" then pi.notify("second saw " .. ev.message.content[1].text, "info") end
  if ev.message.role == "user" then return {message = {role = "assistant", content = {}}} end
end)`)
	start := r.StartRun(ctxT(t), "hi", nil, "base")
	if start.SystemPrompt != "base +a +b" || len(start.Messages) != 2 {
		t.Fatalf("start %+v", start)
	}
	m0, m1 := start.Messages[0], start.Messages[1]
	if m0.Role != "custom" || m0.TextContent() != "remember: hi" || string(m0.Extra["customType"]) != `"memo"` ||
		string(m0.Details) != `{"n":1}` || string(m1.Extra["display"]) != "false" || string(m1.Extra["customType"]) != `"memo2"` {
		t.Fatalf("messages %+v", start.Messages)
	}
	reply := provider.Message{Role: provider.RoleAssistant, Content: []provider.Block{provider.Text("secret")}, Model: "m1", StopReason: provider.StopStop}
	got, replaced := r.MessageEnd(ctxT(t), reply)
	if !replaced || got.TextContent() != "[redacted]" || got.Model != "m1" {
		t.Fatalf("assistant %v %+v", replaced, got)
	}
	if _, ok := e.noticeContaining("second saw [redacted]"); !ok {
		t.Errorf("the second handler did not see the replacement: %v", e.notices())
	}
	user := provider.UserText("hello", 1)
	if got, replaced := r.MessageEnd(ctxT(t), user); replaced || got.TextContent() != "hello" {
		t.Fatalf("a replacement of another role was taken: %+v", got)
	}
	if _, ok := e.noticeContaining("not a user message"); !ok || !strings.Contains(e.notices()[len(e.notices())-1].Message, "message_end") {
		t.Errorf("no notice of the bad replacement: %v", e.notices())
	}
}
