package faux

import (
	"context"
	"strings"
	"testing"

	"pi/provider"
)

func stream(t *testing.T, p *Provider, ctx context.Context) (provider.Message, []provider.Event) {
	t.Helper()
	var events []provider.Event
	req := &provider.Request{Model: provider.Model{ID: "faux-1", API: "faux", Provider: "faux"}}
	msg := p.Stream(ctx, req, func(ev provider.Event) { events = append(events, ev) })
	return msg, events
}

func TestStreamsSmallDeltasInOrder(t *testing.T) {
	text := strings.Repeat("word ", 20)
	p := New(Blocks(provider.Thinking("hmm, let me think about it"), provider.Text(text),
		Call("c1", "read", map[string]any{"path": "a/very/long/path/to/some/file.go"})))
	msg, events := stream(t, p, context.Background())
	var types []string
	deltas := 0
	for _, ev := range events {
		if len(types) == 0 || types[len(types)-1] != string(ev.Type) {
			types = append(types, string(ev.Type))
		}
		if strings.HasSuffix(string(ev.Type), "_delta") {
			deltas++
			if len([]rune(ev.Delta)) > 16 {
				t.Errorf("delta of %d runes", len([]rune(ev.Delta)))
			}
		}
	}
	want := "start thinking_start thinking_delta thinking_end text_start text_delta text_end toolcall_start toolcall_delta toolcall_end done"
	if got := strings.Join(types, " "); got != want {
		t.Fatalf("event types\n got %s\nwant %s", got, want)
	}
	if deltas < 8 {
		t.Errorf("only %d deltas", deltas)
	}
	if msg.StopReason != provider.StopToolUse || msg.TextContent() != text {
		t.Errorf("final message %+v", msg)
	}
	if args := msg.ToolCalls()[0].Arguments; args["path"] != "a/very/long/path/to/some/file.go" {
		t.Errorf("arguments %v", args)
	}
}

func TestCancelledBeforeStartIsAborted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	msg, events := stream(t, New(Text("never")), ctx)
	if msg.StopReason != provider.StopAborted || len(events) != 1 || events[0].Type != provider.EventError {
		t.Fatalf("message %+v events %v", msg, events)
	}
}

func TestFailuresBecomeErrorMessages(t *testing.T) {
	cases := []struct {
		name string
		p    *Provider
		want string
	}{
		{"exhausted", New(), "no more scripted replies"},
		{"panicking reply", New(Reply(func(*provider.Request) provider.Message { panic("boom") })), "boom"},
		{"scripted error", New(Error("rate limited")), "rate limited"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			msg, _ := stream(t, tc.p, context.Background())
			if msg.StopReason != provider.StopError || !strings.Contains(msg.ErrorMessage, tc.want) {
				t.Fatalf("got %+v", msg)
			}
		})
	}
}

func TestReplySeesTheRequest(t *testing.T) {
	var saw string
	p := New(Reply(func(req *provider.Request) provider.Message { saw = req.SystemPrompt; return Text("ok") }))
	req := &provider.Request{SystemPrompt: "be nice"}
	p.Stream(context.Background(), req, func(provider.Event) {})
	if saw != "be nice" || p.Calls() != 1 || len(p.Requests()) != 1 {
		t.Fatalf("saw %q calls %d", saw, p.Calls())
	}
}

func TestLoadScript(t *testing.T) {
	p, err := LoadScript("../../testdata/faux/read_turn.json")
	if err != nil {
		t.Fatal(err)
	}
	if p.Pending() != 2 {
		t.Fatalf("pending %d", p.Pending())
	}
	if _, err := LoadScript("../../testdata/messages/user_string.json"); err == nil {
		t.Fatal("a message that is not a script was accepted")
	}
}
