package main

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"pi/lua"
)

// startScripts loads src as the user's init.lua into a's runtime, with the host pi gives it.
func startScripts(t *testing.T, a *harness, src string) *lua.Runtime {
	t.Helper()
	os.MkdirAll(a.piHome, 0o755)
	os.WriteFile(filepath.Join(a.piHome, "init.lua"), []byte(src), 0o644)
	rt, err := lua.New(context.Background(), lua.Options{PiHome: a.piHome, Cwd: a.cwd, NoProject: true,
		Host: scriptHost(a.scripts, func() *harness { return a }, nil)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rt.Close)
	a.scripts.rt = rt
	return rt
}

// A script command's calls to the screen functions reach an RPC client as pi's extension UI
// requests, and its session functions change what get_state reports.
func TestRPCScriptSessionFunctions(t *testing.T) {
	a := newOpsApp(t, fauxModel(true))
	startScripts(t, a, `pi.register_command{name = "setup", run = function()
  pi.set_status("plan", "⏸ plan")
  pi.set_widget("todo", {"☐ a"}, {placement = "below"})
  pi.set_title("pi: setup")
  pi.set_editor_text("next")
  pi.set_session_name("planning")
  pi.set_thinking_level("high")
  local id = pi.append_entry("todo-state", {n = 1})
  pi.set_label(id, "state")
  pi.notify(tostring(pi.is_idle()) .. " " .. pi.session_name() .. " " .. pi.thinking_level() .. " " .. pi.context_usage().context_window, "info")
end}`)
	c, _, stop := startInProcess(t, context.Background(), a)
	defer stop()
	from := c.mark()
	c.mustCall(map[string]any{"type": "prompt", "message": "/setup"})
	want := map[string]func(rpcLine) bool{
		"setStatus":       func(l rpcLine) bool { return l["statusKey"] == "plan" && l["statusText"] == "⏸ plan" },
		"setWidget":       func(l rpcLine) bool { return l["widgetKey"] == "todo" && l["widgetPlacement"] == "belowEditor" },
		"setTitle":        func(l rpcLine) bool { return l["title"] == "pi: setup" },
		"set_editor_text": func(l rpcLine) bool { return l["text"] == "next" },
		"notify":          func(l rpcLine) bool { return l["message"] == "true planning high 128000" },
	}
	for method, ok := range want {
		l := c.await(from, method, func(l rpcLine) bool { return l["method"] == method })
		if !ok(l) {
			t.Errorf("%s: %v", method, l)
		}
	}
	st := c.state()
	if st["sessionName"] != "planning" || st["thinkingLevel"] != "high" {
		t.Fatalf("state %v", st)
	}
	var found bool
	entries, _ := a.rec.session().Entries()
	for _, e := range entries {
		found = found || (e.Type == "custom" && e.CustomType == "todo-state" && a.rec.session().Label(e.ID) == "state")
	}
	if !found {
		t.Fatal("the custom entry is not in the session with its label")
	}
}

// Long flags pi does not know go to the scripts; a value of pi's own flag stays its value.
func TestParseArgsScriptFlags(t *testing.T) {
	o, err := parseArgs([]string{"--plan", "-e", "a.lua", "--extension", "b.lua", "--system-prompt", "--not-a-flag", "--depth=3", "hi"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if f := o.scriptFlags.Values; f["plan"] != "true" || f["depth"] != "3" || len(f) != 2 ||
		strings.Join(o.extensions, ",") != "a.lua,b.lua" || o.systemPrompt != "--not-a-flag" || strings.Join(o.messages, ",") != "hi" {
		t.Fatalf("%+v", o)
	}
}

// The session's moves reach the scripts over RPC: session_before_tree and
// session_before_switch may cancel them, session_tree and thinking_level_select report them.
func TestRPCScriptSessionEvents(t *testing.T) {
	a, ids := treeApp(t)
	a.agent.SetModel(fauxModel(true))
	startScripts(t, a, `local allow = false
pi.register_command{name = "allow", run = function() allow = true end}
pi.on("session_before_tree", function(ev) if not allow then pi.notify("no tree to " .. ev.target_id, "info") return {cancel = true} end end)
pi.on("session_tree", function(ev) pi.notify("tree " .. ev.old_leaf_id .. " -> " .. ev.new_leaf_id, "info") end)
pi.on("session_before_switch", function(ev) pi.notify("no " .. ev.reason, "info") return {cancel = true} end)
pi.on("thinking_level_select", function(ev) pi.notify("thinking " .. ev.previous_level .. " -> " .. ev.level, "info") end)`)
	c, _, stop := startInProcess(t, context.Background(), a)
	defer stop()
	from := c.mark()
	leaf := a.rec.session().Leaf()
	if r := c.call(map[string]any{"type": "navigate_tree", "targetId": ids["u2"]}); r["success"] != false || a.rec.session().Leaf() != leaf {
		t.Fatalf("a cancelled move went ahead: %v", r)
	}
	c.await(from, "the tree notice", func(l rpcLine) bool { return l["message"] == "no tree to "+ids["u2"] })
	c.mustCall(map[string]any{"type": "prompt", "message": "/allow"})
	c.mustCall(map[string]any{"type": "navigate_tree", "targetId": ids["a3"]})
	c.await(from, "session_tree", func(l rpcLine) bool { return l["message"] == "tree "+leaf+" -> "+ids["a3"] })
	id := a.rec.session().ID()
	if r := c.call(map[string]any{"type": "new_session"}); r["success"] != false || a.rec.session().ID() != id {
		t.Fatalf("a cancelled new session went ahead: %v", r)
	}
	c.await(from, "the switch notice", func(l rpcLine) bool { return l["message"] == "no new" })
	c.mustCall(map[string]any{"type": "set_thinking_level", "level": "high"})
	c.await(from, "thinking_level_select", func(l rpcLine) bool { return l["message"] == "thinking off -> high" })
}

// The plan-mode port from the command line: -e loads it, --plan turns it on at start (its
// footer status reaches the RPC client even though the client attaches after session_start),
// and /plan turns it off.
func TestBinaryPlanModeFlag(t *testing.T) {
	bin := buildPi(t)
	dir := t.TempDir()
	script, _ := filepath.Abs("testdata/faux/lua_tools.json")
	plan, _ := filepath.Abs("testdata/lua/plan-mode.lua")
	cmd := exec.Command(bin, "--faux-script", script, "--mode", "rpc", "--no-session", "-e", plan, "--plan")
	cmd.Dir, cmd.Env = dir, append(os.Environ(), "PI_HOME="+filepath.Join(dir, ".pihome"), "HOME="+dir)
	cmd.Stdin = strings.NewReader(`{"type":"prompt","message":"/plan","id":"1"}` + "\n")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("rpc: %v", err)
	}
	s := string(out)
	on := strings.Index(s, `"statusKey":"plan-mode","statusText":"⏸ plan mode"`)
	off := strings.Index(s, "Plan mode off: all tools back")
	if on < 0 || off < on {
		t.Fatalf("status at %d, off at %d:\n%s", on, off, s)
	}
}
