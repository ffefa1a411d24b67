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
