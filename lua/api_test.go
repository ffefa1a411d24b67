package lua

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"pi/tools"
)

// runLua registers src as the body of a tool "probe" and runs it; the tool's details (or
// its text) are what the Lua code returned.
func runLua(t *testing.T, e *env, body string) tools.Result {
	t.Helper()
	r := e.start(t, "pi.register_tool{name = 'probe', description = 'test', execute = function(args, ctx)\n"+body+"\nend}")
	return execTool(t, r, "probe", map[string]any{})
}

func execTool(t *testing.T, r *Runtime, name string, args map[string]any) tools.Result {
	t.Helper()
	for _, tool := range r.Tools() {
		if tool.Info().Name == name {
			res, err := tool.Execute(ctxT(t), "call-1", args, nil)
			if err != nil {
				t.Fatalf("Execute returned an error: %v", err)
			}
			return res
		}
	}
	t.Fatalf("no tool %q", name)
	return tools.Result{}
}

func text(r tools.Result) string {
	var b strings.Builder
	for _, c := range r.Content {
		b.WriteString(c.Text)
	}
	return b.String()
}

func TestAPIFunctions(t *testing.T) {
	type hostCall struct{ kind, a, b string }
	tests := []struct {
		name string
		body string
		want any // details the probe returns, compared after a JSON round trip
		host func(h *Host, calls *[]hostCall)
	}{
		{"version", `return {details = pi.version}`, 1.0, nil},
		{"cwd and pi_home", `return {details = {pi.cwd() ~= "", pi.pi_home() ~= ""}}`, []any{true, true}, nil},
		{"exec", `local r = pi.exec("printf out; printf err >&2; exit 3") return {details = r}`,
			map[string]any{"stdout": "out", "stderr": "err", "code": 3.0, "killed": false}, nil},
		{"exec stdin and cwd", `local r = pi.exec("cat; pwd", {stdin = "in:", cwd = "/"}) return {details = r.stdout}`, "in:/\n", nil},
		{"exec timeout", `local r = pi.exec("sleep 5", {timeout = 0.2}) return {details = {r.killed, r.code}}`, []any{true, -1.0}, nil},
		{"exec caps each stream at 8 MiB", `local r = pi.exec("head -c 9000000 /dev/zero; echo e >&2") return {details = {#r.stdout, r.stderr, r.code}}`,
			[]any{8388608.0, "e\n", 0.0}, nil},
		{"exec cannot start", `local r, err = pi.exec("true", {cwd = "/nonexistent"}) return {details = {r == nil, err:find("^pi.exec: running sh %-c") ~= nil}}`,
			[]any{true, true}, nil},
		{"write read stat", `assert(pi.write_file("sub/x.txt", "hello"))
			local s = pi.stat("sub/x.txt")
			return {details = {pi.read_file("sub/x.txt"), s.type, s.size, pi.stat("sub").type}}`,
			[]any{"hello", "file", 5.0, "dir"}, nil},
		{"read missing", `local v, err = pi.read_file("nope") return {details = {v == nil, err:find("no such file") ~= nil}}`, []any{true, true}, nil},
		{"glob", `pi.write_file("g/a.lua", "") pi.write_file("g/b/c.lua", "") pi.write_file("g/.h/d.lua", "") pi.write_file("g/e.txt", "")
			return {details = {pi.glob("g/*.lua"), pi.glob("g/**/*.lua"), pi.glob("g/**/*.lua", {hidden = true})}}`,
			[]any{[]any{"g/a.lua"}, []any{"g/a.lua", "g/b/c.lua"}, []any{"g/.h/d.lua", "g/a.lua", "g/b/c.lua"}}, nil},
		{"glob empty is a list", `return {details = pi.glob("nothing/*")}`, []any{}, nil},
		{"config", `return {details = {pi.config("demo").level, pi.config("other")}}`, []any{"high"}, func(h *Host, _ *[]hostCall) {
			h.Config = func(name string) map[string]any {
				if name == "demo" {
					return map[string]any{"level": "high"}
				}
				return nil
			}
		}},
		{"notify", `pi.notify("hello", "warning") return "ok"`, nil, nil},
		{"confirm select input", `return {details = {pi.confirm("T", "M"), pi.select("pick", {"a", "b"}), pi.input("name", "ph")}}`,
			[]any{true, "b", "typed"}, func(h *Host, calls *[]hostCall) {
				h.Confirm = func(ctx context.Context, title, msg string) (bool, error) {
					*calls = append(*calls, hostCall{"confirm", title, msg})
					return true, nil
				}
				h.Select = func(ctx context.Context, title string, options []string) (string, bool, error) {
					*calls = append(*calls, hostCall{"select", title, strings.Join(options, ",")})
					return options[1], true, nil
				}
				h.Input = func(ctx context.Context, title, placeholder string) (string, bool, error) {
					*calls = append(*calls, hostCall{"input", title, placeholder})
					return "typed", true, nil
				}
			}},
		{"UI defaults without a host", `return {details = {pi.confirm("T"), pi.select("p", {"a"}) == nil, pi.input("x") == nil}}`,
			[]any{false, true, true}, nil},
		{"model and tools", `local ok = pi.set_model("ollama/qwen3") pi.set_active_tools({"read", "grep"})
			return {details = {ok, pi.model(), pi.active_tools()}}`,
			[]any{true, "ollama/qwen3", []any{"read", "grep"}}, func(h *Host, calls *[]hostCall) {
				model, active := "ollama/llama", []string{"bash"}
				h.Model = func() string { return model }
				h.SetModel = func(ctx context.Context, spec string) error { model = spec; return nil }
				h.ActiveTools = func() []string { return active }
				h.SetActiveTools = func(names []string) error { active = names; return nil }
			}},
		{"set_model failure", `local ok, err = pi.set_model("x/y") return {details = {ok == nil, err}}`,
			[]any{true, `pi.set_model("x/y"): unknown model`}, func(h *Host, _ *[]hostCall) {
				h.SetModel = func(ctx context.Context, spec string) error { return errors.New("unknown model") }
			}},
		{"complete", `return {details = pi.complete("say hi", {system = "be brief", model = "m"})}`, "hi from m (be brief)",
			func(h *Host, _ *[]hostCall) {
				h.Complete = func(ctx context.Context, prompt string, o CompleteOptions) (string, error) {
					return "hi from " + o.Model + " (" + o.System + ")", nil
				}
			}},
		{"complete unavailable", `local v, err = pi.complete("x") return {details = {v == nil, err}}`,
			[]any{true, "pi.complete: not available in this mode"}, nil},
		{"send_user_message", `assert(pi.send_user_message("later", {deliver_as = "follow_up"})) assert(pi.send_user_message("now")) return "sent"`,
			nil, func(h *Host, calls *[]hostCall) {
				h.SendUserMessage = func(text, as string) error { *calls = append(*calls, hostCall{"send", text, as}); return nil }
			}},
		{"parse_frontmatter", `local m, body = pi.parse_frontmatter("---\nname: x\nflag: true\nlist: [a, b]\nmeta:\n  k: v\n---\nbody\n")
			return {details = {m, body}}`,
			[]any{map[string]any{"name": "x", "flag": true, "list": []any{"a", "b"}, "meta": map[string]any{"k": "v"}}, "body\n"}, nil},
		{"array", `return {details = {empty = pi.array(), obj = {}}}`, map[string]any{"empty": []any{}, "obj": map[string]any{}}, nil},
		{"os subset", `return {details = {type(os.time()), type(os.date("%Y")), os.getenv("PI_TEST_VAR"), os.execute == nil, os.remove == nil}}`,
			[]any{"number", "string", "yes", true, true}, nil},
		{"no files or modules", `return {details = {io == nil, require == nil, dofile == nil, loadfile == nil, type(loadstring)}}`,
			[]any{true, true, true, true, "function"}, nil},
		{"string.rep is capped", `local ok, err = pcall(string.rep, "x", 1e10) return {details = {ok, string.find(err, "64 MiB") ~= nil, #string.rep("ab", 3)}}`,
			[]any{false, true, 6.0}, nil},
		{"pcall around exec", `local ok, r = pcall(pi.exec, "echo inside") return {details = {ok, r.stdout}}`, []any{true, "inside\n"}, nil},
		{"exec in a script coroutine", `local co = coroutine.wrap(function() return pi.exec("echo co").stdout end) return {details = co()}`, "co\n", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("PI_TEST_VAR", "yes")
			e := newEnv(t)
			var calls []hostCall
			if tc.host != nil {
				tc.host(&e.opts.Host, &calls)
			}
			res := runLua(t, e, tc.body)
			if res.IsError {
				t.Fatalf("error result: %s", text(res))
			}
			if tc.want != nil {
				data, _ := json.Marshal(res.Details)
				var got any
				json.Unmarshal(data, &got)
				if !reflect.DeepEqual(got, tc.want) {
					t.Errorf("got %#v\nwant %#v", got, tc.want)
				}
			}
			switch tc.name {
			case "notify":
				if n, ok := e.noticeContaining("hello"); !ok || n.Level != "warning" {
					t.Errorf("notices: %v", e.notices())
				}
			case "confirm select input":
				want := []hostCall{{"confirm", "T", "M"}, {"select", "pick", "a,b"}, {"input", "name", "ph"}}
				if !reflect.DeepEqual(calls, want) {
					t.Errorf("host calls %v", calls)
				}
			case "send_user_message":
				want := []hostCall{{"send", "later", "follow_up"}, {"send", "now", ""}}
				if !reflect.DeepEqual(calls, want) {
					t.Errorf("host calls %v", calls)
				}
			}
		})
	}
}

