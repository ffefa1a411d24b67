package openai

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"pi/provider"
	"pi/provider/internal/wire"
	"pi/provider/textcalls"
)

type chunk struct {
	ID      string `json:"id"`
	Choices []struct {
		Delta struct {
			Content          looseText       `json:"content"`
			ReasoningContent looseText       `json:"reasoning_content"` // llama.cpp, vLLM, DeepSeek
			Reasoning        looseText       `json:"reasoning"`         // OpenRouter, Ollama, LM Studio
			ToolCalls        []toolCallDelta `json:"tool_calls"`
		} `json:"delta"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens        int `json:"prompt_tokens"`
		CompletionTokens    int `json:"completion_tokens"`
		PromptTokensDetails *struct {
			CachedTokens int `json:"cached_tokens"`
		} `json:"prompt_tokens_details"`
	} `json:"usage"`
	Timings *llamaTimings   `json:"timings"` // llama.cpp's server adds them to the last chunk
	Error   json.RawMessage `json:"error"`
}

// llamaTimings is llama.cpp's account of a reply: prompt tokens evaluated (prompt_n) and taken
// from its cache (cache_n), tokens written, and the milliseconds each took.
type llamaTimings struct {
	PromptN     int     `json:"prompt_n"`
	PromptMs    float64 `json:"prompt_ms"`
	PredictedN  int     `json:"predicted_n"`
	PredictedMs float64 `json:"predicted_ms"`
	CacheN      int     `json:"cache_n"`
}

func (t *llamaTimings) timings() *provider.Timings {
	ms := func(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }
	return &provider.Timings{PromptTokens: t.PromptN + t.CacheN, PromptTime: ms(t.PromptMs),
		OutputTokens: t.PredictedN, OutputTime: ms(t.PredictedMs), Cached: t.CacheN}
}

type toolCallDelta struct {
	Index    *int   `json:"index"`
	ID       string `json:"id"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// looseText is a string field that some servers fill with null or, for reasoning, with an
// object; anything but a string reads as empty rather than failing the whole chunk.
type looseText string

func (t *looseText) UnmarshalJSON(data []byte) error {
	var s string
	if json.Unmarshal(data, &s) == nil {
		*t = looseText(s)
	}
	return nil
}

// toolCall is one call being assembled from fragments.
type toolCall struct {
	id, name string
	raw      []byte
	block    int  // index in the message content
	late     bool // fragments arrived after the builder had moved on
}

type streamState struct {
	b       *provider.Builder
	text    *textcalls.Stream // text goes through it, so calls written as text are recovered
	stop    provider.StopReason
	calls   []*toolCall
	byIndex map[int]*toolCall
	current *toolCall // the call whose block the builder has open
	done    bool      // [DONE] or a finish reason was seen
}

func (s *streamState) read(sr *wire.SSEReader) error {
	s.stop = provider.StopStop
	for {
		ev, err := sr.Next()
		if errors.Is(err, io.EOF) {
			if !s.done {
				return errors.New("stream ended without a finish reason")
			}
			return nil
		}
		if err != nil {
			return err
		}
		if ev.Data == "[DONE]" {
			return nil
		}
		if err := s.chunk([]byte(ev.Data)); err != nil {
			return err
		}
	}
}

func (s *streamState) chunk(data []byte) error {
	var c chunk
	if err := json.Unmarshal(data, &c); err != nil {
		return fmt.Errorf("malformed chunk from server (%w): %.200s", err, data)
	}
	if len(c.Error) > 0 && string(c.Error) != "null" {
		return errors.New(wire.ErrorText(data))
	}
	msg := s.b.Message()
	if c.ID != "" {
		msg.ResponseID = c.ID
	}
	for _, ch := range c.Choices {
		if t := string(ch.Delta.ReasoningContent) + string(ch.Delta.Reasoning); t != "" {
			s.current = nil // the builder closes an open tool call
			s.b.ThinkingDelta(t)
		}
		if ch.Delta.Content != "" {
			s.current = nil
			s.text.Text(string(ch.Delta.Content))
		}
		for _, tc := range ch.Delta.ToolCalls {
			s.text.Flush()
			s.toolCall(tc)
		}
		if err := s.finish(ch.FinishReason); err != nil {
			return err
		}
	}
	if u := c.Usage; u != nil {
		cached := 0
		if u.PromptTokensDetails != nil {
			cached = u.PromptTokensDetails.CachedTokens
		}
		msg.Usage.Input, msg.Usage.CacheRead, msg.Usage.Output = u.PromptTokens-cached, cached, u.CompletionTokens
	}
	if t := c.Timings; t != nil && (t.PromptMs > 0 || t.PredictedMs > 0) {
		msg.Usage.Timings = t.timings()
	}
	return nil
}

func (s *streamState) finish(reason string) error {
	switch reason {
	case "":
		return nil
	case "length":
		s.stop = provider.StopLength
	case "content_filter":
		return errors.New("the server's content filter stopped the reply")
	}
	// "stop", "tool_calls", "function_call", "eos": the builder reports toolUse when there
	// are calls, whatever the server said.
	s.done = true
	return nil
}

// toolCall routes one fragment to its call: by index when the server sends one, else to the
// current call unless the fragment carries a new id.
func (s *streamState) toolCall(tc toolCallDelta) {
	var c *toolCall
	switch {
	case tc.Index != nil:
		c = s.byIndex[*tc.Index]
	case s.current != nil && (tc.ID == "" || tc.ID == s.current.id):
		c = s.current
	}
	if c == nil {
		c = &toolCall{id: tc.ID, name: tc.Function.Name}
		if c.id == "" {
			c.id = fmt.Sprintf("call_%d", len(s.calls))
		}
		if tc.Index != nil {
			if s.byIndex == nil {
				s.byIndex = map[int]*toolCall{}
			}
			s.byIndex[*tc.Index] = c
		}
		s.calls = append(s.calls, c)
		s.b.ToolCallStart(c.id, c.name)
		c.block = len(s.b.Message().Content) - 1
		s.current = c
	} else if c != s.current {
		c.late = true
	}
	if tc.Function.Name != "" && c.name == "" {
		c.name = tc.Function.Name
		s.b.Message().Content[c.block].Name = c.name
		c.late = true // the toolcall_start event went out without the name
	}
	if a := tc.Function.Arguments; a != "" {
		c.raw = append(c.raw, a...)
		if c == s.current {
			s.b.ToolCallDelta(a)
		}
	}
}

// finishToolCalls settles the calls whose fragments came out of order: the builder parsed
// what it had when it closed their blocks, so parse again from everything received.
func (s *streamState) finishToolCalls() {
	s.b.CloseBlock()
	for _, c := range s.calls {
		if !c.late {
			continue
		}
		blk := &s.b.Message().Content[c.block]
		args, err := provider.ParseArguments(string(c.raw))
		blk.Arguments, blk.RawArguments = args, ""
		if err != nil {
			blk.RawArguments = string(c.raw)
		}
	}
}
