package lua

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"

	"pi/provider"
	"pi/tools"
)

// fakeSession records what scripts asked of the session.
type fakeSession struct {
	mu      sync.Mutex
	calls   []string
	name    string
	level   string
	aborted bool
	sent    []provider.Message
}

func (f *fakeSession) log(format string, args ...any) {
	f.mu.Lock()
	f.calls = append(f.calls, fmt.Sprintf(format, args...))
	f.mu.Unlock()
}

func (f *fakeSession) Abort()                   { f.log("abort") }
func (f *fakeSession) Idle() bool               { return false }
func (f *fakeSession) ContextUsage() (int, int) { return 5000, 20000 }
func (f *fakeSession) Compact(focus string, done func(error)) {
	f.log("compact %s", focus)
	go done(nil)
}
func (f *fakeSession) AppendEntry(t string, d any) (string, error) {
	b, _ := json.Marshal(d)
	f.log("entry %s %s", t, b)
	return "e1", nil
}
func (f *fakeSession) SetLabel(id, l string) error { f.log("label %s %s", id, l); return nil }
func (f *fakeSession) Name() string                { return f.name }
func (f *fakeSession) SetName(n string) error      { f.name = n; return nil }
func (f *fakeSession) ThinkingLevel() string       { return f.level }
func (f *fakeSession) SetThinkingLevel(l string) (string, error) {
	if l == "bogus" {
		return "", fmt.Errorf("no such level")
	}
	f.level = l
	return l, nil
}
func (f *fakeSession) AllTools() []tools.Tool {
	return []tools.Tool{&tools.Func{Spec: tools.Info{Name: "read", Description: "Read a file", ReadOnly: true}},
		&tools.Func{Spec: tools.Info{Name: "bash", Description: "Run"}},
		&tools.Func{Spec: tools.Info{Name: "grep", Description: "Search", ReadOnly: true}}}
}
func (f *fakeSession) SendMessage(m provider.Message, as string, trigger bool) error {
	b, _ := json.Marshal(m)
	b = regexp.MustCompile(`,"timestamp":\d+`).ReplaceAll(b, nil)
	f.log("send %s%s %s", as, map[bool]string{true: "trigger"}[trigger], b)
	f.mu.Lock()
	f.sent = append(f.sent, m)
	f.mu.Unlock()
	return nil
}
func (f *fakeSession) UI(method string, fields map[string]any) {
	b, _ := json.Marshal(fields)
	f.log("ui %s %s", method, b)
}
func (f *fakeSession) Editor(ctx context.Context, title, prefill string) (string, bool, error) {
	return prefill + "!", true, nil
}

func TestSessionFunctions(t *testing.T) {
	cases := []struct {
		name, src string
		want      string // what the script returns, as text
		calls     []string
	}{
		{"idle", `return tostring(pi.is_idle())`, "false", nil},
		{"abort", `pi.abort() return "ok"`, "ok", []string{"abort"}},
		{"compact", `pi.compact("the plan", {on_done = function(err) end}) pi.compact() return "started"`, "started",
			[]string{"compact the plan", "compact "}},
		{"usage", `local u = pi.context_usage() return u.tokens .. " " .. u.context_window .. " " .. u.percent`, "5000 20000 25", nil},
		{"append entry", `return pi.append_entry("todo", {items = {"a"}})`, "e1", []string{`entry todo {"items":["a"]}`}},
		{"label", `return tostring(pi.set_label("e1", "start"))`, "true", []string{"label e1 start"}},
		{"name", `local before = tostring(pi.session_name()) pi.set_session_name("work") return before .. " " .. pi.session_name()`, "nil work", nil},
		{"thinking", `local a = pi.thinking_level() pi.set_thinking_level("high") local ok, err = pi.set_thinking_level("bogus")
			return a .. " " .. pi.thinking_level() .. " " .. tostring(ok) .. " " .. err`, `off high nil pi.set_thinking_level("bogus"): no such level`, nil},
		{"all tools", `local out = {} for _, t in ipairs(pi.all_tools()) do out[#out+1] = t.name .. "=" .. tostring(t.active) end
			return table.concat(out, ",")`, "read=true,bash=false,grep=false", nil},
		{"a tool's declaration size", `local t = pi.all_tools()[1] return t.tokens .. " " .. tostring(t.builtin) .. " " .. tostring(t.deferred)`,
			"4 true false", nil}, // read + Read a file + no schema: 15 characters
		{"commands", `pi.register_command{name = "x", description = "an x", run = function() end}
			for _, c in ipairs(pi.commands()) do if c.name == "x" then return c.source .. " " .. c.description end end`, "extension an x", nil},
		{"status", `pi.set_status("plan", "⏸ plan") pi.set_status("plan") return ""`, "",
			[]string{`ui setStatus {"statusKey":"plan","statusText":"⏸ plan"}`, `ui setStatus {"statusKey":"plan"}`}},
		{"widget", `pi.set_widget("todo", {"☐ a", "☑ b"}) pi.set_widget("w", "one", {placement = "below"}) pi.set_widget("todo", nil) return ""`, "",
			[]string{`ui setWidget {"widgetKey":"todo","widgetLines":["☐ a","☑ b"],"widgetPlacement":"aboveEditor"}`,
				`ui setWidget {"widgetKey":"w","widgetLines":["one"],"widgetPlacement":"belowEditor"}`,
				`ui setWidget {"widgetKey":"todo","widgetPlacement":"aboveEditor"}`}},
		{"title and editor text", `pi.set_title("pi: work") pi.set_editor_text("draft") return ""`, "",
			[]string{`ui setTitle {"title":"pi: work"}`, `ui set_editor_text {"text":"draft"}`}},
		{"editor", `return pi.editor("Edit", "text")`, "text!", nil},
		{"bad placement", `return tostring(pcall(pi.set_widget, "k", {}, {placement = "left"}))`, "false", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			fs := &fakeSession{}
			e.opts.Host.Session = fs
			e.opts.Host.ActiveTools = func() []string { return []string{"read"} }
			r := e.start(t, `pi.register_command{name = "t", run = function() _G.result = (function() `+tc.src+` end)() end}
pi.register_tool{name = "get", description = "d", execute = function() return {content = tostring(_G.result)} end}`)
			got := runAndRead(t, r)
			if got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
			fs.mu.Lock()
			defer fs.mu.Unlock()
			if strings.Join(fs.calls, "\n") != strings.Join(tc.calls, "\n") {
				t.Errorf("calls\n%s\nwant\n%s", strings.Join(fs.calls, "\n"), strings.Join(tc.calls, "\n"))
			}
			e.noErrors(t)
		})
	}
}

