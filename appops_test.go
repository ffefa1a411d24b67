package main

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"pi/agent"
	"pi/config"
	"pi/export"
	"pi/provider"
	"pi/provider/faux"
	"pi/session"
	"pi/tools"
)

// newOpsApp wires a harness as setup does, around a scripted model and a session file in a
// temporary directory, without scripts.
func newOpsApp(t *testing.T, model provider.Model, steps ...faux.Step) *harness {
	t.Helper()
	dir := t.TempDir()
	env, err := tools.NewEnv(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { env.Close() })
	bash, _ := tools.New("bash", env)
	return newTestHarness(t, parts{cfg: &config.Config{}, cwd: dir, piHome: filepath.Join(dir, "home"),
		provider: faux.New(steps...), model: model, scripts: &scripts{allowlist: []string{"bash"}, builtins: []tools.Tool{bash}},
		spill: env.Spill}, session.Create(filepath.Join(dir, "sessions"), dir))
}

// newTestHarness assembles a harness from p and attaches s; it is closed when the test ends.
func newTestHarness(t *testing.T, p parts, s *session.Session) *harness {
	t.Helper()
	if p.stderr == nil {
		p.stderr = io.Discard
	}
	h := assemble(p)
	h.agent.SetSystemPrompt("agent") // the scripted models tell summary requests by this
	if err := h.attachSession(s, restore{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.close)
	return h
}

func fauxModel(reasoning bool) provider.Model {
	return provider.Model{ID: "faux-1", Provider: "faux", API: "faux", ContextWindow: 128000, Reasoning: reasoning}
}

func promptText(t *testing.T, a *harness, text string) {
	t.Helper()
	if err := a.compactor.prompt(context.Background(), provider.UserText(text, time.Now().UnixMilli())); err != nil {
		t.Fatal(err)
	}
}

// entriesOfType reads the session's entries of one type.
func entriesOfType(t *testing.T, s *session.Session, typ session.Type) []session.Entry {
	t.Helper()
	all, err := s.Entries()
	if err != nil {
		t.Fatal(err)
	}
	var out []session.Entry
	for _, e := range all {
		if e.Type == typ {
			out = append(out, e)
		}
	}
	return out
}

func TestOpsThinkingLevels(t *testing.T) {
	cases := []struct {
		name      string
		reasoning bool
		set       string
		wantSet   string
		wantCycle []string // levels after successive cycles; nil: cycling is not possible
	}{
		{"reasoning", true, "high", "high", []string{"off", "minimal", "low"}},
		{"no reasoning clamps to off", false, "high", "off", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := newOpsApp(t, fauxModel(tc.reasoning))
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
			changes := entriesOfType(t, a.rec.session(), session.TypeThinking)
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
	a := newOpsApp(t, fauxModel(true))
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
	changes := entriesOfType(t, a.rec.session(), session.TypeModelChange)
	if n := len(changes); n < 2 || changes[n-1].ModelID != "plain" || changes[n-2].ModelID != "thinker" {
		t.Fatalf("model changes recorded: %+v", changes)
	}
	if _, err := a.settings.setModel(context.Background(), "nowhere/x", "set"); err == nil {
		t.Fatal("a model of an unknown provider was accepted")
	}
}

func TestOpsBash(t *testing.T) {
	cases := []struct {
		name, command string
		exclude       bool
		wantOutput    string
		wantCode      int // -1: killed
		inContext     bool
	}{
		{"output enters the next context", "echo from-the-shell", false, "from-the-shell\n", 0, true},
		{"excluded from context", "echo kept-private", true, "kept-private\n", 0, false},
		{"failing command", "echo oops >&2; exit 3", false, "oops\n", 3, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var seen []provider.Message
			a := newOpsApp(t, fauxModel(false), faux.Reply(func(req *provider.Request) provider.Message {
				seen = req.Messages
				return faux.Text("noted")
			}))
			res, err := a.shell.run(context.Background(), tc.command, tc.exclude, nil)
			if err != nil || res.Output != tc.wantOutput || res.ExitCode == nil || *res.ExitCode != tc.wantCode {
				t.Fatalf("runBash = %+v, %v", res, err)
			}
			promptText(t, a, "what did it print?")
			var context strings.Builder
			for i := range seen {
				context.WriteString(seen[i].TextContent())
			}
			if got := strings.Contains(context.String(), strings.TrimSpace(tc.wantOutput)); got != tc.inContext {
				t.Fatalf("output in the model's context: %v, want %v\n%s", got, tc.inContext, context.String())
			}
			if n := len(entriesOfType(t, a.rec.session(), session.TypeMessage)); n != 3 {
				t.Fatalf("session holds %d messages, want bash, prompt and reply", n)
			}
		})
	}
}

func TestOpsBashAbortAndTruncation(t *testing.T) {
	a := newOpsApp(t, fauxModel(false))
	done := make(chan session.BashResult)
	go func() {
		res, _ := a.shell.run(context.Background(), "echo started; sleep 30", false, nil)
		done <- res
	}()
	waitFor(t, "the command running", func() bool { return a.work.running(workBash) })
	a.work.cancel(workBash)
	select {
	case res := <-done:
		if !res.Cancelled || res.ExitCode != nil {
			t.Fatalf("aborted command: %+v", res)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("abortBash did not stop the command")
	}

	res, err := a.shell.run(context.Background(), "seq 1 5000", false, nil)
	if err != nil || !res.Truncated || res.FullOutputPath == "" {
		t.Fatalf("long output: %+v, %v", res, err)
	}
	defer os.Remove(res.FullOutputPath)
	full, err := os.ReadFile(res.FullOutputPath)
	if err != nil || !strings.HasPrefix(string(full), "1\n2\n") || !strings.HasSuffix(string(full), "5000\n") {
		t.Fatalf("full output file: %v, %d bytes", err, len(full))
	}
	if !strings.HasSuffix(res.Output, "5000\n") || strings.HasPrefix(res.Output, "1\n") {
		t.Fatalf("truncated output should keep the tail: %q…", res.Output[:20])
	}
}

func TestOpsSessionLifecycle(t *testing.T) {
	a := newOpsApp(t, fauxModel(false), faux.Text("first answer"), faux.Text("second answer"), faux.Text("forked answer"))
	promptText(t, a, "first question")
	promptText(t, a, "second question")
	original := a.rec.session().Path()

	forks, err := session.ForkPoints(a.rec.session())
	if err != nil || len(forks) != 2 || forks[1].Text != "second question" {
		t.Fatalf("forkMessages = %+v, %v", forks, err)
	}
	text, err := a.ForkAt(forks[1].EntryID)
	if err != nil || text != "second question" {
		t.Fatalf("forkAt = %q, %v", text, err)
	}
	if a.rec.session().Path() == original || a.rec.session().Header().ParentSession != original {
		t.Fatalf("fork went to %s with parent %q", a.rec.session().Path(), a.rec.session().Header().ParentSession)
	}
	if got, _ := session.LastAssistantText(a.agent.MessagesView()); got != "first answer" {
		t.Fatalf("after the fork the last answer is %q", got)
	}
	promptText(t, a, "another second question")
	forked := a.rec.session().Path()

	if err := a.Clone(); err != nil || a.rec.session().Header().ParentSession != forked {
		t.Fatalf("clone: %v, parent %q", err, a.rec.session().Header().ParentSession)
	}
	if n := len(a.agent.State().Messages); n != 4 {
		t.Fatalf("clone holds %d messages, want 4", n)
	}
	if err := a.NewSession(""); err != nil || len(a.agent.State().Messages) != 0 {
		t.Fatalf("newSession: %v, %d messages", err, len(a.agent.State().Messages))
	}
	if err := a.SwitchSession(context.Background(), original); err != nil {
		t.Fatal(err)
	}
	if got, _ := session.LastAssistantText(a.agent.MessagesView()); got != "second answer" || a.rec.session().Path() != original {
		t.Fatalf("switched back to %s, last answer %q", a.rec.session().Path(), got)
	}
}

func TestOpsStatsNameAndExport(t *testing.T) {
	reply := faux.Blocks(provider.Text("running <b>it</b>"), faux.Call("c1", "bash", map[string]any{"command": "echo '<script>'"}))
	reply.Usage = &provider.Usage{Input: 100, Output: 20, CacheRead: 5, TotalTokens: 125}
	model := fauxModel(false)
	model.Cost = provider.ModelCost{Input: 5000} // $0.50 for the first reply's 100 input tokens
	a := newOpsApp(t, model, reply, faux.Text("done & dusted"))
	if _, ok := session.LastAssistantText(a.agent.MessagesView()); ok {
		t.Fatal("an empty conversation has a last assistant text")
	}
	promptText(t, a, "run it")
	st := session.StatsOf(a.rec.session(), a.agent.MessagesView())
	want := session.Stats{SessionFile: a.rec.session().Path(), SessionID: a.rec.session().ID(), UserMessages: 1, AssistantMessages: 2,
		ToolCalls: 1, ToolResults: 1, TotalMessages: 4}
	got := st
	got.Tokens, got.Cost = session.StatsTokens{}, 0
	if got != want || st.Tokens.Input < 100 || st.Tokens.CacheRead != 5 || st.Cost < 0.5 {
		t.Fatalf("stats = %+v", st)
	}
	if text, _ := session.LastAssistantText(a.agent.MessagesView()); text != "done & dusted" {
		t.Fatalf("last text %q", text)
	}
	if err := session.Rename(a.rec.session(), "  "); err == nil {
		t.Fatal("an empty name was accepted")
	}
	if err := session.Rename(a.rec.session(), "Export test"); err != nil || a.rec.session().Name() != "Export test" {
		t.Fatalf("setSessionName: %v, name %q", err, a.rec.session().Name())
	}
	path, err := export.File(a.rec.session(), export.Options{Model: "faux/faux-1"}, a.cwd, filepath.Join(t.TempDir(), "out.html"))
	if err != nil {
		t.Fatal(err)
	}
	page, _ := os.ReadFile(path)
	for _, want := range []string{"<title>Export test</title>", "running &lt;b&gt;it&lt;/b&gt;", "&lt;script&gt;", "done &amp; dusted", "Result of bash"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("export lacks %q", want)
		}
	}
	if strings.Contains(string(page), "<script>") {
		t.Error("export contains an unescaped <script>")
	}
}

func TestOpsQueueModesAndToggles(t *testing.T) {
	a := newOpsApp(t, fauxModel(false))
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

// TestForkKeepsTheModelInUse: forking at an earlier message goes on with the model the user
// switched to since, recorded in the new session, rather than the one of the fork point.
func TestForkKeepsTheModelInUse(t *testing.T) {
	a := newOpsApp(t, fauxModel(false))
	zero := 0
	a.cfg = &config.Config{Retry: config.RetryConfig{MaxRetries: &zero}, Providers: map[string]*config.ProviderConfig{
		"local": {Kind: "openai", BaseURL: "http://127.0.0.1:9/v1", Models: []config.ModelConfig{{ID: "one"}, {ID: "two"}}}}}
	a.settings.cfg = a.cfg
	ctx := context.Background()
	if _, err := a.settings.setModel(ctx, "local/one", "set"); err != nil {
		t.Fatal(err)
	}
	promptText(t, a, "question one") // the replies are errors (nothing listens): they still count
	promptText(t, a, "question two")
	if _, err := a.settings.setModel(ctx, "local/two", "set"); err != nil {
		t.Fatal(err)
	}
	msgs, err := session.ForkPoints(a.rec.session())
	if err != nil || len(msgs) != 2 {
		t.Fatalf("fork points %v, %v", msgs, err)
	}
	if _, err := a.ForkAt(msgs[1].EntryID); err != nil {
		t.Fatal(err)
	}
	if m := a.agent.Model(); m.Provider != "local" || m.ID != "two" {
		t.Fatalf("after /fork the model is %s/%s, want local/two", m.Provider, m.ID)
	}
	changes := entriesOfType(t, a.rec.session(), session.TypeModelChange)
	if n := len(changes); n == 0 || changes[n-1].ModelID != "two" {
		t.Fatalf("the forked session records %+v", changes)
	}
}

// TestScopedModelsCycle: with a scope, cycling goes through the models it names only (the
// current one included), and RPC's cycle_model says it was scoped.
func TestScopedModelsCycle(t *testing.T) {
	a := newOpsApp(t, fauxModel(false))
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
