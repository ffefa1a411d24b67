package live

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"pi/export"
	"pi/internal/pitest"
	"pi/provider"
	"pi/provider/faux"
	"pi/session"
)

func TestOpsStatsNameAndExport(t *testing.T) {
	reply := faux.Blocks(provider.Text("running <b>it</b>"), faux.Call("c1", "bash", map[string]any{"command": "echo '<script>'"}))
	reply.Usage = &provider.Usage{Input: 100, Output: 20, CacheRead: 5, TotalTokens: 125}
	model := pitest.FauxModel(false)
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

// /debug's report holds the conversation and the configuration, never a header's token; /import
// continues in a new session holding the imported messages.
func TestDebugReportAndImport(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	toml := "[providers.remote]\nkind = \"openai\"\nbase_url = \"http://127.0.0.1:9/v1\"\nheaders = {Authorization = \"Bearer sk-very-secret\"}\n"
	if err := os.WriteFile(filepath.Join(home, "pi.toml"), []byte(toml), 0o644); err != nil {
		t.Fatal(err)
	}
	h, err := New(context.Background(), Options{PiHome: home, Cwd: cwd, Provider: faux.New(faux.Text("the answer")),
		ProviderModel: provider.Model{ID: "m1", Provider: "faux", API: "faux"}, Session: session.Choice{Dir: t.TempDir()}})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if err := h.Send(context.Background(), Input{Text: "the question", Source: SourceRPC}); err != nil {
		t.Fatal(err)
	}
	report := h.DebugReport()
	for _, want := range []string{"the question", "the answer", "faux/m1", "## The next request", "Authorization", "[redacted]"} {
		if !strings.Contains(report, want) {
			t.Errorf("the report lacks %q", want)
		}
	}
	if strings.Contains(report, "sk-very-secret") {
		t.Error("the report holds a header's token")
	}
	before := h.State().SessionID
	skipped, err := h.Import(context.Background(), "../testdata/sessions/claude-code.jsonl")
	if err != nil || skipped != 1 {
		t.Fatalf("Import: %d skipped, %v", skipped, err)
	}
	if h.State().SessionID == before || h.State().MessageCount != 5 {
		t.Errorf("after /import: session %s (was %s), %d messages; want a new one with 5", h.State().SessionID, before, h.State().MessageCount)
	}
}