func TestAPIArgumentErrors(t *testing.T) {
	tests := []struct{ name, body, want string }{
		{"unknown event", `pi.on("tool_cal", function() end)`, `unknown event "tool_cal"`},
		{"bad deliver_as", `pi.send_user_message("x", {deliver_as = "later"})`, "deliver_as"},
		{"bad tool name", `pi.register_tool{name = "has space", execute = function() end}`, "tool name"},
		{"tool without execute", `pi.register_tool{name = "t"}`, "execute must be a function"},
		{"bad schema", `pi.register_tool{name = "t", execute = function() end, parameters = {type = "object", properties = {x = {type = "strin"}}}}`, "strin"},
		{"bad notify level", `pi.notify("x", "loud")`, "level"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			res := runLua(t, e, tc.body)
			if !res.IsError || !strings.Contains(text(res), tc.want) {
				t.Errorf("got %+v, want an error containing %q", res, tc.want)
			}
		})
	}
}

func TestPrintBecomesNotice(t *testing.T) {
	e := newEnv(t)
	e.start(t, `print("hello", 42)`)
	if n, ok := e.noticeContaining("hello\t42"); !ok || n.Level != "info" {
		t.Errorf("notices: %v", e.notices())
	}
}

func TestSchemaAndMergeTools(t *testing.T) {
	e := newEnv(t)
	r := e.start(t, `
pi.register_tool{name = "read", description = "my read", execute = function() return "mine" end,
  parameters = {type = "object", properties = {path = {type = "string"}, tags = {type = "array", items = {type = "string"}}},
    required = {"path"}, additionalProperties = false},
  prompt_snippet = "read files my way", prompt_guidelines = {"Use read wisely."}, sequential = true,
  constrained_sampling = false}
pi.register_tool{name = "extra", description = "no params", execute = function() return "x" end,
  parameters = {properties = {}, required = {}}}`)
	ts := r.Tools()
	if len(ts) != 2 {
		t.Fatalf("tools: %d", len(ts))
	}
	info := ts[0].Info()
	var schema map[string]any
	if err := json.Unmarshal(info.Parameters, &schema); err != nil {
		t.Fatal(err)
	}
	if schema["required"].([]any)[0] != "path" || schema["additionalProperties"] != false || !info.Sequential ||
		info.Snippet != "read files my way" || info.Guidelines[0] != "Use read wisely." || !info.NoConstrainedSampling ||
		ts[1].Info().NoConstrainedSampling {
		t.Errorf("info %+v schema %v", info, schema)
	}
	if got := string(ts[1].Info().Parameters); got != `{"properties":{},"required":[],"type":"object"}` {
		t.Errorf("extra schema %s", got)
	}
	s, err := tools.CompileSchema(info.Parameters)
	if err != nil {
		t.Fatal(err)
	}
	_ = s
	builtin := func(name string) tools.Tool { return &tools.Func{Spec: tools.Info{Name: name}} }
	merged := MergeTools([]tools.Tool{builtin("bash"), builtin("read"), builtin("ls")}, ts)
	var names []string
	for _, m := range merged {
		names = append(names, m.Info().Name+":"+m.Info().Description)
	}
	if got := strings.Join(names, ","); got != "bash:,read:my read,ls:,extra:no params" {
		t.Errorf("merged: %s", got)
	}
}

