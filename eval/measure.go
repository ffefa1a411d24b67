package eval

// Measurements of a run from its transcript: turns, tool calls and errors, tokens.

import (
	"encoding/json"

	"pi/provider"
	"pi/provider/anthropic"
	"pi/provider/ollama"
	"pi/provider/openai"
	"pi/provider/textcalls"
)

// measure counts turns, tool calls (and those recovered from text) and errors, and tokens over the run's messages.
func measure(res *runResult, msgs []provider.Message, api string) {
	var replies []provider.Message
	for _, m := range msgs {
		switch m.Role {
		case provider.RoleAssistant:
			replies = append(replies, m)
			res.Turns++
			res.ToolCalls += len(m.ToolCalls())
			res.TextCalls += textcalls.Recovered(&m)
			for _, f := range textcalls.Formats(&m) {
				if res.TextFormats == nil {
					res.TextFormats = map[string]int{}
				}
				res.TextFormats[f]++
			}
			if m.Usage != nil {
				res.TokensIn += m.Usage.Input + m.Usage.CacheRead + m.Usage.CacheWrite
				res.TokensOut += m.Usage.Output
				res.CacheRead += m.Usage.CacheRead
			}
		case provider.RoleToolResult:
			if m.IsError {
				res.ToolErrors++
			}
			if tried, fixed := argumentRetry(&m); tried {
				res.ArgRetries++
				if fixed {
					res.ArgRetriesFixed++
				}
			}
		}
	}
	res.Reprocessed, res.ReprocessedSource = reprocessed(api, replies)
}

// argumentRetry reads a tool result's details: whether the call's arguments were asked for
// again with the reply constrained to the schema, and whether the tool then ran.
func argumentRetry(m *provider.Message) (tried, fixed bool) {
	if len(m.Details) == 0 {
		return false, false
	}
	var d struct {
		Retry *struct {
			Fixed bool `json:"fixed"`
		} `json:"argumentRetry"`
	}
	if json.Unmarshal(m.Details, &d) != nil || d.Retry == nil {
		return false, false
	}
	return true, d.Retry.Fixed
}

// reprocessed is how many prompt tokens the server evaluated instead of reading its cache.
//
//   - anthropic: reported; input tokens (the uncached part) plus cache writes.
//   - openai: reported only when the server names cached tokens in any reply (OpenAI, vLLM and
//     others do; many local servers do not, and then it is n/a): prompt minus cached.
//   - ollama: prompt_eval_count is the whole prompt, cached or not, so it is estimated as the
//     growth of each prompt over the previous request's prompt and output — what a server that
//     keeps the unchanged prefix in cache must evaluate. The first request counts whole. It is a
//     lower bound: a template that rewrites earlier turns (e.g. drops old thinking) costs more.
func reprocessed(api string, replies []provider.Message) (*int, string) {
	switch api {
	case anthropic.API:
		n := 0
		for _, m := range replies {
			if m.Usage != nil {
				n += m.Usage.Input + m.Usage.CacheWrite
			}
		}
		return &n, "reported"
	case openai.API:
		n, cached := 0, false
		for _, m := range replies {
			if m.Usage != nil {
				n += m.Usage.Input + m.Usage.CacheWrite
				cached = cached || m.Usage.CacheRead > 0
			}
		}
		if !cached {
			return nil, "n/a"
		}
		return &n, "reported"
	case ollama.API:
		return ollamaGrowth(replies), "estimated"
	}
	return nil, "n/a"
}

func ollamaGrowth(replies []provider.Message) *int {
	n, prevEnd := 0, 0
	for _, m := range replies {
		if m.Usage == nil || m.Usage.Input == 0 {
			continue // a failed request reports nothing
		}
		n += max(0, m.Usage.Input-prevEnd)
		prevEnd = m.Usage.Input + m.Usage.Output
	}
	return &n
}
