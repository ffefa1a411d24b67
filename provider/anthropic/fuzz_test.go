package anthropic

import (
	"bytes"
	"testing"

	"pi/provider"
	"pi/provider/internal/replay"
	"pi/provider/internal/wire"
	"pi/provider/textcalls"
)

// FuzzStream feeds arbitrary bodies to the event parser: whatever arrives, the events keep
// their shape and the reply ends exactly once.
func FuzzStream(f *testing.F) {
	replay.SeedBodies(f, fixtures+"/*.sse")
	f.Fuzz(func(t *testing.T, body []byte) {
		var evs []provider.Event
		m := testModel()
		b := provider.NewBuilder(&m, func(e provider.Event) { evs = append(evs, e) })
		b.Start()
		s := &streamState{b: b, stop: provider.StopStop, text: textcalls.New(b, &provider.Request{})}
		if err := s.read(wire.NewSSEReader(bytes.NewReader(body))); err != nil {
			b.Fail(provider.StopError, err.Error())
		} else {
			b.Done(s.stop)
		}
		if err := replay.CheckEvents(evs); err != nil {
			t.Fatal(err)
		}
	})
}
