package live

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"pi/provider"
	"pi/provider/faux"
	"pi/session"
)

// An Agent call with session_file runs the child in that file (new: started there, naming
// the parent); a later call naming the same file continues that conversation.
func TestSubagentRunsInANamedSessionFileAndResumesIt(t *testing.T) {
	agentCall := func(id, prompt string) faux.Step {
		return faux.Blocks(faux.Call(id, "Agent", map[string]any{"prompt": prompt, "description": "helper", "session_file": "child.jsonl"}))
	}
	p := faux.New(agentCall("c1", "remember the word tangerine"), faux.Text("noted: tangerine"), faux.Text("the child noted it"),
		agentCall("c2", "which word?"), faux.Text("tangerine"), faux.Text("it said tangerine"))
	home, cwd := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "pi.toml"), []byte("[subagents]\nenabled = true\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	h, err := New(context.Background(), Options{PiHome: home, Cwd: cwd, Provider: p,
		ProviderModel: provider.Model{ID: "faux-1", Provider: "faux", API: "faux"}, Session: session.Choice{Dir: t.TempDir()}})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	for _, text := range []string{"start a helper", "ask it again"} {
		if err := h.Send(context.Background(), Input{Text: text, Source: SourceRPC}); err != nil {
			t.Fatal(err)
		}
	}
	child := filepath.Join(cwd, "child.jsonl")
	s, err := session.Open(context.Background(), child)
	if err != nil {
		t.Fatalf("the child's session file: %v", err)
	}
	defer s.Close()
	if got := s.Header().ParentSession; got == "" || got != h.State().SessionFile {
		t.Errorf("the child's header names parent %q, want %q", got, h.State().SessionFile)
	}
	reqs := p.Requests()
	resumed := reqs[4] // the child's second call: its first conversation must be in it
	var texts []string
	for _, m := range resumed.Messages {
		texts = append(texts, m.TextContent())
	}
	if all := strings.Join(texts, " | "); !strings.Contains(all, "noted: tangerine") || !strings.Contains(all, "which word?") {
		t.Errorf("the resumed child saw %q: want its first exchange and the new prompt", all)
	}
}
