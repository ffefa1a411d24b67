package openai

import (
	"testing"

	"pi/provider"
	"pi/provider/internal/replay"
)

func TestStreamMisbehaviours(t *testing.T) {
	c := replay.Chunks{Path: "/v1/chat/completions",
		Empty:     `data: {"id":"c1","choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}` + "\n\n",
		Text:      `data: {"id":"c1","choices":[{"index":0,"delta":{"content":"a"}}]}` + "\n\n",
		End:       `data: {"id":"c1","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}` + "\n\ndata: [DONE]\n\n",
		KeepAlive: ": ping\n\n", KeepAliveSays: "keep-alive comments"}
	replay.CheckMisbehaviours(t, c, testModel(), func(t testing.TB, url string, timeouts provider.StreamTimeouts) provider.Provider {
		return New(Config{BaseURL: url + "/v1", Timeouts: timeouts})
	})
}
