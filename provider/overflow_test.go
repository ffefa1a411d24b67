package provider

import "testing"

func errorMessage(text string) *Message {
	return &Message{Role: RoleAssistant, StopReason: StopError, ErrorMessage: text}
}

// The texts below are what the servers send, as the adapters report them (status first).
func TestIsContextOverflow(t *testing.T) {
	tests := []struct {
		who, text string
		want      bool
	}{
		{"ollama runner", "400 Bad Request: the input length exceeds the context length", true},
		{"ollama mid-stream", "the input length exceeds the context length", true},
		{"ollama older", "prompt too long; exceeded max context length by 112 tokens", true},
		{"ollama truncation", "input exceeds maximum context length and cannot be truncated further", true},
		{"llama.cpp", "400 Bad Request: exceed_context_size_error: request (8312 tokens) exceeds the available context size (8192 tokens), try increasing it", true},
		{"llama.cpp older", "the request exceeds the available context size, try increasing it", true},
		{"lm studio", "400 Bad Request: Trying to keep the first 5013 tokens when context the overflows. However, the model is loaded with context length of only 4096 tokens, which is not enough. Try to load the model with a larger context length, or provide a shorter input", true},
		{"lm studio keep", "The number of tokens to keep from the initial prompt is greater than the context length. Try to load the model with a larger context length, or provide a shorter input", true},
		{"openai chat", "400 Bad Request: invalid_request_error: This model's maximum context length is 128000 tokens. However, your messages resulted in 130542 tokens. Please reduce the length of the messages.", true},
		{"openai responses", "Your input exceeds the context window of this model. Please adjust your input and try again.", true},
		{"openai code", "context_length_exceeded", true},
		{"vllm", "This model's maximum context length is 4096 tokens. However, you requested 5120 tokens (4096 in the messages, 1024 in the completion). Please reduce the length of the messages or completion.", true},
		{"vllm v1", "The decoder prompt (length 5000) is longer than the maximum model length of 4096. Make sure that `max_model_len` is no smaller than the number of text tokens.", true},
		{"anthropic", "400 Bad Request: invalid_request_error: prompt is too long: 213462 tokens > 200000 maximum", true},
		{"anthropic max_tokens", "input length and `max_tokens` exceed context limit: 188240 + 21333 > 200000, decrease input length or `max_tokens` and try again", true},
		{"groq", "Please reduce the length of the messages or completion.", true},
		{"bare 413", "413 Request Entity Too Large", true},
		{"rate limit", "429 Too Many Requests: rate_limit_error: Number of request tokens has exceeded your per-minute rate limit", false},
		{"overloaded", "529: overloaded_error: Overloaded", false},
		{"unrelated 400", "400 Bad Request: messages.1.content: Field required", false},
	}
	for _, tt := range tests {
		if got := IsContextOverflow(errorMessage(tt.text)); got != tt.want {
			t.Errorf("%s: IsContextOverflow(%q) = %v, want %v", tt.who, tt.text, got, tt.want)
		}
	}
}

// TestCompletedReplyIsNeverAnOverflow: a reply that ended normally is an answer even when the
// input it reports is past the window (servers count differently; some truncate silently).
func TestCompletedReplyIsNeverAnOverflow(t *testing.T) {
	for _, reason := range []StopReason{StopStop, StopToolUse, StopLength} {
		msg := &Message{Role: RoleAssistant, StopReason: reason, Usage: &Usage{Input: 900000, CacheRead: 5000}}
		if IsContextOverflow(msg) {
			t.Errorf("a reply that ended with %q counts as an overflow", reason)
		}
	}
}

func TestIsRetryable(t *testing.T) {
	tests := []struct {
		text string
		want bool
	}{
		{"429 Too Many Requests: rate_limit_error: This request would exceed your rate limit", true},
		{"529: overloaded_error: Overloaded", true},
		{"overloaded_error: Overloaded", true},
		{"500 Internal Server Error: api_error: Internal server error", true},
		{"502 Bad Gateway", true},
		{"503 Service Unavailable: server busy, please try again. maximum pending requests exceeded", true},
		{"504 Gateway Timeout", true},
		{"connection error (POST http://127.0.0.1:11434/api/chat): dial tcp 127.0.0.1:11434: connect: connection refused", true},
		{"reading stream: read tcp 127.0.0.1:50000->127.0.0.1:11434: read: connection reset by peer", true},
		{"connection error (POST http://x/v1/messages): net/http: timeout awaiting response headers", true},
		{"reading event stream: unexpected EOF", true},
		{"timed out: http://127.0.0.1:11434 sent no response headers within 300s (stream.first_byte_timeout)", true},
		{"timed out: http://127.0.0.1:1234/v1 went silent for 120s after 812 bytes (stream.idle_timeout)", true},
		{"timed out: https://api.anthropic.com sent only keep-alive comments for 120s after 90 bytes (stream.idle_timeout)", true},
		{"stream overran: http://127.0.0.1:8080/v1 sent 65.0 MiB without ending the reply, more than 16384 output tokens can take (the output budget)", true},
		{"400 Bad Request: the input length exceeds the context length", false},
		{"400 Bad Request: invalid_request_error: prompt is too long: 213462 tokens > 200000 maximum", false},
		{"401 Unauthorized: authentication_error: invalid x-api-key", false},
		{"404 Not Found: model \"qwen3:8b\" not found, try pulling it first", false},
	}
	for _, tt := range tests {
		if got := IsRetryable(errorMessage(tt.text)); got != tt.want {
			t.Errorf("IsRetryable(%q) = %v, want %v", tt.text, got, tt.want)
		}
	}
	if IsRetryable(&Message{StopReason: StopAborted, ErrorMessage: "timeout"}) {
		t.Error("an aborted reply is never retried")
	}
}
