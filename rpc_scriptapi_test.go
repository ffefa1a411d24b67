package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"pi/internal/pitest"
	"pi/provider"
	"pi/provider/faux"
	"pi/session"
)

// pi.send_message over RPC: without a turn the custom message joins the transcript and the
// session (a custom_message entry) and goes out as message_start/message_end with role custom;
// next_turn rides after the user's next prompt; trigger_turn starts a run the model sees it in.
func TestRPCSendCustomMessage(t *testing.T) {
	p := faux.New(faux.Text("one"), faux.Text("two"))
	a := newLiveApp(t, liveSetup{initLua: `pi.register_command{name = "note", run = function()
  pi.send_message{custom_type = "note", content = "a note", display = true, details = {n = 1}}
  pi.send_message({custom_type = "later", content = "for the next turn"}, {deliver_as = "next_turn"})
end}
pi.register_command{name = "go", run = function()
  pi.send_message({custom_type = "go", content = "do it now"}, {trigger_turn = true})
end}`}, pitest.FauxModel(false))
	a.Agent().SetProvider(p, pitest.FauxModel(false))
	c, _, stop := startInProcess(t, context.Background(), a)
	defer stop()
	from := c.mark()
	c.mustCall(map[string]any{"type": "prompt", "message": "/note"})
	end := c.await(from, "message_end of the note", func(l rpcLine) bool { return l["type"] == "message_end" })
	b, _ := json.Marshal(end["message"])
	if !strings.Contains(string(b), `"role":"custom"`) || !strings.Contains(string(b), `"customType":"note"`) ||
		!strings.Contains(string(b), `"details":{"n":1}`) {
		t.Fatalf("message_end %s", b)
	}
	c.prompt("question")
	got := userTexts(p.Requests()[0].Messages)
	if strings.Join(got, "|") != "a note|question|for the next turn" {
		t.Fatalf("the model read %q", got)
	}
	from = c.mark()
	c.mustCall(map[string]any{"type": "prompt", "message": "/go"})
	c.awaitEvent(from, "agent_end")
	if got := userTexts(p.Requests()[1].Messages); got[len(got)-1] != "do it now" {
		t.Fatalf("the triggered turn read %q", got)
	}
	var types []string
	for _, e := range pitest.EntriesOfType(t, sessionSnapshot(t, a), session.TypeCustomMessage) {
		types = append(types, e.CustomType)
	}
	if strings.Join(types, ",") != "note,later,go" {
		t.Fatalf("custom_message entries %q", types)
	}
}

func userTexts(msgs []provider.Message) []string {
	var out []string
	for _, m := range msgs {
		if m.Role == provider.RoleUser {
			out = append(out, m.TextContent())
		}
	}
	return out
}

// user_bash over RPC's bash: a script's result stands in for the command (and is what the
// session records and the model reads), a block refuses it, and other commands run.
func TestRPCUserBash(t *testing.T) {
	a := newLiveApp(t, liveSetup{initLua: `pi.on("user_bash", function(ev)
  if ev.command == "deploy" then return {block = true, reason = "no deploys from here"} end
  if ev.command == "weather" then return {result = {output = "sunny", exit_code = 0}} end
end)`}, pitest.FauxModel(false), faux.Text("ok"))
	c, _, stop := startInProcess(t, context.Background(), a)
	defer stop()
	if r := c.mustCall(map[string]any{"type": "bash", "command": "weather"}); r.data()["output"] != "sunny" || r.data()["exitCode"] != float64(0) {
		t.Fatalf("weather: %v", r)
	}
	if r := c.call(map[string]any{"type": "bash", "command": "deploy"}); r["success"] != false || !strings.Contains(r["error"].(string), "no deploys from here") {
		t.Fatalf("deploy: %v", r)
	}
	if r := c.mustCall(map[string]any{"type": "bash", "command": "echo ran"}); r.data()["output"] != "ran\n" {
		t.Fatalf("echo: %v", r)
	}
	var outputs []string
	for _, m := range a.Agent().MessagesView() {
		if m.Role == session.RoleBashExecution {
			var out string
			_ = json.Unmarshal(m.Extra["output"], &out)
			outputs = append(outputs, out)
		}
	}
	if strings.Join(outputs, "|") != "sunny|ran\n" {
		t.Fatalf("the transcript's shell runs %q", outputs)
	}
}

// resources_discover at start-up: the skill folder and template a script names become
// commands an RPC client lists and runs.
func TestRPCResourcesDiscover(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "skills", "tidy"), 0o755)
	os.WriteFile(filepath.Join(dir, "skills", "tidy", "SKILL.md"), []byte("---\nname: tidy\ndescription: Tidies up.\n---\nTidy.\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "hello.md"), []byte("---\ndescription: Say hello\n---\nSay hello to $1.\n"), 0o644)
	a := newLiveApp(t, liveSetup{initLua: `pi.on("resources_discover", function(ev)
  return {skill_paths = {"` + dir + `/skills"}, prompt_paths = {"` + dir + `/hello.md"}}
end)`}, pitest.FauxModel(false), faux.Text("done")) // live.New starts the session: resources_discover runs
	c, _, stop := startInProcess(t, context.Background(), a)
	defer stop()
	var names []string
	for _, cmd := range c.mustCall(map[string]any{"type": "get_commands"}).data()["commands"].([]any) {
		names = append(names, cmd.(map[string]any)["name"].(string))
	}
	if !slices.Contains(names, "skill:tidy") || !slices.Contains(names, "hello") {
		t.Fatalf("commands %v", names)
	}
	c.prompt("/hello Ada")
	if got := userTexts(a.Agent().MessagesView()); len(got) != 1 || !strings.HasSuffix(got[0], "Say hello to Ada.") {
		t.Fatalf("the template sent %q", got)
	}
}

// A string flag of a script takes the next word as its value in the real binary: that word
// is no prompt of its own (pi's second pass over the command line).
func TestBinaryStringFlagTakesNextWord(t *testing.T) {
	bin := buildPi(t)
	dir := t.TempDir()
	script, _ := filepath.Abs("testdata/faux/hello.json")
	ext := filepath.Join(dir, "depth.lua")
	os.WriteFile(ext, []byte(`pi.register_flag{name = "depth", type = "string"}
pi.on("input", function(ev) return {text = ev.text .. " at depth " .. tostring(pi.flag("depth"))} end)`), 0o644)
	cmd := exec.Command(bin, "--faux-script", script, "--mode", "json", "--no-session", "-e", ext, "--depth", "3", "hello")
	cmd.Dir, cmd.Env = dir, append(os.Environ(), "PI_HOME="+filepath.Join(dir, ".pihome"), "HOME="+dir)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("json mode: %v\n%s", err, out)
	}
	var users []string
	for _, line := range strings.Split(string(out), "\n") {
		var ev struct {
			Type    string           `json:"type"`
			Message provider.Message `json:"message"`
		}
		if json.Unmarshal([]byte(line), &ev) == nil && ev.Type == "message_start" && ev.Message.Role == provider.RoleUser {
			users = append(users, session.WithoutContextBlock(ev.Message.TextContent()))
		}
	}
	if len(users) != 1 || !strings.HasSuffix(users[0], "hello at depth 3") {
		t.Fatalf("user messages %q", users)
	}
}
