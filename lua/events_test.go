package lua

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"pi/provider"
	"pi/tools"
)

func TestToolCallBlockAndMutate(t *testing.T) {
	e := newEnv(t)
	r := e.start(t, `
pi.on("tool_call", function(ev)
  if ev.tool_name == "bash" then ev.input.command = ev.input.command .. " --dry-run" end
  ev.input.seen = (ev.input.seen or 0) + 1
end)
pi.on("tool_call", function(ev)
  ev.input.seen = ev.input.seen + 1
  if ev.input.command and ev.input.command:find("rm %-rf") then return {block = true, reason = "no rm -rf"} end
  if ev.tool_name == "write" then return {block = true} end
end)
pi.on("tool_call", function(ev) ev.input.third = true end)`)
	tests := []struct {
		name       string
		args, want map[string]any
		block      bool
		reason     string
	}{
		{"bash", map[string]any{"command": "make", "n": 1.0, "list": []any{}},
			map[string]any{"command": "make --dry-run", "n": 1.0, "list": []any{}, "seen": 2.0, "third": true}, false, ""},
		{"bash", map[string]any{"command": "rm -rf /"}, map[string]any{"command": "rm -rf /"}, true, "no rm -rf"},
		{"write", map[string]any{"path": "x"}, map[string]any{"path": "x"}, true, `Tool call "write" was blocked by a script`},
		{"read", map[string]any{"nested": map[string]any{"a": []any{"x", 2.0}}},
			map[string]any{"nested": map[string]any{"a": []any{"x", 2.0}}, "seen": 2.0, "third": true}, false, ""},
	}
	for _, tc := range tests {
		block, reason := r.ToolCall(ctxT(t), tc.name, "id1", tc.args)
		if block != tc.block || !strings.HasPrefix(reason, tc.reason) {
			t.Errorf("%s %v: block=%v reason=%q", tc.name, tc.want, block, reason)
		}
		if !tc.block && !reflect.DeepEqual(tc.args, tc.want) {
			t.Errorf("%s: args %v, want %v", tc.name, tc.args, tc.want)
		}
	}
}

func TestToolResultRewrite(t *testing.T) {
	e := newEnv(t)
	r := e.start(t, `
pi.on("tool_result", function(ev)
  if ev.tool_name == "bash" then
    return {content = ev.content[1].text:upper() .. " (" .. ev.input.command .. ")", details = {checked = true}, usage = {input = 4, cost = 0.1},
      added_tools = {"grep"}}
  end
end)
pi.on("tool_result", function(ev)
  if ev.tool_name == "bash" and ev.content:find("SECRET") then return {content = "[redacted]", is_error = true, terminate = true, added_tools = {"find"}} end
end)`)
	o, changed := r.ToolResult(ctxT(t), "bash", "id", map[string]any{"command": "cat"}, tools.TextResult("a secret"))
	if !changed || len(o.Content) != 1 || o.Content[0].Text != "[redacted]" || o.IsError == nil || !*o.IsError ||
		o.Terminate == nil || !*o.Terminate || !reflect.DeepEqual(o.Details, map[string]any{"checked": true}) ||
		o.Usage == nil || o.Usage.Input != 4 || o.Usage.Cost.Total != 0.1 || !reflect.DeepEqual(o.AddedTools, []string{"grep", "find"}) {
		t.Errorf("override %+v", o)
	}
	o, changed = r.ToolResult(ctxT(t), "bash", "id", map[string]any{"command": "ls"}, tools.TextResult("files"))
	if !changed || o.Content[0].Text != "FILES (ls)" || o.IsError != nil || o.Terminate != nil || !reflect.DeepEqual(o.AddedTools, []string{"grep"}) {
		t.Errorf("override %+v", o)
	}
	if _, changed = r.ToolResult(ctxT(t), "read", "id", nil, tools.TextResult("x")); changed {
		t.Error("read result changed")
	}
}

