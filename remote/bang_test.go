package remote

import (
	"slices"
	"testing"

	"github.com/gdamore/tcell/v2"

	"pi/internal/testwait"
	"pi/provider"
)

// !command runs bash on the server (keep: into the context) and shows its output, failed
// when it exits non-zero, is cancelled or the command fails.
func TestBangRunsBashOnTheServer(t *testing.T) {
	cases := []struct {
		name    string
		keep    bool
		answer  string
		shows   string
		exclude bool
	}{
		{"kept", true, rpcOK(map[string]any{"output": "\nREADME.md\n", "exitCode": 0}), "README.md", false},
		{"not kept, failing", false, rpcOK(map[string]any{"output": "boom", "exitCode": 2}), "(exit code 2)", true},
		{"cancelled", true, rpcOK(map[string]any{"output": "part", "exitCode": 0, "cancelled": true}), "(cancelled)", false},
		{"refused", true, rpcFailed("bash is off on this server"), "bash is off on this server", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			k := startKit(t, func(map[string]any) string { return c.answer })
			a := attach(t, k)
			a.ctrl.Bash("ls", c.keep)
			cmd := a.rt.nextRPC(t)
			if cmd["type"] != "bash" || cmd["command"] != "ls" || (cmd["excludeFromContext"] == true) != c.exclude {
				t.Fatalf("sent %v", cmd)
			}
			a.shows(t, c.shows)
			if running := a.v.bashing.Load(); running != 0 {
				t.Errorf("%d holds still on", running)
			}
		})
	}
}

// A follow-up goes as follow_up, unless it is one of the terminal's own commands, which runs.
func TestFollowUp(t *testing.T) {
	k := startKit(t, nil)
	a := attach(t, k)
	cb := a.ctrl.Callbacks()
	cb.OnFollowUp("then commit")
	if cmd := a.rt.nextRPC(t); cmd["type"] != "follow_up" || cmd["message"] != "then commit" {
		t.Fatalf("sent %v", cmd)
	}
	cb.OnFollowUp("/name late")
	if cmd := a.rt.nextRPC(t); cmd["type"] != "set_session_name" || cmd["name"] != "late" {
		t.Fatalf("a /name follow-up sent %v", cmd)
	}
}

// /fork offers the earlier messages, forks from the one chosen and puts its text back in
// the editor.
func TestForkFromAChosenMessage(t *testing.T) {
	k := startKit(t, func(cmd map[string]any) string {
		switch cmd["type"] {
		case "get_fork_messages":
			return rpcOK(map[string]any{"messages": []any{
				map[string]any{"entryId": "u1", "text": "first ask"}, map[string]any{"entryId": "u2", "text": "second ask"}}})
		case "fork":
			return rpcOK(map[string]any{"text": "second ask"})
		}
		return rpcOK(map[string]any{})
	})
	a := attach(t, k)
	done := make(chan struct{})
	go func() { a.ctrl.Command("fork", ""); close(done) }()
	a.rt.nextRPC(t)
	a.shows(t, "Fork from which message?")
	a.press(tcell.KeyDown, tcell.KeyEnter)
	if cmd := a.rt.nextRPC(t); cmd["type"] != "fork" || cmd["entryId"] != "u2" {
		t.Fatalf("sent %v", cmd)
	}
	testwait.Receive(t, "/fork to finish", done)
	a.shows(t, "forked into a new session: "+a.v.session())
	a.shows(t, "second ask")
}

// Enter sends v1's prompt, which reaches the session's agent; while it works, Enter steers.
func TestSendPromptsTheSession(t *testing.T) {
	k := startKit(t, nil)
	a := attach(t, k)
	a.ctrl.Callbacks().OnSubmit("hello there")
	testwait.Until(t, "the prompt to reach the agent", func() bool {
		for _, m := range a.rt.ag.MessagesView() {
			if m.TextContent() == "hello there" {
				return true
			}
		}
		return false
	})
	// The server's next snapshot lists the live session's model; follow keeps it.
	go a.v.follow()
	testwait.Until(t, "the server's models to list faux/faux-1", func() bool {
		models, _ := a.v.Models(a.v.ctx)
		return slices.ContainsFunc(models, func(m provider.Model) bool { return m.Provider == "faux" && m.ID == "faux-1" })
	})
}
