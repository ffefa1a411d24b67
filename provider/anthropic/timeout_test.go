package anthropic

import (
	"testing"

	"pi/provider"
	"pi/provider/internal/replay"
)

func TestStreamMisbehaviours(t *testing.T) {
	c := replay.Chunks{Path: "/v1/messages",
		Empty: "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"usage\":{\"input_tokens\":3}}}\n\n",
		Text:  "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"a\"}}\n\n",
		End: "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":4}}\n\n" +
			"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n",
		KeepAlive: ": ping\n\n", KeepAliveSays: "keep-alive comments"}
	replay.CheckMisbehaviours(t, c, testModel(), func(t testing.TB, url string, timeouts provider.StreamTimeouts) provider.Provider {
		return New(Config{BaseURL: url, APIKey: "sk-ant-test-key", Timeouts: timeouts})
	})
}
