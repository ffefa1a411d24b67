package main

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"pi/internal/pitest"
)

// A script command's calls to the screen functions reach an RPC client as pi's extension UI
// requests, and its session functions change what get_state reports.
func TestRPCScriptSessionFunctions(t *testing.T) {
	a := newLiveApp(t, liveSetup{initLua: `pi.register_command{name = "setup", run = function()
  pi.set_status("plan", "⏸ plan")
  pi.set_widget("todo", {"☐ a"}, {placement = "below"})
  pi.set_title("pi: setup")
  pi.set_editor_text("next")
  pi.set_session_name("planning")
  pi.set_thinking_level("high")
  local id = pi.append_entry("todo-state", {n = 1})
  pi.set_label(id, "state")
  pi.notify(tostring(pi.is_idle()) .. " " .. pi.session_name() .. " " .. pi.thinking_level() .. " " .. pi.context_usage().context_window, "info")
end}`}, pitest.FauxModel(true))
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
	entries, _, _ := a.Tree() // nothing is in the file yet: a session is written from its first reply on
	for _, e := range entries {
		found = found || (e.Type == "custom" && e.Preview == "todo-state" && e.Label == "state") // a custom entry's preview is its type
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

// The session's moves reach the scripts over RPC: session_before_tree, session_before_switch
// and session_before_fork may cancel them, session_tree and thinking_level_select report them.
func TestRPCScriptSessionEvents(t *testing.T) {
	a, ids := treeAppWith(t, liveSetup{initLua: `local allow = false
pi.register_command{name = "allow", run = function() allow = true pi.notify("allowed", "info") end}
pi.on("session_before_tree", function(ev) if not allow then pi.notify("no tree to " .. ev.target_id, "info") return {cancel = true} end end)
pi.on("session_tree", function(ev) pi.notify("tree " .. ev.old_leaf_id .. " -> " .. ev.new_leaf_id, "info") end)
pi.on("session_before_switch", function(ev) pi.notify("no " .. ev.reason, "info") return {cancel = true} end)
pi.on("session_before_fork", function(ev) pi.notify("no fork at " .. ev.entry_id .. " " .. ev.position, "info") return {cancel = true} end)
pi.on("thinking_level_select", function(ev) pi.notify("thinking " .. ev.previous_level .. " -> " .. ev.level, "info") end)`})
	a.Agent().SetModel(pitest.FauxModel(true))

	c, _, stop := startInProcess(t, context.Background(), a)
	defer stop()
	from := c.mark()
	leaf := a.State().Leaf
	if r := c.call(map[string]any{"type": "navigate_tree", "targetId": ids["u2"]}); r["success"] != false || a.State().Leaf != leaf {
		t.Fatalf("a cancelled move went ahead: %v", r)
	}
	c.await(from, "the tree notice", func(l rpcLine) bool { return l["message"] == "no tree to "+ids["u2"] })
	c.mustCall(map[string]any{"type": "prompt", "message": "/allow"})
	c.await(from, "the command's notice", func(l rpcLine) bool { return l["message"] == "allowed" }) // a prompt is answered once accepted
	c.mustCall(map[string]any{"type": "navigate_tree", "targetId": ids["a3"]})
	c.await(from, "session_tree", func(l rpcLine) bool { return l["message"] == "tree "+leaf+" -> "+ids["a3"] })
	id := a.State().SessionID
	if r := c.call(map[string]any{"type": "new_session"}); r["success"] != false || a.State().SessionID != id {
		t.Fatalf("a cancelled new session went ahead: %v", r)
	}
	c.await(from, "the switch notice", func(l rpcLine) bool { return l["message"] == "no new" })
	files, _ := os.ReadDir(filepath.Dir(a.State().SessionFile))
	if r := c.call(map[string]any{"type": "fork", "entryId": ids["u2"]}); r["success"] != false || a.State().SessionID != id {
		t.Fatalf("a cancelled fork went ahead: %v", r)
	}
	c.await(from, "the fork notice", func(l rpcLine) bool { return l["message"] == "no fork at "+ids["u2"]+" before" })
	if r := c.call(map[string]any{"type": "clone"}); r["success"] != false || a.State().SessionID != id {
		t.Fatalf("a cancelled clone went ahead: %v", r)
	}
	if after, _ := os.ReadDir(filepath.Dir(a.State().SessionFile)); len(after) != len(files) {
		t.Fatalf("a cancelled fork or clone left a session file: %d files, then %d", len(files), len(after))
	}
	c.await(from, "the clone notice", func(l rpcLine) bool { return l["message"] == "no fork at "+a.State().Leaf+" at" })
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
