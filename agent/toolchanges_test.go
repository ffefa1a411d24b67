package agent

import (
	"context"
	"slices"
	"strings"
	"testing"

	"pi/provider"
	"pi/provider/faux"
	"pi/tools"
)

// A change of the active tools is declared before the next model call: within a run (a tool
// that activates another) after the tool results, and between runs before the new prompt; the
// request offers exactly the active tools, and a call without a change adds nothing. A
// tool result's usage stays on its message.
func TestToolChangesDeclared(t *testing.T) {
	var a *Agent
	secret := testTool("secret", nil)
	var unlock tools.Tool
	unlock = testTool("unlock", func(context.Context, map[string]any) (tools.Result, error) {
		a.SetTools([]tools.Tool{unlock, secret})
		return tools.Result{Content: []provider.Block{provider.Text("unlocked")}, Usage: &provider.Usage{Input: 7, Output: 3}}, nil
	})
	p := faux.New(call("c1", "unlock", map[string]any{"x": 1}), faux.Text("now I have secret"), faux.Text("fine"), faux.Text("again"))
	a, _ = newTestAgent(t, p, unlock)
	prompt(t, a, "go")
	a.SetTools([]tools.Tool{secret})
	prompt(t, a, "and now")
	prompt(t, a, "no change")
	got := strings.Join(roles(a.State().Messages), " ")
	want := "user assistant toolResult system assistant system user assistant user assistant"
	if got != want {
		t.Fatalf("transcript\n%s\nwant\n%s", got, want)
	}
	msgs := a.State().Messages
	if added, removed := provider.ToolsOf(&msgs[3]); len(added) != 1 || added[0].Name != "secret" || added[0].Description != "test tool secret" || removed != nil {
		t.Errorf("first declaration: %+v %v", added, removed)
	}
	if added, removed := provider.ToolsOf(&msgs[5]); added != nil || !slices.Equal(removed, []string{"unlock"}) {
		t.Errorf("second declaration: %+v %v", added, removed)
	}
	if u := msgs[2].Usage; u == nil || u.Input != 7 {
		t.Errorf("tool result usage %+v", u)
	}
	var offered []string
	for _, td := range p.Requests()[1].Tools {
		offered = append(offered, td.Name)
	}
	if strings.Join(offered, ",") != "unlock,secret" || len(p.Requests()[3].Tools) != 1 {
		t.Errorf("offered %v, then %+v", offered, p.Requests()[3].Tools)
	}
}

// A replaced transcript (a compaction, a shell command joining) keeps what the conversation
// was offered, so a change is still declared; a new, empty conversation starts afresh.
func TestToolChangesAcrossReplacedTranscripts(t *testing.T) {
	one, two := testTool("one", nil), testTool("two", nil)
	p := faux.New(faux.Text("a"), faux.Text("b"), faux.Text("c"))
	a, _ := newTestAgent(t, p, one)
	prompt(t, a, "first")
	a.ReplaceMessages(a.State().Messages[1:])
	a.SetTools([]tools.Tool{one, two})
	prompt(t, a, "second")
	if got := strings.Join(roles(a.State().Messages), " "); got != "assistant system user assistant" {
		t.Fatalf("after a replaced transcript: %s", got)
	}
	a.ReplaceMessages(nil)
	a.SetTools([]tools.Tool{two})
	prompt(t, a, "third")
	if got := strings.Join(roles(a.State().Messages), " "); got != "user assistant" {
		t.Fatalf("a new conversation: %s", got)
	}
}
