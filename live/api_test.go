package live

import (
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
