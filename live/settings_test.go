package live

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"pi/agent"
	"pi/config"
	"pi/internal/pitest"
	"pi/session"
)

func TestOpsThinkingLevels(t *testing.T) {
	cases := []struct {
		name      string
		reasoning bool
		set       string
		wantSet   string
		wantCycle []string // levels after successive cycles; nil: cycling is not possible
	}{
		{"reasoning", true, "high", "high", []string{"max", "off", "minimal", "low"}}, // max: the model's highest, always in the cycle
		{"no reasoning clamps to off", false, "high", "off", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := newOpsApp(t, pitest.FauxModel(tc.reasoning))
			got, err := a.settings.setThinking(tc.set)
			if err != nil || got != tc.wantSet || config.LevelOrOff(a.agent.State().Thinking) != tc.wantSet {
				t.Fatalf("setThinking(%q) = %q, %v; agent has %q", tc.set, got, err, a.agent.State().Thinking)
			}
			for _, want := range tc.wantCycle {
				if level, ok, err := a.settings.cycleThinking(); !ok || err != nil || level != want {
					t.Fatalf("cycleThinking = %q, %v, %v; want %q", level, ok, err, want)
				}
			}
			if tc.wantCycle == nil {
				if _, ok, _ := a.settings.cycleThinking(); ok {
					t.Fatal("a model without reasoning cycled its thinking level")
				}
			}
			changes := pitest.EntriesOfType(t, a.rec.session(), session.TypeThinking)
			last := "off"
			if len(changes) > 0 {
				last = changes[len(changes)-1].ThinkingLevel
			}
			if want := config.LevelOrOff(a.agent.State().Thinking); last != want {
				t.Fatalf("the session last recorded thinking level %q, the agent has %q", last, want)
			}
			if _, err := a.settings.setThinking("enormous"); err == nil {
				t.Fatal("an unknown thinking level was accepted")
			}
		})
	}
}

func TestOpsSetModelRecordsAndClamps(t *testing.T) {
	a := newOpsApp(t, pitest.FauxModel(true))
	yes, no := true, false
	a.cfg = &config.Config{Providers: map[string]*config.ProviderConfig{"local": {Kind: "openai", BaseURL: "http://127.0.0.1:9/v1",
		Models: []config.ModelConfig{{ID: "thinker", Reasoning: &yes}, {ID: "plain", Reasoning: &no}}}}}
	a.settings.cfg = a.cfg
	if _, err := a.settings.setThinking("medium"); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		spec, wantThinking string
	}{
		{"local/thinker", "medium"},
		{"local/plain", "off"},
	}
	for _, st := range steps {
		m, err := a.settings.setModel(context.Background(), st.spec, "set")
		if err != nil {
			t.Fatalf("setModel(%s): %v", st.spec, err)
		}
		if m.Provider+"/"+m.ID != st.spec || a.agent.State().Model.ID != m.ID {
			t.Fatalf("setModel(%s) gave %s/%s", st.spec, m.Provider, m.ID)
		}
		if got := config.LevelOrOff(a.agent.State().Thinking); got != st.wantThinking {
			t.Fatalf("after %s thinking is %q, want %q", st.spec, got, st.wantThinking)
		}
	}
	changes := pitest.EntriesOfType(t, a.rec.session(), session.TypeModelChange)
	if n := len(changes); n < 2 || changes[n-1].ModelID != "plain" || changes[n-2].ModelID != "thinker" {
		t.Fatalf("model changes recorded: %+v", changes)
	}
	if _, err := a.settings.setModel(context.Background(), "nowhere/x", "set"); err == nil {
		t.Fatal("a model of an unknown provider was accepted")
	}
}

func TestOpsQueueModesAndToggles(t *testing.T) {
	a := newOpsApp(t, pitest.FauxModel(false))
	if err := a.settings.setQueueMode("steer", "sometimes"); err == nil {
		t.Fatal("an unknown queue mode was accepted")
	}
	if err := a.settings.setQueueMode("followUp", agent.AllAtOnce); err != nil {
		t.Fatal(err)
	}
	if steer, follow := a.settings.queueModes(); steer != agent.OneAtATime || follow != agent.AllAtOnce {
		t.Fatalf("queue modes %s, %s", steer, follow)
	}
	a.settings.setAutoCompaction(false)
	if a.settings.compactionSettings().Enabled {
		t.Fatal("auto compaction still on")
	}
	a.settings.setAutoRetry(false)
	if a.settings.retryPolicy().MaxRetries != 0 {
		t.Fatal("retries still on")
	}
	raw, _ := json.Marshal(session.BashMessage("ls", session.BashResult{Output: "x"}, true, time.UnixMilli(5)))
	if want := `{"role":"bashExecution","cancelled":false,"command":"ls","excludeFromContext":true,"exitCode":null,"output":"x","truncated":false,"timestamp":5}`; string(raw) != want {
		t.Fatalf("bashExecution JSON\n got %s\nwant %s", raw, want)
	}
}

// TestScopedModelsCycle: with a scope, cycling goes through the models it names only (the
// current one included), and RPC's cycle_model says it was scoped.
func TestScopedModelsCycle(t *testing.T) {
	a := newOpsApp(t, pitest.FauxModel(false))
	zero := 0
	a.cfg = &config.Config{Retry: config.RetryConfig{MaxRetries: &zero}, Providers: map[string]*config.ProviderConfig{
		"local": {Kind: "openai", BaseURL: "http://127.0.0.1:9/v1",
			Models: []config.ModelConfig{{ID: "one"}, {ID: "two"}, {ID: "big-three"}}}}}
	a.settings.cfg = a.cfg
	ctx := context.Background()
	if err := a.settings.setScoped([]string{"local/big-*", "local/one"}); err != nil {
		t.Fatal(err)
	}
	var seen []string
	for range 4 {
		m, err := a.settings.cycleModel(ctx, 1)
		if err != nil || m == nil {
			t.Fatalf("cycle: %v, %v", m, err)
		}
		seen = append(seen, m.ID)
	}
	if got := strings.Join(seen, ","); strings.Contains(got, "two") || !strings.Contains(got, "big-three") || !strings.Contains(got, "one") {
		t.Fatalf("cycled through %s", got)
	}
	// Backwards (Shift+Ctrl+P) undoes a step forwards.
	cur := a.agent.Model().ID
	fwd, _ := a.settings.cycleModel(ctx, 1)
	back, err := a.settings.cycleModel(ctx, -1)
	if err != nil || back == nil || back.ID != cur || fwd.ID == cur {
		t.Fatalf("from %s forwards to %v, then backwards to %v (%v)", cur, fwd, back, err)
	}
	if err := a.settings.setScoped([]string{"local/["}); err == nil {
		t.Fatal("a malformed pattern was accepted")
	}
}
