package openai

import (
	"path/filepath"
	"testing"
	"time"

	"pi/provider"
	"pi/provider/internal/replay"
)

// llama.cpp's server puts its own timings in the last chunk: they become Usage.Timings, with
// the cached part of the prompt named, so a prefill rate counts only what was evaluated.
func TestLlamaCppTimings(t *testing.T) {
	srv := replay.Serve(t, filepath.Join(fixtures, "llamacpp_timings.sse"))
	_, msg := replay.Run(t, New(Config{BaseURL: srv.URL + "/v1"}), &provider.Request{Model: testModel(),
		Messages: []provider.Message{provider.UserText("hi", 1)}})
	if msg.Usage == nil || msg.Usage.Timings == nil {
		t.Fatalf("usage %+v: no timings", msg.Usage)
	}
	got := *msg.Usage.Timings
	want := provider.Timings{PromptTokens: 900, PromptTime: 2500500 * time.Microsecond, OutputTokens: 12,
		OutputTime: 800 * time.Millisecond, Cached: 800}
	if got != want {
		t.Fatalf("timings %+v, want %+v", got, want)
	}
	if r := got.PromptRate(); r < 39.9 || r > 40.1 {
		t.Errorf("prompt rate %.2f tokens/s, want 100 evaluated in 2.5 s", r)
	}
	if r := got.OutputRate(); r != 15 {
		t.Errorf("output rate %.2f tokens/s, want 15", r)
	}
}

// A server that gives no timings (OpenAI) leaves them nil: not measured, rather than zero.
func TestNoTimingsWithoutTheServersWord(t *testing.T) {
	srv := replay.Serve(t, filepath.Join(fixtures, "text.sse"))
	_, msg := replay.Run(t, New(Config{BaseURL: srv.URL + "/v1"}), &provider.Request{Model: testModel(),
		Messages: []provider.Message{provider.UserText("hi", 1)}})
	if msg.Usage == nil || msg.Usage.Timings != nil {
		t.Fatalf("usage %+v, want no timings", msg.Usage)
	}
}
