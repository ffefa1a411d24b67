package live

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"pi/internal/chattest"
	"pi/internal/testwait"
	"pi/provider"
	"pi/provider/faux"
	"pi/session"
)

// newScripted is a live session on the scripted model p with the Lua script src loaded.
func newScripted(t *testing.T, p provider.Provider, src, toml string) *Session {
	t.Helper()
	home, cwd := t.TempDir(), t.TempDir()
	if toml != "" {
		if err := os.WriteFile(filepath.Join(home, "pi.toml"), []byte(toml), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	script := filepath.Join(t.TempDir(), "hooks.lua")
	if err := os.WriteFile(script, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	h, err := New(context.Background(), Options{PiHome: home, Cwd: cwd, Provider: p,
		ProviderModel: provider.Model{ID: "faux-1", Provider: "faux", API: "faux"},
		Extensions:    []string{script}, Session: session.Choice{InMemory: true}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.Close)
	return h
}

func userTexts(h *Session) []string {
	var out []string
	for _, m := range h.Agent().MessagesView() {
		if m.Role == provider.RoleUser {
			out = append(out, session.ShownUserText(&m))
		}
	}
	return out
}

// A finish_turn script keeps the agent going twice, with its own message, then lets it end.
func TestFinishTurnScriptContinuesTwice(t *testing.T) {
	p := faux.New(faux.Text("not yet"), faux.Text("still not"), faux.Text("done"), faux.Text("unused"))
	h := newScripted(t, p, `
local n = 0
pi.on("finish_turn", function(ev)
  n = n + 1
  if n <= 2 then return {action = "continue", message = "check " .. n .. " failed: " .. ev.text} end
  return "end"
end)`, "")
	if err := h.Send(context.Background(), Input{Text: "go", Source: SourceRPC}); err != nil {
		t.Fatal(err)
	}
	if p.Calls() != 3 {
		t.Errorf("%d model calls, want 3", p.Calls())
	}
	got := strings.Join(userTexts(h), " | ")
	if !strings.Contains(got, "check 1 failed: not yet") || !strings.Contains(got, "check 2 failed: still not") {
		t.Errorf("user messages %q: want both of the script's messages", got)
	}
}

// prepare_request sends one call to another model (another provider's) with only the last
// message; the next call and the transcript are untouched.
func TestPrepareRequestScriptChangesOneRequest(t *testing.T) {
	other := chattest.Start(t, []string{"other-model"}, chattest.Reply{Lines: []string{chattest.Done("from the other model", 5, 3)}})
	p := faux.New(faux.Text("second"))
	h := newScripted(t, p, `
local calls = 0
pi.on("prepare_request", function(ev)
  calls = calls + 1
  if calls == 1 then return {model = "other/other-model", messages = {ev.messages[#ev.messages]}} end
end)`, "[providers.other]\nkind = \"ollama\"\nbase_url = \""+other.URL+"\"\n")
	for _, text := range []string{"one", "two"} {
		if err := h.Send(context.Background(), Input{Text: text, Source: SourceRPC}); err != nil {
			t.Fatal(err)
		}
	}
	bodies := other.Bodies()
	if len(bodies) != 1 || bodies[0]["model"] != "other-model" {
		t.Fatalf("the other server got %v, want one request for other-model", bodies)
	}
	if msgs, _ := bodies[0]["messages"].([]any); len(msgs) != 2 { // the system prompt and the one message
		t.Errorf("the changed request had %d messages, want the system prompt and one", len(msgs))
	}
	reqs := p.Requests()
	if len(reqs) != 1 || reqs[0].Model.ID != "faux-1" || len(reqs[0].Messages) != 3 {
		t.Fatalf("the scripted model got %d requests; want one for faux-1 with the whole transcript (3 messages)", len(reqs))
	}
	msgs := h.Agent().MessagesView()
	if len(msgs) != 4 || msgs[1].TextContent() != "from the other model" {
		t.Errorf("transcript of %d messages (second %q): want 4, the other model's reply in it", len(msgs), msgs[1].TextContent())
	}
}

// /trust tells the scripts through project_trust.
func TestProjectTrustEventFiresOnSetTrust(t *testing.T) {
	h := newScripted(t, faux.New(), `
pi.on("project_trust", function(ev) pi.notify("trust " .. tostring(ev.trusted) .. " " .. ev.cwd) end)`, "")
	var ui notifyLog
	h.SetUI(&ui)
	for _, trusted := range []bool{true, false} {
		if _, err := h.SetTrust(context.Background(), trusted); err != nil {
			t.Fatal(err)
		}
	}
	ui.waitFor(t, "trust true "+h.Cwd())
	ui.waitFor(t, "trust false "+h.Cwd())
}

// notifyLog is a UI that keeps the scripts' notices and answers no question.
type notifyLog struct {
	mu      sync.Mutex
	notices []string
}

func (n *notifyLog) Confirm(context.Context, string, string) (bool, error) { return false, nil }
func (n *notifyLog) Select(context.Context, string, []string) (string, bool, error) {
	return "", false, nil
}
func (n *notifyLog) Input(context.Context, string, string) (string, bool, error) {
	return "", false, nil
}
func (n *notifyLog) Editor(context.Context, string, string) (string, bool, error) {
	return "", false, nil
}
func (n *notifyLog) ExtensionUI(string, map[string]any) {}
func (n *notifyLog) Notify(msg, _ string) {
	n.mu.Lock()
	n.notices = append(n.notices, msg)
	n.mu.Unlock()
}

func (n *notifyLog) waitFor(t *testing.T, text string) {
	t.Helper()
	testwait.Until(t, "the notice "+text, func() bool {
		n.mu.Lock()
		defer n.mu.Unlock()
		return slices.Contains(n.notices, text)
	})
}
