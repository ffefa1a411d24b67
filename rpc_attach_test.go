package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"pi/internal/pitest"
	"pi/provider/faux"
)

// The RPC commands of pi's own that pi attach uses: scoped_models sets and shows the scope,
// cycle_model steps through it both ways, and leaves_conversation tells whether a /tree move
// leaves messages behind.
func TestRPCScopedModelsAndTreeLeaves(t *testing.T) {
	a := newLiveApp(t, liveSetup{toml: localModelsTOML}, pitest.FauxModel(false), faux.Text("A reply."))
	c, _, stop := startInProcess(t, context.Background(), a)
	defer stop()
	data := func(r rpcLine) map[string]any { d, _ := r["data"].(map[string]any); return d }
	scope := data(c.mustCall(map[string]any{"type": "scoped_models", "patterns": []string{"local/*"}}))
	if models, _ := scope["models"].([]any); scope["scoped"] != true || len(models) != 3 {
		t.Fatalf("the scope: %v", scope)
	}
	model := func(r rpcLine) any { m, _ := data(r)["model"].(map[string]any); return m["id"] }
	one := model(c.mustCall(map[string]any{"type": "cycle_model"}))
	two := model(c.mustCall(map[string]any{"type": "cycle_model"}))
	if back := model(c.mustCall(map[string]any{"type": "cycle_model", "step": -1})); one != "one" || two != "two" || back != "one" {
		t.Fatalf("forwards to %v and %v, then backwards to %v", one, two, back)
	}
	if all := data(c.mustCall(map[string]any{"type": "scoped_models", "patterns": []string{"all"}})); all["scoped"] != false {
		t.Fatalf("all: %v", all)
	}
	if r := c.call(map[string]any{"type": "scoped_models", "patterns": []string{"local/["}}); r["success"] != false {
		t.Fatalf("a malformed pattern: %v", r)
	}

	c.prompt("hi")
	tree := data(c.mustCall(map[string]any{"type": "get_tree"}))
	var first string
	for _, e := range tree["entries"].([]any) {
		if e := e.(map[string]any); e["type"] == "message" && first == "" {
			first, _ = e["id"].(string)
		}
	}
	leaves := func(target any) any {
		return data(c.mustCall(map[string]any{"type": "leaves_conversation", "targetId": target}))["leaves"]
	}
	if up, here := leaves(first), leaves(tree["leafId"]); up != true || here != false {
		t.Fatalf("leaves_conversation: to the first message %v, to the leaf %v", up, here)
	}
}

// The scripts' shortcuts through RPC, as pi attach uses them: get_shortcuts lists them,
// run_shortcut runs one (its notice comes out as an extension UI request), an unknown key is
// refused, and reload loads the changed init.lua, whose shortcut then runs instead.
func TestRPCShortcutsAndReload(t *testing.T) {
	shortcut := func(says string) string {
		return `pi.register_shortcut{key = "ctrl+alt+p", description = "plan", run = function() pi.notify("` + says + `", "info") end}`
	}
	a := newLiveApp(t, liveSetup{initLua: shortcut("first")}, pitest.FauxModel(false))
	c, _, stop := startInProcess(t, context.Background(), a)
	defer stop()
	list, _ := c.mustCall(map[string]any{"type": "get_shortcuts"}).data()["shortcuts"].([]any)
	if len(list) != 1 || list[0].(map[string]any)["key"] != "ctrl+alt+p" || list[0].(map[string]any)["description"] != "plan" {
		t.Fatalf("get_shortcuts: %v", list)
	}
	run := func(says string) {
		t.Helper()
		from := c.mark()
		c.mustCall(map[string]any{"type": "run_shortcut", "key": "ctrl+alt+p"})
		if l := c.await(from, says, func(l rpcLine) bool { return l["method"] == "notify" }); l["message"] != says {
			t.Fatalf("the shortcut's notice: %v", l)
		}
	}
	run("first")
	if r := c.call(map[string]any{"type": "run_shortcut", "key": "ctrl+alt+q"}); r["success"] != false {
		t.Fatalf("an unknown key: %v", r)
	}
	os.WriteFile(filepath.Join(a.PiHome(), "init.lua"), []byte(shortcut("second")), 0o644)
	c.mustCall(map[string]any{"type": "reload"})
	run("second")
}

// localModelsTOML configures a provider "local" with the models one and two, nothing listening
// at its address, and no retries.
const localModelsTOML = `[retry]
max_retries = 0

[providers.local]
kind = "openai"
base_url = "http://127.0.0.1:9/v1"

[[providers.local.models]]
id = "one"

[[providers.local.models]]
id = "two"
`