// runAndRead runs /t and returns the text the tool "get" gives back.
func runAndRead(t *testing.T, r *Runtime) string {
	t.Helper()
	for _, c := range r.Commands() {
		if c.Name == "t" {
			if err := c.Run(ctxT(t), ""); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, tool := range r.Tools() {
		if tool.Info().Name == "get" {
			res, err := tool.Execute(ctxT(t), "id", map[string]any{}, nil)
			if err != nil || len(res.Content) == 0 {
				t.Fatal(err, res)
			}
			return res.Content[0].Text
		}
	}
	t.Fatal("no tool get")
	return ""
}

// TestSessionFunctionsWithoutSession checks the print-mode defaults.
func TestSessionFunctionsWithoutSession(t *testing.T) {
	e := newEnv(t)
	r := e.start(t, `pi.register_command{name = "t", run = function()
  pi.set_status("k", "v") pi.set_widget("k", {"x"}) pi.set_title("t") pi.abort()
  local ok, err = pi.set_session_name("n")
  _G.result = tostring(pi.is_idle()) .. " " .. pi.thinking_level() .. " " .. tostring(pi.editor("e")) .. " " ..
    tostring(pi.session_name()) .. " " .. tostring(ok) .. " " .. err .. " " .. #pi.all_tools() .. " " .. tostring(pi.context_usage().tokens)
end}
pi.register_tool{name = "get", description = "d", execute = function() return {content = tostring(_G.result)} end}`)
	want := "true off nil nil nil not available in this mode 0 nil"
	if got := runAndRead(t, r); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// prepare_arguments rewrites the arguments before the schema sees them; render_call and
// render_result put their texts in the result's details next to the script's own.
func TestToolExtras(t *testing.T) {
	e := newEnv(t)
	r := e.start(t, `pi.register_tool{name = "greet", label = "Greeter", description = "d",
  parameters = {type = "object", properties = {name = {type = "string"}}, required = {"name"}},
  prepare_arguments = function(args) if args.who then return {name = args.who} end end,
  render_call = function(args) return "greet " .. args.name end,
  render_result = function(res) return "said " .. #res.content[1].text .. " chars" end,
  execute = function(args) return {content = "hello " .. args.name, details = {n = 1}} end}`)
	tool := r.Tools()[0]
	if tool.Info().Label != "Greeter" {
		t.Errorf("label %q", tool.Info().Label)
	}
	p, ok := tool.(tools.ArgumentPreparer)
	if !ok {
		t.Fatal("a Lua tool is not an ArgumentPreparer")
	}
	args := p.PrepareArguments(ctxT(t), map[string]any{"who": "Ada"})
	if args["name"] != "Ada" {
		t.Fatalf("prepared %v", args)
	}
	if same := p.PrepareArguments(ctxT(t), map[string]any{"name": "Bo"}); same["name"] != "Bo" {
		t.Fatalf("nil from prepare_arguments changed the arguments: %v", same)
	}
	res, err := tool.Execute(ctxT(t), "1", args, nil)
	d, _ := res.Details.(map[string]any)
	if err != nil || d[tools.RenderCallKey] != "greet Ada" || d[tools.RenderResultKey] != "said 9 chars" || d["n"] != float64(1) {
		t.Fatalf("result %v %+v", err, res)
	}
	e.noErrors(t)
}

// render_shell = "self" marks the texts as the whole box; a value that is neither "default" nor
// "self" refuses the tool when it is registered.
func TestToolRenderShell(t *testing.T) {
	e := newEnv(t)
	r := e.start(t, `pi.register_tool{name = "todo", description = "d", render_shell = "self",
  render_result = function(res) return "☐ " .. res.content[1].text end,
  execute = function() return "a" end}
assert(not pcall(pi.register_tool, {name = "bad", description = "d", render_shell = "frameless", execute = function() end}))`)
	tool := r.Tools()[0]
	res, err := tool.Execute(ctxT(t), "1", map[string]any{}, nil)
	d, _ := res.Details.(map[string]any)
	if err != nil || d[tools.RenderShellKey] != "self" || d[tools.RenderResultKey] != "☐ a" || len(r.Tools()) != 1 {
		t.Fatalf("result %v %+v; tools %d", err, res, len(r.Tools()))
	}
	e.noErrors(t)
}

// pi.send_message makes pi's custom message: next_turn keeps it for the next prompt (once);
// the others reach the Session with their delivery; a renderer draws messages of its type.
func TestSendMessage(t *testing.T) {
	e := newEnv(t)
	fs := &fakeSession{}
	e.opts.Host.Session = fs
	r := e.start(t, `pi.register_command{name = "t", run = function()
  pi.send_message({custom_type = "note", content = "steer me", display = true}, {deliver_as = "steer"})
  pi.send_message({custom_type = "note", content = {{type = "text", text = "now"}}, details = {n = 2}}, {trigger_turn = true})
  pi.send_message({custom_type = "memo", content = "remember A"}, {deliver_as = "next_turn"})
  assert(not pcall(pi.send_message, {custom_type = "x", content = "x"}, {deliver_as = "later"}))
  assert(not pcall(pi.send_message, {content = "no type"}))
end}
pi.register_message_renderer("note", function(m, o)
  if m.details and m.details.n then return {"note x" .. m.details.n, tostring(o.expanded)} end
  return "note: " .. m.content
end)`)
	runAndReadCommand(t, r, "t")
	want := []string{`send steer {"role":"custom","content":"steer me","customType":"note","display":true}`,
		`send trigger {"role":"custom","content":[{"type":"text","text":"now"}],"customType":"note","display":false,"details":{"n":2}}`}
	if got := fs.calls; strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("calls\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	next := r.TakeNextTurn()
	if len(next) != 1 || next[0].TextContent() != "remember A" || string(next[0].Extra["customType"]) != `"memo"` {
		t.Fatalf("next turn %+v", next)
	}
	if again := r.TakeNextTurn(); len(again) != 0 {
		t.Fatalf("the next-turn messages came twice: %+v", again)
	}
	for i, want := range []string{"note: steer me", "note x2\ntrue"} {
		lines, ok := r.RenderMessage(ctxT(t), &fs.sent[i], i == 1)
		if !ok || strings.Join(lines, "\n") != want {
			t.Fatalf("rendered %q %v, want %q", lines, ok, want)
		}
	}
	if _, ok := r.RenderMessage(ctxT(t), &next[0], false); ok {
		t.Fatal("a type with no renderer was rendered")
	}
	e.noErrors(t)
}

func runAndReadCommand(t *testing.T, r *Runtime, name string) {
	t.Helper()
	for _, c := range r.Commands() {
		if c.Name == name {
			if err := c.Run(ctxT(t), ""); err != nil {
				t.Fatal(err)
			}
			return
		}
	}
	t.Fatalf("no /%s", name)
}

// Screen keeps the slots as the scripts left them, for a user interface that attaches later.
func TestScreenState(t *testing.T) {
	e := newEnv(t)
	r := e.start(t, `pi.set_status("a", "one") pi.set_status("b", "two") pi.set_status("a")
pi.set_widget("w", {"x"}) pi.set_title("t") pi.set_title("t2") pi.set_editor_text("not kept")`)
	var got []string
	for _, q := range r.Screen() {
		b, _ := json.Marshal(q.Fields)
		got = append(got, q.Method+" "+string(b))
	}
	want := []string{`setStatus {"statusKey":"b","statusText":"two"}`,
		`setWidget {"widgetKey":"w","widgetLines":["x"],"widgetPlacement":"aboveEditor"}`, `setTitle {"title":"t2"}`}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("screen\n%s", strings.Join(got, "\n"))
	}
}
