package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"pi/internal/chattest"
	"pi/internal/testwait"
	"pi/live"
	"pi/provider"
)

// A provider written in Lua that misbehaves ends its reply, never the session: a script that
// raises or hands back bad parts fails the reply with its message; one that never returns
// (a busy loop, a command that sleeps) is stopped by an abort at once.
func TestLuaProviderMisbehaving(t *testing.T) {
	srv := chattest.Start(t, []string{"m1"})
	cases := []struct {
		name, body string
		abort      bool
		stop       provider.StopReason
		message    string
	}{
		{"raises", `error("boom from the script")`, false, provider.StopError, "boom from the script"},
		{"a bad part", `out.tool_call{name = 7}`, false, provider.StopError, `field "name": want a string`},
		{"a busy loop", `while true do end`, true, provider.StopAborted, ""},
		{"a command that sleeps", `pi.exec("sleep 30")`, true, provider.StopAborted, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			script := `pi.register_provider("hostile", {api = "hostile", models = {{id = "h1"}}, stream = function(request, out) ` +
				c.body + ` end})`
			h := setupLuaProvider(t, srv, "hostile/h1", script)
			done := make(chan error, 1)
			go func() { done <- h.Send(context.Background(), live.Input{Text: "hi", Source: live.SourceRPC}) }()
			if c.abort { // once the run is registered, an abort reaches it wherever it is
				testwait.Until(t, "the run", h.Busy)
				h.Abort()
			}
			select {
			case err := <-done:
				if err != nil {
					t.Fatalf("Send: %v", err)
				}
			case <-time.After(testwait.Deadline):
				t.Fatalf("the reply did not end within %v", testwait.Deadline)
			}
			msgs := h.Agent().MessagesView()
			last := msgs[len(msgs)-1]
			if last.Role != provider.RoleAssistant || last.StopReason != c.stop || !strings.Contains(last.ErrorMessage, c.message) {
				t.Fatalf("last message %s, stop %s, error %q; want stop %s with %q", last.Role, last.StopReason, last.ErrorMessage, c.stop, c.message)
			}
		})
	}
}