func TestToolResults(t *testing.T) {
	e := newEnv(t)
	e.opts.ToolTimeout = 300 * time.Millisecond
	r := e.start(t, `
pi.register_tool{name = "fails", execute = function() error("disk full") end}
pi.register_tool{name = "bad", execute = function() return 42 end}
pi.register_tool{name = "loops", execute = function() while true do end end}
pi.register_tool{name = "slow", timeout = 0.1, execute = function() pi.exec("sleep 5") return "late" end}
pi.register_tool{name = "blocks", execute = function()
  return {content = {{type = "text", text = "a"}, {type = "image", data = "AAAA", mime_type = "image/png"}},
    details = {n = 1}, is_error = true, terminate = true, usage = {input = 7, output = 2, cost = 0.1}, added_tools = {"echo"}} end}
pi.register_tool{name = "echo", parameters = {type = "object", properties = {s = {type = "string"}}},
  execute = function(args, ctx) return args.s .. "/" .. ctx.call_id end}`)
	tests := []struct {
		tool, want string
		isError    bool
	}{
		{"fails", `Tool "fails" failed: ` + filepath.Join(e.cwd, ".pi", "init.lua") + `:2: disk full`, true},
		{"bad", `Tool "bad" returned a bad result: want a string or a table, got number`, true},
		{"loops", `Tool "loops" failed: timed out after 300ms`, true},
		{"slow", `Tool "slow" failed: timed out after 100ms`, true},
		{"blocks", "a", true},
		{"echo", "hi/call-1", false},
	}
	for _, tc := range tests {
		start := time.Now()
		res := execTool(t, r, tc.tool, map[string]any{"s": "hi"})
		if !strings.HasPrefix(text(res), tc.want) || res.IsError != tc.isError {
			t.Errorf("%s: got %q (error %v), want %q", tc.tool, text(res), res.IsError, tc.want)
		}
		if time.Since(start) > 2*time.Second {
			t.Errorf("%s took %v", tc.tool, time.Since(start))
		}
		if tc.tool == "blocks" && (len(res.Content) != 2 || res.Content[1].MimeType != "image/png" || !res.Terminate ||
			res.Details.(map[string]any)["n"] != 1.0 || res.Usage == nil || res.Usage.Input != 7 || res.Usage.Output != 2 ||
			res.Usage.Cost.Total != 0.1 || strings.Join(res.AddedTools, ",") != "echo") {
			t.Errorf("blocks: %+v", res)
		}
	}
}

