package main

import (
	"encoding/json"
	"fmt"
	"sync"

	"pi/provider"
	"pi/session"
	"pi/tools"
)

// Agent event types, named as pi names them so JSON and RPC clients understand them.
const (
	EvAgentStart          = "agent_start"
	EvAgentEnd            = "agent_end"
	EvTurnStart           = "turn_start"
	EvTurnEnd             = "turn_end"
	EvMessageStart        = "message_start"
	EvMessageUpdate       = "message_update"
	EvMessageEnd          = "message_end"
	EvToolExecutionStart  = "tool_execution_start"
	EvToolExecutionUpdate = "tool_execution_update"
	EvToolExecutionEnd    = "tool_execution_end"
	EvAutoRetryStart      = "auto_retry_start"
	EvAutoRetryEnd        = "auto_retry_end"
	EvCompactionStart     = "compaction_start"
	EvCompactionEnd       = "compaction_end"
)

// AgentEvent is one thing that happened in a run. Which fields are set depends on Type.
//
// Message of a message_start or message_update for an assistant reply points at the reply
// being streamed, which keeps changing: a subscriber that keeps it must Clone it.
type AgentEvent struct {
	Type string

	Message        *provider.Message  // message_*, turn_end
	AssistantEvent *provider.Event    // message_update
	ToolResults    []provider.Message // turn_end
	Messages       []provider.Message // agent_end

	ToolCallID string         // tool_execution_*
	ToolName   string         // tool_execution_*
	Args       map[string]any // tool_execution_start, _update
	Result     *tools.Result  // tool_execution_update (partial), _end
	IsError    bool           // tool_execution_end

	Retry      *RetryInfo      // auto_retry_*
	Compaction *CompactionInfo // compaction_*
}

// CompactionInfo describes a compaction for compaction_start and compaction_end.
type CompactionInfo struct {
	Reason    string // manual, threshold, overflow
	Result    *session.Result
	Aborted   bool
	WillRetry bool
	Error     string
}

func (c *CompactionInfo) fields(end bool) fields {
	f := fields{{"reason", c.Reason}}
	if !end {
		return f
	}
	if r := c.Result; r != nil {
		f = append(f, field{"result", fields{{"summary", r.Summary}, {"firstKeptEntryId", r.FirstKeptEntryID},
			{"tokensBefore", r.TokensBefore}, {"tokensAfter", r.TokensAfter}}})
	}
	f = append(f, field{"aborted", c.Aborted}, field{"willRetry", c.WillRetry})
	if c.Error != "" {
		f = append(f, field{"errorMessage", c.Error})
	}
	return f
}

// RetryInfo describes an automatic retry after a transient provider error.
type RetryInfo struct {
	Attempt     int    `json:"attempt"`
	MaxAttempts int    `json:"maxAttempts,omitempty"`
	DelayMs     int64  `json:"delayMs,omitempty"`
	Error       string `json:"errorMessage,omitempty"`
	Success     bool   `json:"success"`
}

// toolResultJSON is pi's AgentToolResult shape.
type toolResultJSON struct {
	Content   []provider.Block `json:"content"`
	Details   any              `json:"details,omitempty"`
	Terminate bool             `json:"terminate,omitempty"`
}

func resultJSON(r *tools.Result) *toolResultJSON {
	if r == nil {
		return nil
	}
	content := r.Content
	if content == nil {
		content = []provider.Block{}
	}
	return &toolResultJSON{Content: content, Details: r.Details, Terminate: r.Terminate}
}

// MarshalJSON writes the event as pi's JSON mode and RPC mode do, "type" first.
func (e AgentEvent) MarshalJSON() ([]byte, error) {
	f := fields{{"type", e.Type}}
	switch e.Type {
	case EvAgentEnd:
		f = append(f, field{"messages", nonNilMessages(e.Messages)})
	case EvTurnEnd:
		f = append(f, field{"message", e.Message}, field{"toolResults", nonNilMessages(e.ToolResults)})
	case EvMessageStart, EvMessageEnd:
		f = append(f, field{"message", e.Message})
	case EvMessageUpdate:
		f = append(f, field{"message", e.Message}, field{"assistantMessageEvent", e.AssistantEvent})
	case EvToolExecutionStart:
		f = append(f, field{"toolCallId", e.ToolCallID}, field{"toolName", e.ToolName}, field{"args", nonNilArgs(e.Args)})
	case EvToolExecutionUpdate:
		f = append(f, field{"toolCallId", e.ToolCallID}, field{"toolName", e.ToolName}, field{"args", nonNilArgs(e.Args)},
			field{"partialResult", resultJSON(e.Result)})
	case EvToolExecutionEnd:
		f = append(f, field{"toolCallId", e.ToolCallID}, field{"toolName", e.ToolName},
			field{"result", resultJSON(e.Result)}, field{"isError", e.IsError})
	case EvCompactionStart, EvCompactionEnd:
		if e.Compaction != nil {
			f = append(f, e.Compaction.fields(e.Type == EvCompactionEnd)...)
		}
	case EvAutoRetryStart, EvAutoRetryEnd:
		if r := e.Retry; r != nil {
			f = append(f, field{"attempt", r.Attempt})
			if e.Type == EvAutoRetryStart {
				f = append(f, field{"maxAttempts", r.MaxAttempts}, field{"delayMs", r.DelayMs}, field{"errorMessage", r.Error})
			} else {
				f = append(f, field{"success", r.Success})
				if r.Error != "" {
					f = append(f, field{"finalError", r.Error})
				}
			}
		}
	}
	return f.MarshalJSON()
}

// fields is a JSON object whose keys keep their order.
type fields []field

type field struct {
	key   string
	value any
}

func (f fields) MarshalJSON() ([]byte, error) {
	buf := []byte{'{'}
	for i, kv := range f {
		if i > 0 {
			buf = append(buf, ',')
		}
		key, _ := json.Marshal(kv.key) // strings always marshal
		val, err := json.Marshal(kv.value)
		if err != nil {
			return nil, fmt.Errorf("event field %q: %w", kv.key, err)
		}
		buf = append(append(append(buf, key...), ':'), val...)
	}
	return append(buf, '}'), nil
}

func nonNilMessages(m []provider.Message) []provider.Message {
	if m == nil {
		return []provider.Message{}
	}
	return m
}

func nonNilArgs(a map[string]any) map[string]any {
	if a == nil {
		return map[string]any{}
	}
	return a
}

// queueWatch turns the agent's queues into queue_update lines, only when they changed since the
// last line (and not for queues that were always empty). RPC and JSON mode share it.
type queueWatch struct {
	mu   sync.Mutex
	last string
}

func (q *queueWatch) update(ag *Agent) ([]byte, bool) {
	steer, follow := ag.QueuedMessages()
	line, err := fields{{"type", "queue_update"}, {"steering", messageTexts(steer)},
		{"followUp", messageTexts(follow)}}.MarshalJSON()
	if err != nil {
		return nil, false
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	changed := string(line) != q.last && (q.last != "" || len(steer)+len(follow) > 0)
	q.last = string(line)
	return line, changed
}

func messageTexts(msgs []provider.Message) []string {
	out := make([]string, len(msgs))
	for i := range msgs {
		out[i] = msgs[i].TextContent()
	}
	return out
}