func TestEndlessHookGivesNoticeWithinDeadline(t *testing.T) {
	e := newEnv(t)
	e.opts.HookTimeout = 300 * time.Millisecond
	r := e.start(t, `
pi.on("tool_call", function(ev) while true do end end)
pi.on("tool_call", function(ev) ev.input.after = true end)
pi.on("context", function(ev) while true do end end)`)
	start := time.Now()
	args := map[string]any{"command": "ls"}
	block, _ := r.ToolCall(ctxT(t), "bash", "id", args)
	if elapsed := time.Since(start); elapsed > 2*time.Second {
		t.Errorf("hook took %v", elapsed)
	}
	if block || args["after"] != true {
		t.Errorf("the action must go on and the next handler run: block=%v args=%v", block, args)
	}
	n, ok := e.noticeContaining("tool_call handler")
	if !ok || n.Level != "error" || !strings.Contains(n.Message, "timed out after 300ms") {
		t.Errorf("notices: %v", e.notices())
	}
	msgs := []provider.Message{provider.UserText("hi", 1)}
	if got := r.Context(ctxT(t), msgs); len(got) != 1 {
		t.Errorf("context after a timed out hook: %v", got)
	}
}

func TestHookErrorBecomesNotice(t *testing.T) {
	e := newEnv(t)
	r := e.start(t, `pi.on("input", function(ev) error("broken hook") end)`)
	if got := r.Input(ctxT(t), "hello", nil, "interactive"); got.Text != "hello" || got.Handled {
		t.Errorf("input %+v", got)
	}
	if _, ok := e.noticeContaining("broken hook"); !ok {
		t.Errorf("notices %v", e.notices())
	}
}

func TestInputChain(t *testing.T) {
	e := newEnv(t)
	e.write(t, ".pi/prompts/fix.md", "Fix $1 now.")
	r := e.start(t, `
pi.on("input", function(ev)
  if ev.text == "/quiet" then return {handled = true} end
  if ev.text:sub(1, 1) == "!" then return {text = "/fix " .. ev.text:sub(2)} end
  return {text = ev.text .. " [" .. ev.source .. ", " .. #ev.images .. " images]"}
end, {late = false})
pi.on("input", function(ev) return {text = ev.text:gsub("please ", "")} end)`)
	tests := []struct {
		in, want string
		handled  bool
	}{
		{"please go", "go [rpc, 1 images]", false},
		{"/quiet", "/quiet", true},
		{"!main.go", "Fix main.go now.", false}, // user handlers run before template expansion
	}
	for _, tc := range tests {
		got := r.Input(ctxT(t), tc.in, []provider.Block{provider.Image("AA", "image/png")}, "rpc")
		if got.Text != tc.want || got.Handled != tc.handled {
			t.Errorf("Input(%q) = %+v", tc.in, got)
		}
	}
}

func TestBeforeAgentStartContextCompact(t *testing.T) {
	e := newEnv(t)
	r := e.start(t, `
pi.on("before_agent_start", function(ev) return {system_prompt = ev.system_prompt .. "\nfirst:" .. ev.prompt} end)
pi.on("before_agent_start", function(ev) return {system_prompt = ev.system_prompt .. "\nsecond"} end)
pi.on("context", function(ev)
  local out = {}
  for _, m in ipairs(ev.messages) do if m.role ~= "toolResult" then out[#out + 1] = m end end
  out[#out + 1] = {role = "user", content = "injected", timestamp = 5}
  return {messages = out}
end)
pi.on("session_before_compact", function(ev)
  if ev.reason == "manual" then return {cancel = true} end
  return {summary = "short summary of " .. #ev.messages .. " messages", details = {by = "lua"}}
end)`)
	if got := r.BeforeAgentStart(ctxT(t), "task", nil, "BASE"); got != "BASE\nfirst:task\nsecond" {
		t.Errorf("system prompt %q", got)
	}
	msgs := []provider.Message{provider.UserText("q", 1),
		{Role: provider.RoleAssistant, Content: []provider.Block{provider.ToolCall("c1", "ls", map[string]any{})}, StopReason: provider.StopToolUse, Timestamp: 2},
		{Role: provider.RoleToolResult, ToolCallID: "c1", ToolName: "ls", Content: []provider.Block{provider.Text("x")}, Timestamp: 3}}
	got := r.Context(ctxT(t), msgs)
	if len(got) != 3 || got[1].Role != provider.RoleAssistant || got[1].ToolCalls()[0].ID != "c1" || got[2].TextContent() != "injected" ||
		!got[2].StringContent {
		data, _ := json.Marshal(got)
		t.Errorf("context: %s", data)
	}
	if d := r.BeforeCompact(ctxT(t), map[string]any{"reason": "manual"}); !d.Cancel {
		t.Errorf("compact manual %+v", d)
	}
	d := r.BeforeCompact(ctxT(t), map[string]any{"reason": "threshold", "messages": msgs})
	if d.Cancel || d.Summary != "short summary of 3 messages" || !reflect.DeepEqual(d.Details, map[string]any{"by": "lua"}) {
		t.Errorf("compact %+v", d)
	}
}

