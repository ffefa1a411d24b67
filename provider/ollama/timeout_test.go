package ollama

import (
	"context"
	"testing"
	"time"

	"pi/provider"
	"pi/provider/internal/replay"
)

func TestStreamMisbehaviours(t *testing.T) {
	chunk := func(content string, done bool) string {
		if done {
			return `{"model":"qwen3:1.7b","message":{"role":"assistant","content":""},"done_reason":"stop","done":true}` + "\n"
		}
		return `{"model":"qwen3:1.7b","message":{"role":"assistant","content":"` + content + `"},"done":false}` + "\n"
	}
	c := replay.Chunks{Path: "/api/chat", Others: map[string]string{"/api/show": fixture("show_qwen3.json.http")},
		Empty: chunk("", false), Text: chunk("a", false), End: chunk("", true),
		// NDJSON has no comments; a blank line is what such a server could send to keep alive.
		KeepAlive: "\n\n", KeepAliveSays: "blank lines"}
	replay.CheckMisbehaviours(t, c, testModel(), func(t testing.TB, url string, timeouts provider.StreamTimeouts) provider.Provider {
		p, err := New(Config{BaseURL: url, Timeouts: timeouts}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return p
	})
}

// /api/show goes through the same watch, and its error names the server once.
func TestShowTimeout(t *testing.T) {
	srv := replay.Misbehave(t, replay.Chunks{Path: "/api/show"}, replay.Behaviour{NoHeaders: true})
	p, err := New(Config{BaseURL: srv.URL, Timeouts: provider.StreamTimeouts{FirstByte: replay.FirstByte}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, _, err = p.Describe(context.Background(), "qwen3:1.7b")
	want := `asking Ollama at ` + srv.URL + ` about model "qwen3:1.7b": timed out: ` + srv.URL +
		` sent no response headers within ` + replay.FirstByte.String() + ` (stream.first_byte_timeout)`
	if err == nil || err.Error() != want || time.Since(start) > replay.FirstByte+2*time.Second {
		t.Errorf("after %v: %v, want %s", time.Since(start), err, want)
	}
}
