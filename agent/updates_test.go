package agent

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"pi/provider"
	"pi/provider/faux"
)

// updateLine is what a client reads of one message_update.
type updateLine struct {
	Message json.RawMessage `json:"message"`
	AME     struct {
		Type    string          `json:"type"`
		Delta   string          `json:"delta"`
		Partial json.RawMessage `json:"partial"`
	} `json:"assistantMessageEvent"`
}

// streamThrough runs one reply through a gate and returns the message_update lines as a
// client reads them, and the final message's JSON.
func streamThrough(t *testing.T, p *faux.Provider, full bool) ([]updateLine, []byte) {
	t.Helper()
	a := New(Config{Provider: p, Model: provider.Model{ID: "faux-1", Provider: "faux", API: "faux"}, SystemPrompt: "test"})
	var gate UpdateGate
	gate.SetFull(full)
	var updates []updateLine
	var final []byte
	a.Subscribe(func(_ context.Context, ev Event) {
		data, err := json.Marshal(gate.Thin(ev))
		if err != nil {
			t.Errorf("encoding %s: %v", ev.Type, err)
			return
		}
		switch {
		case final != nil: // the reply after the tool call's result is not this test's
		case ev.Type == EvMessageUpdate:
			var u updateLine
			if err := json.Unmarshal(data, &u); err != nil {
				t.Errorf("decoding %s: %v", data, err)
			}
			updates = append(updates, u)
		case ev.Type == EvMessageEnd && ev.Message.Role == provider.RoleAssistant:
			final, _ = json.Marshal(ev.Message)
		}
	})
	if err := a.Prompt(context.Background(), provider.UserText("go", 1)); err != nil {
		t.Fatal(err)
	}
	return updates, final
}

// TestUpdateSnapshotsStayLinear: however the reply streams (a rune a chunk, big chunks, with
// a pause before each), all the snapshots of it together are a small multiple of the reply,
// the first update carries one, and the deltas alone rebuild the reply.
func TestUpdateSnapshotsStayLinear(t *testing.T) {
	long := strings.Repeat("All work and no play makes a reply long. ", 2500) // 102,500 bytes
	cases := []struct {
		name  string
		reply provider.Message
		runes int
		delay time.Duration
	}{
		{"slow: a rune a chunk", faux.Text(long[:20000]), 1, 0},
		{"slow: paced chunks", faux.Text(long[:8000]), 16, 20 * time.Microsecond},
		{"usual chunks", faux.Text(long), 16, 0},
		{"fast: big chunks", faux.Text(long), 8192, 0},
		{"thinking, text and a tool call", faux.Blocks(provider.Block{Type: provider.BlockThinking, Thinking: long[:30000]}, faux.Call("c1", "write",
			map[string]any{"content": long[:40000]}), provider.Block{Type: provider.BlockText, Text: long[:30000]}), 16, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := faux.New(tc.reply)
			p.ChunkRunes, p.ChunkDelay = tc.runes, tc.delay
			updates, final := streamThrough(t, p, false)
			if len(updates) == 0 || updates[0].Message == nil {
				t.Fatalf("the first of %d updates carries no snapshot", len(updates))
			}
			snapshots, snapshotBytes := 0, 0
			var deltas strings.Builder
			for _, u := range updates {
				if u.AME.Partial != nil {
					t.Fatalf("a %s update repeats the partial reply in assistantMessageEvent.partial", u.AME.Type)
				}
				if u.Message != nil {
					snapshots++
					snapshotBytes += len(u.Message)
				}
				deltas.WriteString(u.AME.Delta)
			}
			if snapshotBytes > 4*len(final) {
				t.Fatalf("%d snapshots of %d bytes for a reply of %d bytes: more than 4 times the reply", snapshots, snapshotBytes, len(final))
			}
			if want := replyDeltaText(tc.reply); deltas.String() != want {
				t.Fatalf("the deltas make %d bytes, the reply has %d", deltas.Len(), len(want))
			}
			t.Logf("%d updates, %d snapshots, %d snapshot bytes for a %d-byte reply", len(updates), snapshots, snapshotBytes, len(final))
		})
	}
}

// replyDeltaText is what a reply's deltas add up to: its text, thinking and arguments JSON.
func replyDeltaText(m provider.Message) string {
	var b strings.Builder
	for _, blk := range m.Content {
		switch blk.Type {
		case provider.BlockText:
			b.WriteString(blk.Text)
		case provider.BlockThinking:
			b.WriteString(blk.Thinking)
		case provider.BlockToolCall:
			args, _ := json.Marshal(blk.Arguments)
			b.WriteString(string(args))
		}
	}
	return b.String()
}

// TestFullUpdatesKeepPiShape: with the gate set to full, every update carries the partial
// reply in message and in assistantMessageEvent.partial, as pi sends it.
func TestFullUpdatesKeepPiShape(t *testing.T) {
	updates, _ := streamThrough(t, faux.New(faux.Text(strings.Repeat("word ", 400))), true)
	if len(updates) < 10 {
		t.Fatalf("only %d updates", len(updates))
	}
	for i, u := range updates {
		if u.Message == nil || u.AME.Partial == nil {
			t.Fatalf("update %d (%s) lacks message or partial", i, u.AME.Type)
		}
	}
}

// TestUpdateGatePacesEachChildApart: a child's updates inside subagent_event are paced per
// child, the shared event is left as it was, and each reply starts with a snapshot.
func TestUpdateGatePacesEachChildApart(t *testing.T) {
	msg := &provider.Message{Role: provider.RoleAssistant}
	update := func(delta string) *Event {
		return &Event{Type: EvMessageUpdate, Message: msg, AssistantEvent: &provider.Event{Type: provider.EventTextDelta, Delta: delta, Partial: msg}}
	}
	child := func(id string, ev *Event) Event { return Event{Type: EvSubagent, AgentID: id, Sub: ev} }
	var g UpdateGate
	steps := []struct {
		ev   Event
		want UpdateDetail
	}{
		{child("agent-1", update("a")), UpdateSnapshot},
		{child("agent-1", update("b")), UpdateDelta},
		{child("agent-2", update("c")), UpdateSnapshot}, // another child's reply starts its own pace
		{*update("d"), UpdateSnapshot},                  // and so does the session's own
		{child("agent-1", update(strings.Repeat("x", minSnapshotStep))), UpdateSnapshot},
		{child("agent-1", &Event{Type: EvMessageStart, Message: msg}), 0},
		{child("agent-1", update("e")), UpdateSnapshot}, // a new reply: a snapshot first
	}
	for i, s := range steps {
		got := g.Thin(s.ev)
		if s.ev.Type == EvSubagent {
			if s.ev.Sub.Detail != UpdateFull {
				t.Fatalf("step %d: the shared child event was changed", i)
			}
			got = *got.Sub
		}
		if got.Type == EvMessageUpdate && got.Detail != s.want {
			t.Fatalf("step %d: detail %d, want %d", i, got.Detail, s.want)
		}
	}
}
