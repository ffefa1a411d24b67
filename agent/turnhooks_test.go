package agent

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"pi/provider"
	"pi/provider/faux"
)

// FinishTurn continues a run that would end, with its messages or "Continue.", until it
// answers end; a failing hook ends the run as if there were none.
func TestFinishTurnContinuesTheRun(t *testing.T) {
	cases := []struct {
		name      string
		decide    func(n int) (TurnFinish, error)
		wantCalls int
		wantUser  []string // the user messages of the transcript
	}{
		{"continues twice then ends", func(n int) (TurnFinish, error) {
			if n < 2 {
				return TurnFinish{Continue: true, Messages: []provider.Message{provider.UserText("the tests still fail", 2)}}, nil
			}
			return TurnFinish{}, nil
		}, 3, []string{"go", "the tests still fail", "the tests still fail"}},
		{"continue without messages", func(n int) (TurnFinish, error) { return TurnFinish{Continue: n == 0}, nil }, 2,
			[]string{"go", "Continue."}},
		{"end at once", func(int) (TurnFinish, error) { return TurnFinish{}, nil }, 1, []string{"go"}},
		{"a failing hook ends the run", func(int) (TurnFinish, error) { return TurnFinish{Continue: true}, errors.New("boom") }, 1,
			[]string{"go"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := faux.New(faux.Text("one"), faux.Text("two"), faux.Text("three"), faux.Text("four"))
			a, rec := newTestAgent(t, p)
			asked := 0
			a.hooks.FinishTurn = func(_ context.Context, m *provider.Message) (TurnFinish, error) {
				if m.Role != provider.RoleAssistant {
					t.Errorf("FinishTurn got a %s message", m.Role)
				}
				asked++
				return tc.decide(asked - 1)
			}
			prompt(t, a, "go")
			if p.Calls() != tc.wantCalls {
				t.Errorf("%d model calls, want %d", p.Calls(), tc.wantCalls)
			}
			var users []string
			for _, m := range a.State().Messages {
				if m.Role == provider.RoleUser {
					users = append(users, m.TextContent())
				}
			}
			if !reflect.DeepEqual(users, tc.wantUser) {
				t.Errorf("user messages %q, want %q", users, tc.wantUser)
			}
			if n := len(rec.ofType(EvAgentEnd)); n != 1 {
				t.Errorf("%d agent_end events, want 1", n)
			}
		})
	}
}

// A hook that always continues stops after MaxFinishContinues.
func TestFinishTurnIsBounded(t *testing.T) {
	steps := make([]faux.Step, MaxFinishContinues+5)
	for i := range steps {
		steps[i] = faux.Text("again")
	}
	p := faux.New(steps...)
	a, _ := newTestAgent(t, p)
	a.hooks.FinishTurn = func(context.Context, *provider.Message) (TurnFinish, error) { return TurnFinish{Continue: true}, nil }
	prompt(t, a, "go")
	if p.Calls() != MaxFinishContinues+1 {
		t.Errorf("%d model calls, want %d", p.Calls(), MaxFinishContinues+1)
	}
}

// PrepareRequest changes one model call (model, provider, messages) and nothing after it:
// the next call and the transcript are as they were.
func TestPrepareRequestChangesOneCall(t *testing.T) {
	main := faux.New(faux.Blocks(faux.Call("c1", "echo", map[string]any{"x": 1})), faux.Text("done"))
	other := faux.New(faux.Text("from the other model"))
	a, _ := newTestAgent(t, main, testTool("echo", nil))
	calls := 0
	a.hooks.PrepareRequest = func(_ context.Context, out *Outgoing) error {
		calls++
		if calls == 2 { // the call after the tool result goes elsewhere, with one message less
			req := *out.Request
			req.Model.ID = "other-1"
			req.Messages = req.Messages[1:]
			out.Provider, out.Request = other, &req
		}
		return nil
	}
	prompt(t, a, "go")
	if main.Calls() != 1 || other.Calls() != 1 {
		t.Fatalf("calls: main %d, other %d; want 1 and 1", main.Calls(), other.Calls())
	}
	sent := other.Requests()[0]
	if sent.Model.ID != "other-1" || len(sent.Messages) != 2 {
		t.Errorf("the changed call went with model %q and %d messages, want other-1 and 2", sent.Model.ID, len(sent.Messages))
	}
	msgs := a.State().Messages
	if len(msgs) != 4 || msgs[0].TextContent() != "go" || msgs[3].TextContent() != "from the other model" {
		t.Errorf("transcript %v: the user message must stay and the reply join it", roles(msgs))
	}
}

// A failing PrepareRequest ends the run with an error reply that says why.
func TestPrepareRequestFailureEndsTheRun(t *testing.T) {
	p := faux.New(faux.Text("unused"))
	a, _ := newTestAgent(t, p)
	a.hooks.PrepareRequest = func(context.Context, *Outgoing) error { return errors.New("no such model") }
	prompt(t, a, "go")
	last := a.State().Messages[len(a.State().Messages)-1]
	if p.Calls() != 0 || last.StopReason != provider.StopError || last.ErrorMessage == "" {
		t.Errorf("calls %d, last %s %q: want no call and an error reply", p.Calls(), last.StopReason, last.ErrorMessage)
	}
}
