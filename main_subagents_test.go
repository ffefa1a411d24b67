package main

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"pi/internal/ollamatest"
	"pi/internal/pitest"
	"pi/live"
	"pi/provider"
	"pi/provider/faux"
	"pi/session"
)

// TestSubagentOnRealOllama: the parent hands a read to an explore child, both on the real
// server; the parent continues with the child's answer.
func TestSubagentOnRealOllama(t *testing.T) {
	s := startOllama(t, ollamatest.ModelSpec{Rules: []ollamatest.Rule{
		{When: ollamatest.When{LastRole: "user", ToolOffered: "Agent"}, Reply: ollamatest.ToolCall("Agent",
			map[string]any{"prompt": "Read README.md and say what it says.", "description": "scout", "subagent_type": "explore"})},
		{When: ollamatest.When{LastRole: "user", ToolOffered: "grep"}, Reply: ollamatest.ToolCall("read", map[string]any{"path": "README.md"})},
		{When: ollamatest.When{LastRole: "tool", ToolOffered: "grep"}, Reply: ollamatest.FinalAnswer},
		{When: ollamatest.When{LastRole: "tool", ToolOffered: "Agent"}, Reply: "The scout reports back."},
	}})
	bin := buildPi(t)
	dir := e2eProject(t, s, map[string]string{"README.md": "hello\n"})
	r := runPi(t, bin, dir, "--model", "native/"+e2eModel, "--tools", "read,Agent", "--mode", "json", "Ask a scout.")
	if r.code != 0 || !strings.Contains(r.stdout, "The scout reports back.") {
		t.Fatalf("code %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stdout, `status: done`) || !strings.Contains(r.stdout, ollamatest.FinalAnswer) {
		t.Fatalf("the Agent result should carry the child's answer:\n%s", r.stdout)
	}
	files, _ := filepath.Glob(filepath.Join(dir, ".pihome", "sessions", "*", "*.jsonl"))
	if len(files) != 2 {
		t.Fatalf("want the parent's and the child's session files, found %v", files)
	}
}

// TestSubagentContextFigure measures what twenty file reads cost the parent's context
// (pi's estimate, about four characters a token): read directly, or by an explore child
// that answers in one line. Run with -v for the figure.
func TestSubagentContextFigure(t *testing.T) {
	sources, _ := filepath.Glob("session/*.go")
	sort.Strings(sources)
	if len(sources) < 20 {
		t.Skip("fewer than 20 files to read")
	}
	sources = sources[:20]
	growth := map[string]int{}
	for _, via := range []string{"direct", "explore"} {
		h, cwd := subagentSession(t, "[subagents]\nenabled = true\n", live.Options{}, func(who string, last provider.Message, req *provider.Request) provider.Message {
			child := strings.Contains(who, "SCAN")
			reads := 0
			for _, m := range req.Messages {
				if m.Role == provider.RoleToolResult {
					reads++
				}
			}
			switch {
			case via == "direct" && !child && reads < 20, child && reads < 20:
				return pitest.SubCall("read", map[string]any{"path": filepath.Base(sources[reads])})
			case child:
				return faux.Text("The 20 files define package session: files, entries, compaction, listing.")
			case via == "explore" && last.Role == provider.RoleUser:
				return pitest.SubCall("Agent", map[string]any{"prompt": "SCAN the 20 .go files and say what they define.",
					"description": "scan", "subagent_type": "explore"})
			}
			return faux.Text("Done.")
		})
		for _, src := range sources {
			data, _ := os.ReadFile(src)
			os.WriteFile(filepath.Join(cwd, filepath.Base(src)), data, 0o644)
		}
		send(t, h, "What do the 20 files define?")
		for _, m := range h.Agent().MessagesView() {
			growth[via] += session.EstimateTokens(&m)
		}
	}
	t.Logf("parent context after the task: direct %d tokens, via an explore child %d tokens (%.1f%%)",
		growth["direct"], growth["explore"], 100*float64(growth["explore"])/float64(growth["direct"]))
	if growth["explore"]*5 > growth["direct"] {
		t.Errorf("the child should spare the parent most of the reads: %v", growth)
	}
}
