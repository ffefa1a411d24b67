package openai

import (
	"bytes"
	"testing"

	"pi/provider"
	"pi/provider/internal/replay"
	"pi/provider/internal/wire"
	"pi/provider/textcalls"
)

// FuzzStream feeds arbitrary bodies to the chunk parser: whatever arrives, the events keep
// their shape and the reply ends exactly once.
func FuzzStream(f *testing.F) {
	replay.SeedBodies(f, fixtures+"/*.sse")
	f.Fuzz(func(t *testing.T, body []byte) {
		var evs []provider.Event
		m := testModel()
		b := provider.NewBuilder(&m, func(e provider.Event) { evs = append(evs, e) })
		b.Start()
		s := &streamState{b: b, text: textcalls.New(b, &provider.Request{})}
		if err := s.read(wire.NewSSEReader(bytes.NewReader(body))); err != nil {
			b.Fail(provider.StopError, err.Error())
		} else {
			s.finishToolCalls()
			b.Done(s.stop)
		}
		if err := replay.CheckEvents(evs); err != nil {
			t.Fatal(err)
		}
	})
}

// BenchmarkStream measures parsing a 1,000-chunk text reply (about 100 KB of SSE).
func BenchmarkStream(b *testing.B) {
	var body bytes.Buffer
	for i := 0; i < 1000; i++ {
		body.WriteString(`data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"word "},"finish_reason":null}]}` + "\n\n")
	}
	body.WriteString("data: [DONE]\n\n")
	m := testModel()
	b.SetBytes(int64(body.Len()))
	b.ReportAllocs()
	for b.Loop() {
		bd := provider.NewBuilder(&m, func(provider.Event) {})
		s := &streamState{b: bd, text: textcalls.New(bd, &provider.Request{})}
		if err := s.read(wire.NewSSEReader(bytes.NewReader(body.Bytes()))); err != nil {
			b.Fatal(err)
		}
	}
}
