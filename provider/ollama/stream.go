package ollama

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/ollama/ollama/api"

	"pi/provider"
	"pi/provider/internal/wire"
	"pi/provider/textcalls"
)

type streamState struct {
	b     *provider.Builder
	text  *textcalls.Stream // text goes through it, so calls written as text are recovered
	stop  provider.StopReason
	calls int
}

func (s *streamState) read(r *wire.NDJSONReader) error {
	s.stop = provider.StopStop
	for {
		line, err := r.Next()
		if errors.Is(err, io.EOF) {
			return errors.New("stream ended without a final chunk")
		}
		if err != nil {
			return err
		}
		done, err := s.chunk(line)
		if err != nil || done {
			return err
		}
	}
}

// chunk applies one line and reports whether it was the last.
func (s *streamState) chunk(line []byte) (bool, error) {
	var failure struct {
		Error string `json:"error"`
	}
	if err := json.Unmarshal(line, &failure); err != nil {
		return false, fmt.Errorf("malformed chunk from server (%w): %.200s", err, line)
	}
	if failure.Error != "" {
		return false, errors.New(failure.Error)
	}
	var c api.ChatResponse
	if err := json.Unmarshal(line, &c); err != nil {
		return false, fmt.Errorf("malformed chunk from server (%w): %.200s", err, line)
	}
	if c.Message.Thinking != "" {
		s.b.ThinkingDelta(c.Message.Thinking)
	}
	if c.Message.Content != "" {
		s.text.Text(c.Message.Content)
	}
	// Ollama sends each call whole, possibly one per chunk, and done_reason stays "stop".
	for _, tc := range c.Message.ToolCalls {
		s.text.Flush()
		id := tc.ID
		if id == "" {
			id = fmt.Sprintf("call_%d", s.calls)
		}
		s.calls++
		s.b.ToolCall(id, tc.Function.Name, tc.Function.Arguments.ToMap())
	}
	if !c.Done {
		return false, nil
	}
	u := s.b.Message().Usage
	u.Input, u.Output = c.PromptEvalCount, c.EvalCount
	if c.PromptEvalDuration > 0 || c.EvalDuration > 0 {
		u.Timings = &provider.Timings{PromptTokens: c.PromptEvalCount, PromptTime: c.PromptEvalDuration,
			OutputTokens: c.EvalCount, OutputTime: c.EvalDuration}
	}
	if c.DoneReason == "length" {
		s.stop = provider.StopLength
	}
	return true, nil
}
