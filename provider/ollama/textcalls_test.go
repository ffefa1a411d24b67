package ollama

import (
	"bytes"
	"encoding/json"
	"testing"
	"unicode/utf8"

	"pi/provider"
	"pi/provider/internal/wire"
	"pi/provider/textcalls"
)

// TestTextCallShapes streams every shape's samples as Ollama's NDJSON in 1-byte, 7-byte and
// whole chunks: each becomes its calls, and no markup reaches the events.
func TestTextCallShapes(t *testing.T) {
	samples, notCalls := textcalls.Samples()
	req := &provider.Request{Messages: []provider.Message{provider.UserText("go", 1)}}
	for _, tl := range textcalls.SampleTools {
		req.Tools = append(req.Tools, provider.ToolDef{Name: tl[0], Parameters: json.RawMessage(tl[1])})
	}
	stream := func(reply string, n int) (provider.Message, string) {
		var body bytes.Buffer
		for len(reply) > 0 {
			k := len(reply)
			if n > 0 && n < k {
				k = n
				for k < len(reply) && !utf8.RuneStart(reply[k]) {
					k++ // a JSON string holds whole characters: the server splits between them
				}
			}
			line, _ := json.Marshal(map[string]any{"message": map[string]any{"role": "assistant", "content": reply[:k]}, "done": false})
			body.Write(append(line, '\n'))
			reply = reply[k:]
		}
		body.WriteString(`{"message":{"role":"assistant","content":""},"done":true,"done_reason":"stop"}` + "\n")
		var shown bytes.Buffer
		m := testModel()
		b := provider.NewBuilder(&m, func(e provider.Event) {
			if e.Type == provider.EventTextDelta {
				shown.WriteString(e.Delta)
			}
		})
		b.Start()
		s := &streamState{b: b, text: textcalls.New(b, req)}
		if err := s.read(wire.NewNDJSONReader(&body)); err != nil {
			t.Fatal(err)
		}
		s.text.Finish()
		return b.Done(s.stop), shown.String()
	}
	for _, n := range []int{1, 7, 0} {
		for _, smp := range samples {
			msg, shown := stream(smp.Reply, n)
			if f := textcalls.Formats(&msg); len(f) == 0 || f[0] != smp.Format || shown != smp.Text {
				t.Errorf("%s %q in %d-byte chunks: formats %v, shown %q", smp.Format, smp.Reply, n, f, shown)
			}
		}
		for _, r := range notCalls {
			if msg, shown := stream(r, n); len(msg.ToolCalls()) != 0 || shown != r {
				t.Errorf("%q in %d-byte chunks: calls %+v, shown %q", r, n, msg.ToolCalls(), shown)
			}
		}
	}
}
