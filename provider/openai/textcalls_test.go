package openai

import (
	"bytes"
	"encoding/json"
	"testing"

	"pi/provider"
	"pi/provider/internal/replay"
	"pi/provider/internal/wire"
	"pi/provider/textcalls"
)

// TestTextCallShapes streams every shape's samples as OpenAI-compatible SSE in 1-byte, 7-byte
// and whole chunks: each becomes its calls, and no markup reaches the events.
func TestTextCallShapes(t *testing.T) {
	replay.TextCallShapes(t, func(req *provider.Request, chunks []string) (provider.Message, string) {
		var body bytes.Buffer
		for _, c := range chunks {
			line, _ := json.Marshal(map[string]any{"choices": []any{map[string]any{"index": 0, "delta": map[string]any{"content": c}}}})
			body.WriteString("data: " + string(line) + "\n\n")
		}
		body.WriteString(`data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}` + "\n\ndata: [DONE]\n\n")
		var shown bytes.Buffer
		m := testModel()
		b := provider.NewBuilder(&m, func(e provider.Event) {
			if e.Type == provider.EventTextDelta {
				shown.WriteString(e.Delta)
			}
		})
		b.Start()
		s := &streamState{b: b, text: textcalls.New(b, req)}
		if err := s.read(wire.NewSSEReader(&body)); err != nil {
			t.Fatal(err)
		}
		s.finishToolCalls()
		s.text.Finish()
		return b.Done(s.stop), shown.String()
	})
}
