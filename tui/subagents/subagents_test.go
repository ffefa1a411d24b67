package subagents

import (
	"context"
	"io"
	"slices"
	"testing"

	"pi/agent"
	"pi/subagent"
	"pi/tui"
)

// The widget has one line per background child still to finish, with what it does now;
// foreground children (their line is under their Agent call) and ended ones have none.
func TestLines(t *testing.T) {
	bg := func(id string, st subagent.Status, tool string) subagent.Result {
		return subagent.Result{ID: id, Type: "explore", Description: "scan", Status: st, Background: true, Tool: tool, Turns: 2, Tokens: 1500}
	}
	fg := bg("agent-9", subagent.Running, "read")
	fg.Background = false
	cases := []struct {
		name string
		in   []subagent.Result
		want []string
	}{
		{"none", nil, nil},
		{"running and queued", []subagent.Result{bg("agent-1", subagent.Running, "grep"), bg("agent-2", subagent.Queued, "")},
			[]string{"⟳ agent-1 explore · scan · grep · 2 turns · 1500 tokens (running)", "⟳ agent-2 explore · scan · 2 turns · 1500 tokens (queued)"}},
		{"ended and foreground left out", []subagent.Result{bg("agent-1", subagent.Done, ""), bg("agent-2", subagent.Aborted, ""),
			bg("agent-3", subagent.Failed, ""), fg}, nil},
	}
	for _, c := range cases {
		if got := Lines(c.in); !slices.Equal(got, c.want) {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

// A session without subagents (no manager) gets a Screen that does nothing.
func TestShowWithoutManager(t *testing.T) {
	app := tui.NewApp(io.Discard, 80, 24, tui.Callbacks{}, tui.Options{ManualFrames: true, Cwd: t.TempDir()})
	s := Show(app, nil)
	s.Event(agent.Event{Type: agent.EvSubagent, AgentID: "agent-1", Sub: &agent.Event{Type: agent.EvAgentStart}})
	s.Close()
	var m *subagent.Manager
	if m.Wait(context.Background()) {
		t.Error("a nil manager has no children to wait for")
	}
}