// TestObserveEventPayloads emits every observe-only event the way main does and checks what
// a handler sees.
func TestObserveEventPayloads(t *testing.T) {
	e := newEnv(t)
	r := e.start(t, `
seen = {}
for _, name in ipairs({"session_start", "session_shutdown", "agent_start", "agent_end", "turn_start", "turn_end",
  "message_start", "message_update", "message_end", "tool_execution_start", "tool_execution_update",
  "tool_execution_end", "session_compact", "model_select"}) do
  pi.on(name, function(ev) seen[name] = ev end)
end
pi.register_tool{name = "seen", execute = function(args) return {details = seen[args.event] or "missing"} end}`)
	assistant := &provider.Message{Role: provider.RoleAssistant, Content: []provider.Block{provider.Text("hello")},
		Provider: "faux", Model: "m", StopReason: provider.StopStop, Timestamp: 2}
	result := provider.Message{Role: provider.RoleToolResult, ToolCallID: "c1", ToolName: "ls", Content: []provider.Block{provider.Text("x")}}
	partial := tools.TextResult("partial")
	ev := provider.Event{Type: provider.EventTextDelta, Delta: "hel", Partial: assistant}
	emits := []struct {
		event   string
		payload map[string]any
		check   string // a JSON path-ish probe: key=value pairs checked on the payload
	}{
		{"session_start", map[string]any{"reason": "startup"}, `reason=startup`},
		{"session_shutdown", map[string]any{"reason": "quit"}, `reason=quit`},
		{"agent_start", map[string]any{}, ``},
		{"agent_end", map[string]any{"messages": []provider.Message{*assistant}}, `messages.0.role=assistant`},
		{"turn_start", map[string]any{"turn_index": 0, "timestamp": int64(12)}, `timestamp=12`},
		{"turn_end", map[string]any{"turn_index": 1, "message": assistant, "tool_results": []provider.Message{result}},
			`turn_index=1 message.content.0.text=hello tool_results.0.toolCallId=c1`},
		{"message_start", map[string]any{"message": assistant}, `message.model=m`},
		{"message_update", map[string]any{"message": assistant, "assistant_message_event": &ev},
			`assistant_message_event.type=text_delta assistant_message_event.delta=hel`},
		{"message_end", map[string]any{"message": assistant}, `message.stopReason=stop`},
		{"tool_execution_start", map[string]any{"tool_call_id": "c1", "tool_name": "ls", "args": map[string]any{"path": "."}},
			`tool_call_id=c1 tool_name=ls args.path=.`},
		{"tool_execution_update", map[string]any{"tool_call_id": "c1", "tool_name": "ls", "args": map[string]any{}, "partial_result": partial},
			`partial_result.content.0.text=partial partial_result.is_error=false`},
		{"tool_execution_end", map[string]any{"tool_call_id": "c1", "tool_name": "ls", "result": &partial, "is_error": true},
			`is_error=true result.content.0.text=partial`},
		{"session_compact", map[string]any{"compaction_entry": map[string]any{"summary": "s"}, "from_extension": false},
			`compaction_entry.summary=s from_extension=false`},
		{"model_select", map[string]any{"model": "ollama/a", "previous_model": "ollama/b", "source": "set"},
			`model=ollama/a previous_model=ollama/b source=set`},
	}
	for _, em := range emits {
		if !r.HasHandlers(em.event) {
			t.Errorf("HasHandlers(%s) = false", em.event)
		}
		r.Emit(ctxT(t), em.event, em.payload)
	}
	if err := r.Flush(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	for _, em := range emits {
		res := execTool(t, r, "seen", map[string]any{"event": em.event})
		if res.Details == "missing" {
			t.Errorf("%s: handler did not run", em.event)
			continue
		}
		for _, probe := range strings.Fields(em.check) {
			path, want, _ := strings.Cut(probe, "=")
			if got := lookup(res.Details, path); got != want {
				t.Errorf("%s: %s = %q, want %q", em.event, path, got, want)
			}
		}
	}
	if r.HasHandlers("input") == false {
		t.Error("bundled input handlers missing")
	}
}

// lookup follows a dotted path through decoded JSON and formats the leaf.
func lookup(v any, path string) string {
	for _, k := range strings.Split(path, ".") {
		switch x := v.(type) {
		case map[string]any:
			v = x[k]
		case []any:
			i := 0
			for _, c := range k {
				i = i*10 + int(c-'0')
			}
			if i >= len(x) {
				return "<out of range>"
			}
			v = x[i]
		default:
			return "<not a container>"
		}
	}
	data, _ := json.Marshal(v)
	return strings.Trim(string(data), `"`)
}

// The observers wait for a gate the test opens only once both Emits have returned: an Emit
// that waited for its observer would return only when the gate's 20 s cap ran out.
func TestEmitIsAsyncAndSurvivesAbort(t *testing.T) {
	e := newEnv(t)
	e.opts.HookTimeout = 30 * time.Second // the observers wait for the gate, not for their deadline
	gate := filepath.Join(t.TempDir(), "gate")
	r := e.start(t, `
count = 0
pi.on("agent_end", function(ev)
  pi.exec("i=0; while [ ! -e '`+gate+`' ] && [ $i -lt 2000 ]; do sleep 0.01; i=$((i+1)); done")
  count = count + 1
end)
pi.register_tool{name = "count", execute = function() return tostring(count) end}`)
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // the run was aborted: observers still hear agent_end
	start := time.Now()
	r.Emit(ctx, "agent_end", map[string]any{"messages": []any{}})
	r.Emit(ctx, "agent_end", map[string]any{"messages": []any{}})
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("Emit waited %v, for its observer", d)
	}
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := r.Flush(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	if got := text(execTool(t, r, "count", nil)); got != "2" {
		t.Errorf("count = %s", got)
	}
}

func TestTrust(t *testing.T) {
	e := newEnv(t)
	e.opts.Trust = false
	e.write(t, ".pi/init.lua", `pi.register_tool{name = "project", execute = function() return "ran" end}`)
	r := e.start(t, "")
	if len(r.Tools()) != 0 {
		t.Fatal("untrusted project script loaded")
	}
	n, ok := e.noticeContaining("not loading " + filepath.Join(e.cwd, ".pi", "init.lua"))
	if !ok || !strings.Contains(n.Message, "pi --trust") {
		t.Errorf("notice %v", e.notices())
	}
	// --trust loads it for this run only.
	e.opts.Trust = true
	if r := e.start(t, ""); len(r.Tools()) != 1 {
		t.Error("--trust did not load the project script")
	}
	if _, decided, _ := TrustDecision(e.home, e.cwd); decided {
		t.Error("--trust must not be remembered")
	}
	// The TUI asks once; the answer is remembered.
	e.opts.Trust = false
	asked := 0
	e.opts.AskTrust = func(ctx context.Context, dir string) (bool, error) { asked++; return true, nil }
	e.start(t, "")
	e.opts.AskTrust = nil
	if r := e.start(t, ""); len(r.Tools()) != 1 || asked != 1 {
		t.Errorf("remembered trust: tools %d asked %d", len(r.Tools()), asked)
	}
	// A saved "false" wins over an ancestor's "true"; the nearest decision counts.
	if err := SaveTrust(e.home, filepath.Dir(e.cwd), true); err != nil {
		t.Fatal(err)
	}
	if err := SaveTrust(e.home, e.cwd, false); err != nil {
		t.Fatal(err)
	}
	if r := e.start(t, ""); len(r.Tools()) != 0 {
		t.Error("explicitly untrusted project loaded")
	}
	sub := filepath.Join(filepath.Dir(e.cwd), "other")
	os.MkdirAll(sub, 0o755)
	if trusted, decided, err := TrustDecision(e.home, sub); !trusted || !decided || err != nil {
		t.Errorf("ancestor decision: %v %v %v", trusted, decided, err)
	}
	data, _ := os.ReadFile(filepath.Join(e.home, "trust.json"))
	var m map[string]bool
	if err := json.Unmarshal(data, &m); err != nil || len(m) != 2 {
		t.Errorf("trust.json: %s %v", data, err)
	}
}

func TestCloseStopsCalls(t *testing.T) {
	e := newEnv(t)
	r := e.start(t, `pi.on("tool_call", function() end) pi.register_tool{name = "t", execute = function() return "x" end}`)
	tool := r.Tools()[0]
	r.Close()
	if block, _ := r.ToolCall(context.Background(), "bash", "1", map[string]any{}); block {
		t.Error("closed runtime blocked")
	}
	if res, _ := tool.Execute(context.Background(), "1", nil, nil); !res.IsError {
		t.Errorf("closed runtime ran a tool: %+v", res)
	}
}

// A question to the user in a hook is not cut short by the hook deadline: a permission gate
// must not let a command through because nobody answered within 5 s.
func TestHookDeadlineExcludesUserQuestions(t *testing.T) {
	e := newEnv(t)
	e.opts.HookTimeout = 200 * time.Millisecond
	e.opts.Host.Confirm = func(ctx context.Context, title, msg string) (bool, error) {
		select {
		case <-time.After(600 * time.Millisecond): // the user takes longer than the hook deadline
			return false, nil
		case <-ctx.Done():
			return false, ctx.Err()
		}
	}
	r := e.start(t, `pi.on("tool_call", function(ev)
  if not pi.confirm("Allow?", ev.input.command) then return {block = true, reason = "user said no"} end
end)`)
	block, reason := r.ToolCall(ctxT(t), "bash", "id", map[string]any{"command": "rm -r x"})
	if !block || reason != "user said no" {
		t.Errorf("block=%v reason=%q notices=%v", block, reason, e.notices())
	}
}

func TestAbortedHookIsQuiet(t *testing.T) {
	e := newEnv(t)
	r := e.start(t, `pi.on("tool_call", function(ev) ev.input.x = 1 end)`)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if block, _ := r.ToolCall(ctx, "bash", "id", map[string]any{}); block {
		t.Error("blocked")
	}
	if n := e.notices(); len(n) != 0 {
		t.Errorf("notices after an abort: %v", n)
	}
}

// A script asking the user while it loads cannot hold start-up past its deadline: the host
// may not be able to show questions yet.
func TestQuestionWhileLoadingHasDeadline(t *testing.T) {
	e := newEnv(t)
	e.opts.HookTimeout = 200 * time.Millisecond
	e.opts.Host.Confirm = func(ctx context.Context, title, msg string) (bool, error) {
		<-ctx.Done()
		return false, ctx.Err()
	}
	start := time.Now()
	e.start(t, `local ok = pi.confirm("Ready?")`)
	if time.Since(start) > 3*time.Second {
		t.Errorf("load waited %v", time.Since(start))
	}
	if _, ok := e.noticeContaining("timed out"); !ok {
		t.Errorf("notices %v", e.notices())
	}
}
