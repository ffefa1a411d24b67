package server

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"pi/internal/cbor"
	"pi/rpcwire"
)

// As matches keys to fields ignoring case, so each shape's cbor names must be its Go names
// but for case: a field named otherwise would silently stay empty in a client.
func TestCBORNamesMatchFieldNames(t *testing.T) {
	for _, v := range []any{ModelRef{}, ModelCost{}, ModelMetadata{}, Content{}, UsageCost{}, Usage{}, Item{},
		SessionMetadata{}, SessionSnapshot{}, ServerSnapshot{}, Progress{}, LiveStatus{}} {
		rt := reflect.TypeOf(v)
		for i := range rt.NumField() {
			f := rt.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("cbor"), ",")
			if f.IsExported() && !strings.EqualFold(name, f.Name) {
				t.Errorf("%s.%s is sent as %q", rt.Name(), f.Name, name)
			}
		}
	}
}

// What the server encodes, a client decodes and reads back with As into the same value.
func TestAsReadsWhatTheServerSends(t *testing.T) {
	text, yes, idx, delta := "hi", true, 1, "lo"
	snap := SessionSnapshot{ID: "s1", Name: "work", Cwd: "/p", CreatedAt: 5, UpdatedAt: 6, Phase: "turn",
		Model: ModelRef{Provider: "ollama", ID: "qwen3"}, ThinkingLevel: "high", Attached: true, Revision: 9,
		Transcript: []Item{
			{ID: "i1", Role: "user", Content: []Content{{Type: "text", Text: &text}}, Timestamp: 1},
			{ID: "i2", Role: "tool", ToolCallID: "c1", ToolName: "bash", Input: json.RawMessage(`{"command":"ls"}`),
				Content: []Content{{Type: "text", Text: &text}}, Details: json.RawMessage(`{"exit":0}`), IsError: &yes,
				Usage: &Usage{Input: 3, TotalTokens: 4, Cost: UsageCost{Total: 0.25}}, Status: "done"},
		}, QueuedSteer: []Item{}, QueuedSteerCount: 0}
	progress := Progress{Type: "assistant_delta", MessageID: "m", ContentIndex: &idx, Kind: "text", Delta: &delta}
	server := ServerSnapshot{ServerID: "srv", ProtocolVersion: 1, Revision: 2, Sessions: []SessionMetadata{{ID: "s1", ParentSessionID: "s0", Cwd: "/p"}},
		Models: []ModelMetadata{{Provider: "faux", ID: "f", ContextWindow: 8000, Input: []string{"text"}, SupportedThinkingLevels: []string{"off"}}}}
	for _, tc := range []struct{ sent, got any }{
		{&snap, &SessionSnapshot{}}, {&progress, &Progress{}}, {&server, &ServerSnapshot{}},
	} {
		b, err := cbor.Marshal(tc.sent)
		if err != nil {
			t.Fatal(err)
		}
		generic, err := cbor.Decode(b, cbor.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		if err := As(generic, tc.got); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(normalJSON(t, tc.got), normalJSON(t, tc.sent)) {
			t.Errorf("read back\n%s\nsent\n%s", normalJSON(t, tc.got), normalJSON(t, tc.sent))
		}
	}
	if err := As([]any{"not", "a", "snapshot"}, &SessionSnapshot{}); err == nil {
		t.Error("a list read as a snapshot")
	}
}

// normalJSON compares values whose raw JSON fields may differ in spacing only.
func normalJSON(t *testing.T, v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The typed client against a real server: list, create, prompt, attach, events, detach.
func TestTypedClient(t *testing.T) {
	k := startServer(t, slowReply("Hello from the scripted model.", 0), nil)
	c := k.dial()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	st, err := c.ServerState()
	if err != nil || st.ProtocolVersion != 1 {
		t.Fatalf("server state %+v %v", st, err)
	}
	snap, err := c.Create(ctx, "")
	if err != nil || snap.Phase != "idle" || !snap.Attached {
		t.Fatalf("create: %+v %v", snap, err)
	}
	if err := c.Prompt(ctx, snap.ID, "hi"); err != nil {
		t.Fatal(err)
	}
	list, err := c.List(ctx)
	if err != nil || len(list) != 1 || list[0].ID != snap.ID || list[0].Cwd != "/work" {
		t.Fatalf("list %+v %v", list, err)
	}
	again, err := c.Attach(ctx, snap.ID)
	if err != nil || len(again.Transcript) != 2 || *again.Transcript[1].Content[0].Text != "Hello from the scripted model." {
		t.Fatalf("attach: %+v %v", again, err)
	}
	var sawSnapshot bool
	for !sawSnapshot {
		select {
		case m := <-c.Events():
			ev, err := ReadEvent(m)
			if err != nil {
				t.Fatal(err)
			}
			sawSnapshot = ev.Type == "session_snapshot" && ev.Session != nil && ev.Session.ID == snap.ID
		case <-ctx.Done():
			t.Fatal("no session snapshot event")
		}
	}
	if err := c.SetModel(ctx, snap.ID, ModelRef{Provider: "faux", ID: "other"}); err != nil {
		t.Fatal(err)
	}
	if err := c.Steer(ctx, snap.ID, "more"); err != nil {
		t.Fatal(err)
	}
	if err := c.Abort(ctx, snap.ID); err != nil {
		t.Fatal(err)
	}
	if err := c.Detach(ctx, snap.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Attach(ctx, "no-such-session"); err == nil {
		t.Error("attached to a session that is not there")
	}
	// The server's fake runtime runs no pi commands: pi_rpc is refused, not misread.
	if _, _, err := c.PiRPC(ctx, snap.ID, rpcwire.Command{Type: "get_state"}); err == nil {
		t.Error("pi_rpc on a runtime without pi's commands worked")
	}
	// A request right after Close fails as closed, whether or not the read loop has seen the
	// end yet.
	c.Close()
	if _, err := c.List(ctx); !errors.Is(err, ErrClosed) {
		t.Errorf("a request on a closed connection: %v", err)
	}
}

// ReadEvent refuses an event whose snapshot is not one.
func TestReadEventRefusesGarbage(t *testing.T) {
	for _, m := range []map[string]any{
		{"type": "session_snapshot", "snapshot": "nope"},
		{"type": "session_progress", "progress": []any{1}},
		{"type": 7},
	} {
		if _, err := ReadEvent(m); err == nil {
			t.Errorf("%v read", m)
		}
	}
}

// Whatever a server sends, ReadEvent reads it or says it cannot; it never panics.
func FuzzReadEvent(f *testing.F) {
	for _, ev := range []any{
		&Event{Type: "session_progress", SessionID: "s", Progress: &Progress{Type: "item_started", Item: &Item{ID: "i", Role: "user"}}},
		&Event{Type: "session_snapshot", Snapshot: &SessionSnapshot{ID: "s", Transcript: []Item{}}},
		&Event{Type: "server_snapshot", Snapshot: &ServerSnapshot{ServerID: "x"}},
		&Event{Type: "pi_event", SessionID: "s", Line: `{"type":"queue_update"}`},
	} {
		b, err := cbor.Marshal(ev)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, payload []byte) {
		v, err := cbor.Decode(payload, cbor.Limits{})
		m, ok := v.(map[string]any)
		if err != nil || !ok {
			return
		}
		ev, err := ReadEvent(m)
		if err == nil && ev.Type == "session_snapshot" && ev.Session == nil {
			t.Fatalf("a session snapshot event without its snapshot: %v", m)
		}
	})
}
