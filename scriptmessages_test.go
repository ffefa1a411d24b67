package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"pi/provider"
	"pi/provider/faux"
	"pi/session"
)

// pi.send_message over RPC: without a turn the custom message joins the transcript and the
// session (a custom_message entry) and goes out as message_start/message_end with role custom;
// next_turn rides after the user's next prompt; trigger_turn starts a run the model sees it in.
func TestRPCSendCustomMessage(t *testing.T) {
	p := faux.New(faux.Text("one"), faux.Text("two"))
	a := newOpsApp(t, fauxModel(false))
	a.agent.SetProvider(p, fauxModel(false))
	startScripts(t, a, `pi.register_command{name = "note", run = function()
  pi.send_message{custom_type = "note", content = "a note", display = true, details = {n = 1}}
  pi.send_message({custom_type = "later", content = "for the next turn"}, {deliver_as = "next_turn"})
end}
pi.register_command{name = "go", run = function()
  pi.send_message({custom_type = "go", content = "do it now"}, {trigger_turn = true})
end}`)
	c, _, stop := startInProcess(t, context.Background(), a)
	defer stop()
	from := c.mark()
	c.mustCall(map[string]any{"type": "prompt", "message": "/note"})
	end := c.await(from, "message_end of the note", func(l rpcLine) bool { return l["type"] == "message_end" })
	b, _ := json.Marshal(end["message"])
	if !strings.Contains(string(b), `"role":"custom"`) || !strings.Contains(string(b), `"customType":"note"`) ||
		!strings.Contains(string(b), `"details":{"n":1}`) {
		t.Fatalf("message_end %s", b)
	}
	c.prompt("question")
	got := userTexts(p.Requests()[0].Messages)
	if strings.Join(got, "|") != "a note|question|for the next turn" {
		t.Fatalf("the model read %q", got)
	}
	from = c.mark()
	c.mustCall(map[string]any{"type": "prompt", "message": "/go"})
	c.awaitEvent(from, "agent_end")
	if got := userTexts(p.Requests()[1].Messages); got[len(got)-1] != "do it now" {
		t.Fatalf("the triggered turn read %q", got)
	}
	var types []string
	for _, e := range entriesOfType(t, a.rec.session(), session.TypeCustomMessage) {
		types = append(types, e.CustomType)
	}
	if strings.Join(types, ",") != "note,later,go" {
		t.Fatalf("custom_message entries %q", types)
	}
}

func userTexts(msgs []provider.Message) []string {
	var out []string
	for _, m := range msgs {
		if m.Role == provider.RoleUser {
			out = append(out, m.TextContent())
		}
	}
	return out
}
