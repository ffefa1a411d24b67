package ollama

import (
	"bytes"
	"testing"

	"pi/provider"
	"pi/provider/internal/replay"
	"pi/provider/internal/wire"
	"pi/provider/textcalls"
)

// FuzzStream feeds arbitrary bodies to the NDJSON chunk parser: whatever arrives, the events
// keep their shape and the reply ends exactly once.
func FuzzStream(f *testing.F) {
	replay.SeedBodies(f, fixtures+"/*.ndjson")
	f.Fuzz(func(t *testing.T, body []byte) {
		var evs []provider.Event
		m := testModel()
		b := provider.NewBuilder(&m, func(e provider.Event) { evs = append(evs, e) })
		b.Start()
		s := &streamState{b: b, text: textcalls.New(b, &provider.Request{})}
		if err := s.read(wire.NewNDJSONReader(bytes.NewReader(body))); err != nil {
			b.Fail(provider.StopError, err.Error())
		} else {
			b.Done(s.stop)
		}
		if err := replay.CheckEvents(evs); err != nil {
			t.Fatal(err)
		}
	})
}

// BenchmarkStream measures parsing a 1,000-chunk text reply as Ollama streams it.
func BenchmarkStream(b *testing.B) {
	var body bytes.Buffer
	for i := 0; i < 1000; i++ {
		body.WriteString(`{"model":"qwen3:1.7b","created_at":"2026-11-30T09:12:01.101Z","message":{"role":"assistant","content":"word "},"done":false}` + "\n")
	}
	body.WriteString(`{"model":"qwen3:1.7b","message":{"role":"assistant","content":""},"done_reason":"stop","done":true,"prompt_eval_count":10,"eval_count":1000}` + "\n")
	m := testModel()
	b.SetBytes(int64(body.Len()))
	b.ReportAllocs()
	for b.Loop() {
		bd := provider.NewBuilder(&m, func(provider.Event) {})
		s := &streamState{b: bd, text: textcalls.New(bd, &provider.Request{})}
		if err := s.read(wire.NewNDJSONReader(bytes.NewReader(body.Bytes()))); err != nil {
			b.Fatal(err)
		}
	}
}
