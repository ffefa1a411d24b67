package live

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"pi/config"
	"pi/export"
	"pi/internal/pitest"
	"pi/provider"
	"pi/provider/faux"
	"pi/session"
	"pi/session/sqlitestore"
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

// TestImportGoesToTheStore is /import with each store: pi's own file and a Claude Code file
// become a new session that /resume lists, in the database when [session] names it (no
// session file written), beside the session's files otherwise.
func TestImportGoesToTheStore(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name  string
		store func(home string) func(context.Context, *config.Config, string) (session.Store, error)
	}{
		{"jsonl", func(string) func(context.Context, *config.Config, string) (session.Store, error) { return nil }},
		{"sqlite", func(home string) func(context.Context, *config.Config, string) (session.Store, error) {
			return func(ctx context.Context, _ *config.Config, _ string) (session.Store, error) {
				return sqlitestore.Open(ctx, filepath.Join(home, "sessions.db"))
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home, cwd := t.TempDir(), t.TempDir()
			h, err := New(ctx, Options{PiHome: home, Cwd: cwd, Provider: faux.New(faux.Text("the answer")),
				ProviderModel: provider.Model{ID: "m1", Provider: "faux", API: "faux"}, OpenStore: tc.store(home)})
			if err != nil {
				t.Fatal(err)
			}
			defer h.Close()
			for _, fixture := range []string{"claude-code.jsonl", "pi-0.73.jsonl"} {
				before := h.State().SessionID
				if _, err := h.Import(ctx, filepath.Join("..", "testdata", "sessions", fixture)); err != nil {
					t.Fatalf("Import %s: %v", fixture, err)
				}
				st := h.State()
				if st.SessionID == before || st.MessageCount == 0 {
					t.Fatalf("after importing %s: session %s (was %s), %d messages", fixture, st.SessionID, before, st.MessageCount)
				}
				infos, err := h.Sessions(ctx)
				if err != nil || !slices.ContainsFunc(infos, func(in session.Info) bool { return in.ID == st.SessionID }) {
					t.Fatalf("/resume's list (%v) lacks the session imported from %s: %+v", err, fixture, infos)
				}
				if tc.name == "sqlite" && !strings.HasPrefix(st.SessionFile, filepath.Join(home, "sessions.db")+"#") {
					t.Fatalf("the session imported from %s is %s, not in the database", fixture, st.SessionFile)
				}
			}
			files, _ := filepath.Glob(filepath.Join(session.Dir(home, cwd), "*.jsonl"))
			if tc.name == "sqlite" && len(files) != 0 {
				t.Fatalf("with the SQLite store /import wrote session files: %v", files)
			}
			if tc.name == "jsonl" && len(files) != 2 {
				t.Fatalf("with the files /import wrote %v, want two files", files)
			}
		})
	}
}

// TestSearchSessionsFirstHits is /resume's search with each store: of the sessions listed, the
// one that holds the words comes back once (its first matching line), and another folder's
// session that holds them too does not.
func TestSearchSessionsFirstHits(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name   string
		sqlite bool
	}{{"jsonl", false}, {"sqlite", true}} {
		t.Run(tc.name, func(t *testing.T) {
			home, cwd := t.TempDir(), t.TempDir()
			var st session.Store = session.Files{Home: home}
			var open func(context.Context, *config.Config, string) (session.Store, error)
			if tc.sqlite {
				db, err := sqlitestore.Open(ctx, filepath.Join(home, "sessions.db"))
				if err != nil {
					t.Fatal(err)
				}
				defer db.Close()
				st = db
				open = func(ctx context.Context, _ *config.Config, _ string) (session.Store, error) {
					return sqlitestore.Open(ctx, filepath.Join(home, "sessions.db"))
				}
			}
			write := func(cwd string, texts ...string) string {
				s := st.New(cwd, "")
				defer s.Close()
				for _, text := range texts {
					s.AppendMessage(provider.UserText(text, 1))
					s.AppendMessage(provider.Message{Role: provider.RoleAssistant, Content: []provider.Block{provider.Text("ok")},
						Usage: &provider.Usage{}, StopReason: provider.StopStop})
				}
				return s.ID()
			}
			holds := write(cwd, "look at the Parser first", "then the parser tests")
			write(cwd, "nothing of the kind")
			write("/elsewhere", "the parser too")
			h, err := New(ctx, Options{PiHome: home, Cwd: cwd, Provider: faux.New(), OpenStore: open,
				ProviderModel: provider.Model{ID: "m1", Provider: "faux", API: "faux"}})
			if err != nil {
				t.Fatal(err)
			}
			defer h.Close()
			infos, err := h.Sessions(ctx)
			if err != nil || len(infos) != 2 {
				t.Fatalf("Sessions: %d, %v; want this folder's two", len(infos), err)
			}
			var refs []string
			for _, in := range infos {
				refs = append(refs, in.Path)
			}
			var hits []session.Hit
			err = h.SearchSessions(ctx, "PARSER", refs, func(hit session.Hit) bool { hits = append(hits, hit); return true })
			if err != nil || len(hits) != 1 || hits[0].ID != holds || hits[0].Line != "look at the Parser first" {
				t.Fatalf("SearchSessions = %+v, %v; want the first line of %s only", hits, err, holds)
			}
		})
	}
}