func TestToolStreamingAndAbort(t *testing.T) {
	e := newEnv(t)
	r := e.start(t, `
pi.register_tool{name = "stream", execute = function(args, ctx)
  ctx.update("one") ctx.update({content = "two", details = {step = 2}}) return "done" end}
pi.register_tool{name = "wait", execute = function(args, ctx)
  local r = pi.exec("sleep 10") return {content = "aborted=" .. tostring(ctx.aborted()), details = r} end}`)
	var updates []string
	res, _ := r.Tools()[0].Execute(ctxT(t), "c", nil, func(u tools.Result) { updates = append(updates, text(u)) })
	if text(res) != "done" || strings.Join(updates, ",") != "one,two" {
		t.Errorf("res %q updates %v", text(res), updates)
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	start := time.Now()
	res, _ = r.Tools()[1].Execute(ctx, "c", nil, nil)
	if time.Since(start) > 3*time.Second || !res.IsError {
		t.Errorf("abort took %v: %+v", time.Since(start), res)
	}
}

func TestLuaToolsRunInParallel(t *testing.T) {
	e := newEnv(t)
	r := e.start(t, `
for _, name in ipairs({"sleep_a", "sleep_b"}) do
  pi.register_tool{name = name, execute = function() return pi.exec("sleep 1").stdout .. name end}
end`)
	start := time.Now()
	done := make(chan string, 2)
	for _, tool := range r.Tools() {
		go func() {
			res, _ := tool.Execute(ctxT(t), "c", nil, nil)
			done <- text(res)
		}()
	}
	got := []string{<-done, <-done}
	elapsed := time.Since(start)
	if elapsed > 1700*time.Millisecond {
		t.Errorf("two 1 s tools took %v: they did not overlap", elapsed)
	}
	if !strings.Contains(strings.Join(got, ","), "sleep_a") || !strings.Contains(strings.Join(got, ","), "sleep_b") {
		t.Errorf("results %v", got)
	}
	t.Logf("two Lua tools each running pi.exec(\"sleep 1\"): %v", elapsed)
}

func TestCommands(t *testing.T) {
	e := newEnv(t)
	var sent []string
	e.opts.Host.SendUserMessage = func(text, as string) error { sent = append(sent, text); return nil }
	r := e.start(t, `
pi.register_command{name = "hello", description = "greets", argument_hint = "<name>",
  run = function(args, ctx) pi.send_user_message("hello " .. args .. " in " .. ctx.cwd) end,
  complete = function(prefix) local out = {} for _, n in ipairs({"alice", "bob", "alan"}) do
    if n:sub(1, #prefix) == prefix then out[#out + 1] = n end end return out end}
pi.register_command{name = "/broken", run = function() error("nope") end}
pi.register_command{name = "listed", description = "no run"}`)
	cmds := map[string]Command{}
	for _, c := range r.Commands() {
		cmds[c.Name] = c
	}
	hello := cmds["hello"]
	if hello.Description != "greets" || hello.ArgumentHint != "<name>" || !hello.Runnable() || !hello.HasComplete {
		t.Errorf("hello: %+v", hello)
	}
	if err := hello.Run(ctxT(t), "world"); err != nil || len(sent) != 1 || sent[0] != "hello world in "+e.cwd {
		t.Errorf("run: %v %v", err, sent)
	}
	if got := hello.Complete(ctxT(t), "al"); !reflect.DeepEqual(got, []string{"alice", "alan"}) {
		t.Errorf("complete: %v", got)
	}
	if err := cmds["broken"].Run(ctxT(t), ""); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("broken: %v", err)
	}
	if cmds["listed"].Runnable() || cmds["listed"].Run(ctxT(t), "") == nil {
		t.Errorf("listed should not run")
	}
}

