package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"pi/internal/pitest"
	"pi/live"
	"pi/provider"
	"pi/provider/faux"
)

// TestJSONModeReportsQueueChanges checks that --mode json writes queue_update when a follow-up
// is queued during a run and again when it is delivered.
func TestJSONModeReportsQueueChanges(t *testing.T) {
	var a *live.Session
	a = newOpsApp(t, pitest.FauxModel(false),
		faux.Reply(func(*provider.Request) provider.Message {
			a.Agent().FollowUp(provider.UserText("one more thing", 2))
			return faux.Text("first answer")
		}),
		faux.Text("second answer"))
	var out, errOut bytes.Buffer
	if code := runJSONMode(context.Background(), a, false, []string{"go"}, nil, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	var updates []string
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		if strings.Contains(line, `"type":"queue_update"`) {
			updates = append(updates, line)
		}
	}
	want := []string{`{"type":"queue_update","steering":[],"followUp":["one more thing"]}`,
		`{"type":"queue_update","steering":[],"followUp":[]}`}
	if strings.Join(updates, "\n") != strings.Join(want, "\n") {
		t.Fatalf("queue updates:\n%s", strings.Join(updates, "\n"))
	}
}
