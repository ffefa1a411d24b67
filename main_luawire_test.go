package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"pi/agent"
	"pi/internal/pitest"
	"pi/lua"
)

const testInitLua = `
pi.register_tool{
  name = "shout",
  description = "Upper-case some text",
  parameters = {type = "object", properties = {text = {type = "string"}}, required = {"text"}},
  execute = function(args, ctx) return {content = string.upper(args.text)} end,
}
pi.on("tool_call", function(ev)
  if ev.tool_name == "bash" then return {block = true, reason = "bash is off in this project"} end
end)
`

// toolResults maps tool call ids to the text and error flag of their tool_execution_end events.
func toolResults(t *testing.T, jsonOut string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(jsonOut), "\n") {
		var ev struct {
			Type       string `json:"type"`
			ToolCallID string `json:"toolCallId"`
			IsError    bool   `json:"isError"`
			Result     struct {
				Content []struct{ Text string } `json:"content"`
			} `json:"result"`
		}
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("bad line %q: %v", line, err)
		}
		if ev.Type == agent.EvToolExecutionEnd && len(ev.Result.Content) > 0 {
			text := ev.Result.Content[0].Text
			if ev.IsError {
				text = "error: " + text
			}
			out[ev.ToolCallID] = text
		}
	}
	return out
}

func TestBinaryProjectScriptNeedsTrust(t *testing.T) {
	bin := buildPi(t)
	script, _ := filepath.Abs("testdata/faux/lua_tools.json")
	cases := []struct {
		name       string
		args       []string
		wantShout  string
		wantBash   string
		wantStderr string
	}{
		{"trusted", []string{"--trust"}, "HELLO", "error: bash is off in this project", ""},
		{"untrusted", nil, "error: There is no tool named \"shout\"", "should-not-run", "--trust"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			os.MkdirAll(filepath.Join(dir, ".pi"), 0o755)
			os.WriteFile(filepath.Join(dir, ".pi", "init.lua"), []byte(testInitLua), 0o644)
			args := append([]string{"--faux-script", script, "--mode", "json"}, tc.args...)
			r := runPi(t, bin, dir, append(args, "use the tools")...)
			if r.code != 0 {
				t.Fatalf("code %d stderr %s", r.code, r.stderr)
			}
			res := toolResults(t, r.stdout)
			if !strings.HasPrefix(res["call_1"], tc.wantShout) || !strings.Contains(res["call_2"], tc.wantBash) {
				t.Fatalf("results %q", res)
			}
			if !strings.Contains(r.stderr, tc.wantStderr) {
				t.Fatalf("stderr %q should mention %q", r.stderr, tc.wantStderr)
			}
		})
	}
}

func TestBinaryPromptTemplateExpands(t *testing.T) {
	bin := buildPi(t)
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, ".pi", "prompts"), 0o755)
	os.WriteFile(filepath.Join(dir, ".pi", "prompts", "greet.md"),
		[]byte("---\ndescription: Greet someone\n---\nSay hello to $1, warmly.\n"), 0o644)
	script, _ := filepath.Abs("testdata/faux/hello.json")
	r := runPi(t, bin, dir, "--faux-script", script, "--mode", "json", "/greet Bob")
	if r.code != 0 || !strings.Contains(r.stdout, "Say hello to Bob, warmly.") {
		t.Fatalf("code %d stderr %s\nstdout %s", r.code, r.stderr, r.stdout)
	}
}

func TestScriptFailureSource(t *testing.T) {
	cases := []struct{ msg, script, event string }{
		{"lua: tool_call handler (init.lua) failed, carrying on without it: boom", "init.lua", "tool_call"},
		{"lua: error while loading init.lua; pi goes on without the rest of it: x", "", ""},
		{"lua: script not loaded: init.lua:3: syntax error", "", ""},
	}
	for _, tc := range cases {
		script, event := lua.FailureSource(tc.msg)
		if script != tc.script || event != tc.event {
			t.Errorf("%q: got %q %q", tc.msg, script, event)
		}
	}
}

func TestRPCReportsFailingScripts(t *testing.T) {
	// The script says what pi says when one of its handlers fails: the same notice, error level.
	a := newLiveApp(t, liveSetup{initLua: `pi.register_command{name = "fail", run = function()
  pi.notify("lua: tool_call handler (init.lua) failed, carrying on without it: boom", "error")
end}`}, pitest.FauxModel(false))
	c, s, stop := startInProcess(t, context.Background(), a)
	defer stop()
	a.SetUI(s)
	from := c.mark()
	c.mustCall(map[string]any{"type": "prompt", "message": "/fail"})
	ev := c.awaitEvent(from, "extension_error")
	if ev["extensionPath"] != "init.lua" || ev["event"] != "tool_call" || !strings.Contains(ev["error"].(string), "boom") {
		t.Fatalf("extension_error %v", ev)
	}
}

// TestRPCSteerExpandsTemplates checks that a queued message goes through the same input
// pipeline as a prompt: a template named in a steer is expanded before the model sees it.
func TestRPCSteerExpandsTemplates(t *testing.T) {
	bin := buildPi(t)
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, ".pi", "prompts"), 0o755)
	os.WriteFile(filepath.Join(dir, ".pi", "prompts", "greet.md"), []byte("Say hello to $1, warmly.\n"), 0o644)
	c, stop := startPiRPC(t, bin, dir, "rpc_queue.json")
	defer stop()
	from := c.mark()
	c.mustCall(map[string]any{"type": "prompt", "message": "start"})
	c.awaitEvent(from, "message_update")
	c.mustCall(map[string]any{"type": "steer", "message": "/greet Bob"})
	c.awaitEvent(from, "agent_end")
	got := userAndAssistantTexts(c.messages())
	if len(got) < 3 || got[2] != "user: Say hello to Bob, warmly." {
		t.Fatalf("conversation %q", got)
	}
}