func TestReloadBuildsFreshState(t *testing.T) {
	e := newEnv(t)
	r := e.start(t, `counter = (counter or 0) + 1
pi.register_tool{name = "count", execute = function() return tostring(counter) end}`)
	if got := text(execTool(t, r, "count", nil)); got != "1" {
		t.Fatalf("first: %s", got)
	}
	e.write(t, ".pi/init.lua", `counter = (counter or 10) + 1
pi.register_tool{name = "count2", execute = function() return tostring(counter) end}`)
	if err := r.Reload(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	if len(r.Tools()) != 1 || r.Tools()[0].Info().Name != "count2" {
		t.Fatalf("tools after reload: %v", r.Tools())
	}
	if got := text(execTool(t, r, "count2", nil)); got != "11" {
		t.Errorf("after reload: %s (state not fresh)", got)
	}
}

func TestLoadErrors(t *testing.T) {
	e := newEnv(t)
	if err := os.WriteFile(filepath.Join(e.home, "init.lua"), []byte("pi.on('input', function() end)\nlocal x = = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := e.start(t, "pi.register_tool{name = 'ok', execute = function() return 'fine' end}\nlocal t = nil\nprint(t.field)\n")
	home := filepath.Join(e.home, "init.lua")
	if n, ok := e.noticeContaining(home + ":2:"); !ok || n.Level != "error" || !strings.Contains(n.Message, "not loaded") {
		t.Errorf("syntax error not reported with file:line: %v", e.notices())
	}
	project := filepath.Join(e.cwd, ".pi", "init.lua")
	if n, ok := e.noticeContaining(project + ":3:"); !ok || n.Level != "error" {
		t.Errorf("runtime error not reported with file:line: %v", e.notices())
	}
	if text(execTool(t, r, "ok", nil)) != "fine" {
		t.Error("what the failing script registered before the error is gone")
	}
	if r.HasHandlers("input") && len(r.Commands()) > 0 {
		t.Error("the script with a syntax error ran")
	}
}

func TestBareYieldIsAnErrorNotAHang(t *testing.T) {
	e := newEnv(t)
	r := e.start(t, `pi.register_tool{name = "y", execute = function() coroutine.yield() return "x" end}`)
	res := execTool(t, r, "y", nil)
	if !res.IsError || !strings.Contains(text(res), "coroutine.yield") {
		t.Errorf("got %+v", res)
	}
}

func TestBundledOverrideAndDisable(t *testing.T) {
	e := newEnv(t)
	e.write(t, ".pi/prompts/x.md", "X $1")
	e.write(t, filepath.Join(e.home, "lua", "templates.lua"), `pi.on("input", function(ev) return {text = "replaced"} end)`)
	r := e.start(t, "")
	if got := r.Input(ctxT(t), "/x 1", nil, "interactive").Text; got != "replaced" {
		t.Errorf("override: %q", got)
	}
	e2 := newEnv(t)
	e2.write(t, ".pi/prompts/x.md", "X $1")
	e2.opts.Disabled = []string{"templates", "checkpoints"}
	r2 := e2.start(t, "")
	if got := r2.Input(ctxT(t), "/x 1", nil, "interactive").Text; got != "/x 1" {
		t.Errorf("disabled: %q", got)
	}
	if !reflect.DeepEqual(BundledScripts(), []string{"checkpoints", "mcp", "permissions", "skills", "subagents", "templates"}) {
		t.Errorf("bundled: %v", BundledScripts())
	}
}

// TestDefinitionsCoverAPI keeps pi.d.lua in step with the module: every function and every
// event must be declared.
func TestDefinitionsCoverAPI(t *testing.T) {
	e := newEnv(t)
	r := runLua(t, e, `local names = {} for k, v in pairs(pi) do if type(v) == "function" then names[#names + 1] = k end end
		return {details = names}`)
	defs := Definitions()
	if !strings.HasPrefix(defs, "---@meta") {
		t.Error("pi.d.lua must start with ---@meta")
	}
	for _, name := range r.Details.([]any) {
		if !strings.Contains(defs, "function pi."+name.(string)+"(") {
			t.Errorf("pi.%s missing from pi.d.lua", name)
		}
	}
	for _, ev := range append(Events(), moreEvents()...) {
		if !strings.Contains(defs, `"`+ev+`"`) {
			t.Errorf("event %s missing from pi.d.lua", ev)
		}
	}
}

// A script tool that says which arguments it writes is queued with the reply's other calls on
// those files; the keys are the built-ins' (resolved, symlinks followed).
func TestLuaToolWritesNamesItsFiles(t *testing.T) {
	e := newEnv(t)
	r := e.start(t, `
pi.register_tool{name = "one", writes = "path", execute = function() return "" end}
pi.register_tool{name = "two", writes = {"from", "to"}, execute = function() return "" end}
pi.register_tool{name = "none", execute = function() return "" end}`)
	cwd, _ := filepath.EvalSymlinks(e.cwd)
	tests := map[string]struct {
		args map[string]any
		want []string
	}{
		"one":  {map[string]any{"path": "./a.txt"}, []string{filepath.Join(cwd, "a.txt")}},
		"two":  {map[string]any{"from": "a", "to": "/tmp/../b", "other": "c"}, []string{filepath.Join(cwd, "a"), "/b"}},
		"none": {map[string]any{"path": "a.txt"}, nil},
	}
	for _, tool := range r.Tools() {
		tc := tests[tool.Info().Name]
		var got []string
		if changer, ok := tool.(tools.FileChanger); ok {
			got = changer.ChangedFiles(tc.args)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s %v changes %q, want %q", tool.Info().Name, tc.args, got, tc.want)
		}
	}
}
