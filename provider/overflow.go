package provider

import "regexp"

// overflowPattern matches the words servers use when a prompt does not fit the model's context.
// Each alternative names who says it; the tests hold their full texts.
const overflowPattern = `(?i)` +
	`prompt is too long` + // Anthropic: "prompt is too long: 213462 tokens > 200000 maximum"
	`|exceed context limit` + // Anthropic: "input length and `max_tokens` exceed context limit: …"
	`|exceeds the context window` + // OpenAI
	`|maximum context length is \d+ tokens` + // OpenAI chat, vLLM, OpenRouter
	`|context[_ ]length[_ ]exceeded` + // OpenAI's error code
	`|reduce the length of the messages` + // Groq
	`|exceeds the available context size` + // llama.cpp server
	`|greater than the context length` + // LM Studio
	`|when context the overflows|model is loaded with context length of only` + // LM Studio
	`|exceeded max context length` + // Ollama: "prompt too long; exceeded max context length by 4 tokens"
	`|input length exceeds the context length` + // Ollama runner, with truncate off
	`|exceeds maximum context length` + // Ollama: "input exceeds maximum context length …"
	`|longer than the maximum model length` + // vLLM: "The decoder prompt (length …) is longer than …"
	`|input token count.*exceeds the maximum` + // Google
	`|maximum prompt length is \d+` + // xAI
	`|input is too long for requested model` + // Bedrock
	`|too many tokens|token limit exceeded` + // generic
	`|^413\b` // a bare "413 Request Entity Too Large" with no body (Cerebras, Mistral)

// IsContextOverflow reports whether msg failed because its prompt did not fit the context
// window, by the servers' error texts. A reply that completed is an answer, whatever input
// it reports: its usage only plans the next turn (the compaction threshold), it never makes
// the reply an overflow. An overflow is never retried as is: the loop compacts first.
func IsContextOverflow(msg *Message) bool {
	// Compiled here, not at package init: only a failed reply needs it.
	return msg != nil && msg.StopReason == StopError && regexp.MustCompile(overflowPattern).MatchString(msg.ErrorMessage)
}
