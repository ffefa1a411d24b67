package live

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"pi/config"
	"pi/internal/pitest"
	"pi/lua"
	"pi/provider/faux"
	"pi/session"
	"pi/tools"
)

// TestScriptsSeeModelSelect checks that a model switch reaches the scripts' model_select
// handlers with the new and the previous model and the source of the switch.
func TestScriptsSeeModelSelect(t *testing.T) {
	a := newOpsApp(t, pitest.FauxModel(false))
	yes := true
	a.cfg = &config.Config{Providers: map[string]*config.ProviderConfig{"local": {Kind: "openai", BaseURL: "http://127.0.0.1:9/v1",
		Models: []config.ModelConfig{{ID: "one", Reasoning: &yes}, {ID: "two"}}}}}
	a.settings.cfg = a.cfg
	os.MkdirAll(a.piHome, 0o755)
	os.WriteFile(filepath.Join(a.piHome, "init.lua"), []byte(`pi.on("model_select", function(ev)
  pi.notify(ev.source .. ": " .. ev.previous_model.id .. " -> " .. ev.model.id, "info")
end)`), 0o644)
	var mu sync.Mutex
	var seen []string
	rt, err := lua.New(context.Background(), lua.Options{PiHome: a.piHome, Cwd: a.cwd, NoProject: true,
		Host: lua.Host{Notify: func(msg, _ string) { mu.Lock(); seen = append(seen, msg); mu.Unlock() }}})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	a.scripts.rt = rt
	ctx := context.Background()
	if _, err := a.settings.setModel(ctx, "local/one", "set"); err != nil {
		t.Fatal(err)
	}
	if _, err := a.settings.cycleModel(ctx, 1); err != nil {
		t.Fatal(err)
	}
	rt.Flush(ctx)
	mu.Lock()
	defer mu.Unlock()
	want := "set: faux-1 -> one|cycle: one -> two"
	if strings.Join(seen, "|") != want {
		t.Fatalf("scripts saw %q, want %q", seen, want)
	}
}

// A deferred tool is not offered until asked for; once asked for (added_tools) it stays
// offered when the scripts' tools change and the active ones are picked again.
func TestDeferredToolsStayOnceAsked(t *testing.T) {
	tool := func(name string, deferred bool) tools.Tool {
		return &tools.Func{Spec: tools.Info{Name: name, Description: "does " + name, Deferred: deferred}}
	}
	s := &scripts{builtins: []tools.Tool{tool("todo", false), tool("lazy", true), tool("later", true)}}
	dir := t.TempDir()
	h := newTestHarness(t, parts{cfg: &config.Config{}, cwd: dir, piHome: filepath.Join(dir, "home"),
		provider: faux.New(), model: pitest.FauxModel(false), scripts: s}, session.Create(filepath.Join(dir, "sessions"), dir))
	active := func() string { return strings.Join(toolNames(h.agent.State().Tools), ",") }
	if got := active(); got != "todo" {
		t.Fatalf("active at first: %s, want todo", got)
	}
	s.addTools([]string{"lazy"})
	if got := active(); got != "todo,lazy" {
		t.Fatalf("after added_tools: %s", got)
	}
	s.builtins = append(s.builtins, tool("new", false)) // a script registered another tool
	s.refreshTools()
	if got := active(); got != "todo,new,lazy" {
		t.Errorf("after the tools changed: %s, want todo,new,lazy", got)
	}
}
