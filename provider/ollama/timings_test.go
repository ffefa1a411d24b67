package ollama

import (
	"testing"
	"time"

	"pi/provider"
	"pi/provider/internal/replay"
)

// Ollama's last chunk says how long it spent on the prompt and on the reply: they become
// Usage.Timings.
func TestOllamaTimings(t *testing.T) {
	srv := replay.Serve(t, fixture("show_qwen3.json.http"), fixture("text.ndjson"))
	_, msg := replay.Run(t, newProvider(t, srv.URL), &provider.Request{Model: testModel(),
		Messages: []provider.Message{provider.UserText("hi", 1)}})
	if msg.Usage == nil || msg.Usage.Timings == nil {
		t.Fatalf("usage %+v: no timings", msg.Usage)
	}
	got := *msg.Usage.Timings
	want := provider.Timings{PromptTokens: 312, PromptTime: 280 * time.Millisecond, OutputTokens: 7, OutputTime: 100 * time.Millisecond}
	if got != want {
		t.Fatalf("timings %+v, want %+v", got, want)
	}
	if r := got.OutputRate(); r < 69.9 || r > 70.1 {
		t.Errorf("output rate %.2f tokens/s, want 70", r)
	}
}
