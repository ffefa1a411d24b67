package provider

import (
	"strings"
	"testing"
)

func TestBuilderKeepsEachBlocksText(t *testing.T) {
	var partials []string
	b := NewBuilder(&Model{ID: "m"}, func(ev Event) {
		if ev.Type == EventTextDelta {
			partials = append(partials, ev.Partial.Content[ev.ContentIndex].Text)
		}
	})
	b.Start()
	b.ThinkingDelta("hm")
	b.ThinkingDelta("m")
	b.TextDelta("ab")
	b.TextDelta("cd")
	b.ToolCall("1", "read", map[string]any{"path": "x"})
	b.TextDelta("ef")
	msg := b.Done(StopStop)
	got := []string{msg.Content[0].Thinking, msg.Content[1].Text, msg.Content[3].Text}
	if strings.Join(got, "|") != "hmm|abcd|ef" || msg.StopReason != StopToolUse {
		t.Fatalf("blocks %q, stop %s", got, msg.StopReason)
	}
	// Texts handed out earlier must not change as the block grows.
	if strings.Join(partials, "|") != "ab|abcd|ef" {
		t.Fatalf("partials %q", partials)
	}
}

func BenchmarkBuilderLongReply(b *testing.B) {
	chunk := strings.Repeat("x", 16)
	for b.Loop() {
		bl := NewBuilder(&Model{ID: "m"}, func(Event) {})
		bl.Start()
		for range 20000 { // a 320 KB reply
			bl.TextDelta(chunk)
		}
		bl.Done(StopStop)
	}
}
