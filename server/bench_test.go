package server

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"pi/internal/cbor"
	"pi/internal/cputime"
	"pi/provider"
	"pi/provider/faux"
)

// history is a session of n entries: user prompts and replies of a few hundred characters.
func history(n int) []provider.Message {
	out := make([]provider.Message, n)
	for i := range out {
		text := fmt.Sprintf("entry %d: %s", i, strings.Repeat("some words of a conversation ", 10))
		if i%2 == 0 {
			out[i] = provider.UserText(text, 1_700_000_000_000)
		} else {
			out[i] = provider.Message{Role: provider.RoleAssistant, Content: []provider.Block{provider.Text(text)},
				Provider: "faux", Model: "faux-1", StopReason: provider.StopStop, Timestamp: 1_700_000_000_000,
				Usage: &provider.Usage{Input: 100, Output: 50, TotalTokens: 150}}
		}
	}
	return out
}

// BenchmarkAttachToFirstSnapshot is the time from sending attach to having its snapshot of a
// live session with 1,000 entries, decoded (go test -run - -bench AttachToFirstSnapshot ./server).
func BenchmarkAttachToFirstSnapshot(b *testing.B) {
	k := startServer(b, slowReply("x", 0), nil)
	k.history = history(1000)
	keeper := k.dial()
	id := snapshotOf(request(b, keeper, map[string]any{"command": "create"}))["id"].(string)
	c := k.dial()
	go func() {
		for range c.Events() {
		}
	}()
	b.ResetTimer()
	for b.Loop() {
		snap := snapshotOf(request(b, c, map[string]any{"command": "attach", "sessionId": id}))
		if n := len(snap["transcript"].([]any)); n != 1000 {
			b.Fatalf("%d items", n)
		}
		b.StopTimer()
		request(b, c, map[string]any{"command": "detach", "sessionId": id})
		b.StartTimer()
	}
}

// BenchmarkStreamedChunk is this process's CPU time per streamed chunk of a reply with 1 and
// with 20 clients attached (they only read and discard the bytes): the agent, the model
// stand-in, progress encoding and fan-out (go test -run - -bench StreamedChunk ./server).
func BenchmarkStreamedChunk(b *testing.B) {
	for _, clients := range []int{1, 20} {
		b.Run(fmt.Sprintf("clients=%d", clients), func(b *testing.B) {
			const chunks = 2000
			k := startServer(b, func() provider.Provider {
				p := faux.New()
				for range 1000 {
					p.Append(faux.Text(strings.Repeat("abcd", chunks)))
				}
				p.ChunkRunes = 4
				return p
			}, nil)
			owner := k.dial()
			id := snapshotOf(request(b, owner, map[string]any{"command": "create"}))["id"].(string)
			var readers sync.WaitGroup
			for range clients {
				nc := rawHello(b, k.socket)
				writeRequest(b, nc, "a", map[string]any{"command": "attach", "sessionId": id})
				readers.Add(1)
				go func() { defer readers.Done(); io.Copy(io.Discard, nc) }()
			}
			drain(owner)
			go func() {
				for range owner.Events() {
				}
			}()
			b.ResetTimer()
			start := cputime.Used()
			n := 0
			for b.Loop() {
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				if _, err := owner.Request(ctx, map[string]any{"command": "prompt", "sessionId": id, "text": "go"}); err != nil {
					b.Fatal(err)
				}
				cancel()
				n += chunks
			}
			b.ReportMetric(float64(cputime.Used()-start)/float64(n), "cpu-ns/chunk")
		})
	}
}

// BenchmarkReadEvent is the time a typed client takes to read one decoded event: a
// streamed delta and a snapshot of a 1,000-entry session
// (go test -run - -bench ReadEvent -benchmem ./server).
func BenchmarkReadEvent(b *testing.B) {
	idx, delta := 0, "some words"
	snap := &SessionSnapshot{ID: "s", Phase: "turn", Transcript: items(history(1000), map[string]bool{}), QueuedSteer: []Item{}}
	for _, tc := range []struct {
		name string
		ev   *Event
	}{
		{"delta", &Event{Type: "session_progress", SessionID: "s", Progress: &Progress{Type: "assistant_delta",
			MessageID: "m", ContentIndex: &idx, Kind: "text", Delta: &delta}}},
		{"snapshot1000", &Event{Type: "session_snapshot", Snapshot: snap}},
	} {
		frame, err := cbor.Marshal(tc.ev)
		if err != nil {
			b.Fatal(err)
		}
		v, err := cbor.Decode(frame, cbor.Limits{})
		if err != nil {
			b.Fatal(err)
		}
		m := v.(map[string]any)
		b.Run(tc.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := ReadEvent(m); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
