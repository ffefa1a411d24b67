package ollamatest

import (
	"context"
	"testing"
	"time"
)

// Figures for docs/figures-ollama.md:
//
//	go test -run '^$' -bench . -benchtime 20x ./internal/ollamatest/

func benchServer(b *testing.B) (*Server, context.Context) {
	b.Helper()
	s := Start(b)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	b.Cleanup(cancel)
	if err := s.CreateModel(ctx, testModel, ReadRoundTrip()); err != nil {
		b.Fatal(err)
	}
	return s, ctx
}

func benchChat(b *testing.B, s *Server, ctx context.Context) {
	b.Helper()
	var out nativeReply
	req := map[string]any{"model": testModel, "stream": false, "tools": nativeTools(),
		"messages": []nativeMessage{{Role: "user", Content: userAsk}}}
	if err := s.PostJSON(ctx, "/api/chat", req, &out); err != nil {
		b.Fatal(err)
	}
	if len(out.Message.ToolCalls) != 1 {
		b.Fatalf("reply %+v", out.Message)
	}
}

// BenchmarkCreateModel measures generating the model and creating it over HTTP.
func BenchmarkCreateModel(b *testing.B) {
	s := Start(b)
	ctx := context.Background()
	for b.Loop() {
		if err := s.CreateModel(ctx, testModel, ReadRoundTrip()); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFirstReply measures a reply that has to load the runner first: the model is unloaded
// (keep_alive 0) before each one.
func BenchmarkFirstReply(b *testing.B) {
	s, ctx := benchServer(b)
	for b.Loop() {
		b.StopTimer()
		unload := map[string]any{"model": testModel, "keep_alive": 0}
		if err := s.PostJSON(ctx, "/api/generate", unload, nil); err != nil {
			b.Fatal(err)
		}
		waitUnloaded(b, s, ctx)
		b.StartTimer()
		benchChat(b, s, ctx)
	}
}

// waitUnloaded polls /api/ps, because the runner stops after the unload request returns.
func waitUnloaded(b *testing.B, s *Server, ctx context.Context) {
	for {
		var ps struct{ Models []any }
		if err := s.GetJSON(ctx, "/api/ps", &ps); err != nil {
			b.Fatal(err)
		}
		if len(ps.Models) == 0 {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// BenchmarkLaterReply measures a reply from a loaded runner: the tool-call turn.
func BenchmarkLaterReply(b *testing.B) {
	s, ctx := benchServer(b)
	benchChat(b, s, ctx) // load the runner
	for b.Loop() {
		benchChat(b, s, ctx)
	}
}
