package anthropic

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"pi/provider"
	"pi/provider/internal/wire"
	"pi/provider/textcalls"
)

type event struct {
	Type    string `json:"type"`
	Index   int    `json:"index"`
	Message *struct {
		ID    string `json:"id"`
		Usage usage  `json:"usage"`
	} `json:"message"`
	ContentBlock *struct {
		Type     string `json:"type"`
		Text     string `json:"text"`
		Thinking string `json:"thinking"`
		Data     string `json:"data"`
		ID       string `json:"id"`
		Name     string `json:"name"`
	} `json:"content_block"`
	Delta *struct {
		Type        string `json:"type"`
		Text        string `json:"text"`
		Thinking    string `json:"thinking"`
		Signature   string `json:"signature"`
		PartialJSON string `json:"partial_json"`
		StopReason  string `json:"stop_reason"`
	} `json:"delta"`
	Usage *usage `json:"usage"`
}

// usage fields are pointers because message_delta repeats only some of them.
type usage struct {
	InputTokens              *int `json:"input_tokens"`
	OutputTokens             *int `json:"output_tokens"`
	CacheCreationInputTokens *int `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     *int `json:"cache_read_input_tokens"`
}

type streamState struct {
	b    *provider.Builder
	stop provider.StopReason
	text *textcalls.Stream // text goes through it, so calls written as text are recovered
}

func (s *streamState) read(sr *wire.SSEReader) error {
	for {
		ev, err := sr.Next()
		if errors.Is(err, io.EOF) {
			return errors.New("stream ended without message_stop")
		}
		if err != nil {
			return err
		}
		done, err := s.event(ev)
		if err != nil || done {
			return err
		}
	}
}

// event applies one event and reports whether it ended the message.
func (s *streamState) event(raw wire.Event) (bool, error) {
	var ev event
	if err := json.Unmarshal([]byte(raw.Data), &ev); err != nil {
		return false, fmt.Errorf("malformed event from server (%w): %.200s", err, raw.Data)
	}
	msg := s.b.Message()
	switch ev.Type {
	case "message_start":
		if ev.Message != nil {
			msg.ResponseID = ev.Message.ID
			s.usage(&ev.Message.Usage)
		}
	case "content_block_start":
		s.blockStart(&ev)
	case "content_block_delta":
		s.blockDelta(&ev)
	case "content_block_stop":
		s.b.CloseBlock()
	case "message_delta":
		if ev.Usage != nil {
			s.usage(ev.Usage)
		}
		if ev.Delta != nil {
			return false, s.stopReason(ev.Delta.StopReason)
		}
	case "message_stop":
		return true, nil
	case "error":
		return false, errors.New(wire.ErrorText([]byte(raw.Data)))
	}
	// ping and event types added later are ignored.
	return false, nil
}

func (s *streamState) blockStart(ev *event) {
	cb := ev.ContentBlock
	if cb == nil {
		return
	}
	switch cb.Type {
	case "text":
		if cb.Text != "" {
			s.text.Text(cb.Text)
		}
	case "thinking":
		if cb.Thinking != "" {
			s.b.ThinkingDelta(cb.Thinking)
		}
	case "redacted_thinking":
		// The reasoning is encrypted; pi keeps the data as the signature to send it back.
		s.b.SetThinkingSignature(cb.Data)
		blk := &s.b.Message().Content[len(s.b.Message().Content)-1]
		blk.Redacted, blk.Thinking = true, "[Reasoning redacted]"
	case "tool_use":
		s.text.Flush()
		s.b.ToolCallStart(cb.ID, cb.Name)
	}
}

func (s *streamState) blockDelta(ev *event) {
	d := ev.Delta
	if d == nil {
		return
	}
	switch d.Type {
	case "text_delta":
		s.text.Text(d.Text)
	case "thinking_delta":
		s.b.ThinkingDelta(d.Thinking)
	case "signature_delta":
		s.b.SetThinkingSignature(d.Signature)
	case "input_json_delta":
		if d.PartialJSON != "" {
			s.b.ToolCallDelta(d.PartialJSON)
		}
	}
}

func (s *streamState) stopReason(reason string) error {
	switch reason {
	case "max_tokens", "model_context_window_exceeded":
		s.stop = provider.StopLength
	case "refusal":
		return errors.New("the model refused to continue (stop_reason refusal)")
	}
	// end_turn, stop_sequence, tool_use, pause_turn: the builder reports toolUse when there
	// are tool calls.
	return nil
}

func (s *streamState) usage(u *usage) {
	dst := s.b.Message().Usage
	set := func(dst *int, v *int) {
		if v != nil {
			*dst = *v
		}
	}
	set(&dst.Input, u.InputTokens)
	set(&dst.Output, u.OutputTokens)
	set(&dst.CacheRead, u.CacheReadInputTokens)
	set(&dst.CacheWrite, u.CacheCreationInputTokens)
}
