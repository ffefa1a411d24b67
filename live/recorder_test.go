package live

import (
	"context"
	"testing"

	"pi/config"
	"pi/internal/pitest"
	"pi/provider/faux"
	"pi/session"
)

func TestOpsSessionLifecycle(t *testing.T) {
	a := newOpsApp(t, pitest.FauxModel(false), faux.Text("first answer"), faux.Text("second answer"), faux.Text("forked answer"))
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

// TestForkKeepsTheModelInUse: forking at an earlier message goes on with the model the user
// switched to since, recorded in the new session, rather than the one of the fork point.
func TestForkKeepsTheModelInUse(t *testing.T) {
	a := newOpsApp(t, pitest.FauxModel(false))
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
	changes := pitest.EntriesOfType(t, a.rec.session(), session.TypeModelChange)
	if n := len(changes); n == 0 || changes[n-1].ModelID != "two" {
		t.Fatalf("the forked session records %+v", changes)
	}
}
