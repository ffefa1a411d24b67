package main

import (
	"encoding/json"

	"pi/provider"
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

	Retry *RetryInfo // auto_retry_*
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

// MarshalJSON writes the event as pi's JSON mode and RPC mode do.
func (e AgentEvent) MarshalJSON() ([]byte, error) {
	out := map[string]any{"type": e.Type}
	switch e.Type {
	case EvAgentEnd:
		out["messages"] = nonNilMessages(e.Messages)
	case EvTurnEnd:
		out["message"] = e.Message
		out["toolResults"] = nonNilMessages(e.ToolResults)
	case EvMessageStart, EvMessageEnd:
		out["message"] = e.Message
	case EvMessageUpdate:
		out["message"] = e.Message
		out["assistantMessageEvent"] = e.AssistantEvent
	case EvToolExecutionStart:
		out["toolCallId"], out["toolName"], out["args"] = e.ToolCallID, e.ToolName, nonNilArgs(e.Args)
	case EvToolExecutionUpdate:
		out["toolCallId"], out["toolName"], out["args"] = e.ToolCallID, e.ToolName, nonNilArgs(e.Args)
		out["partialResult"] = resultJSON(e.Result)
	case EvToolExecutionEnd:
		out["toolCallId"], out["toolName"] = e.ToolCallID, e.ToolName
		out["result"], out["isError"] = resultJSON(e.Result), e.IsError
	case EvAutoRetryStart, EvAutoRetryEnd:
		if e.Retry != nil {
			data, err := json.Marshal(e.Retry)
			if err != nil {
				return nil, err
			}
			if err := json.Unmarshal(data, &out); err != nil {
				return nil, err
			}
			if e.Type == EvAutoRetryStart {
				delete(out, "success")
			}
		}
	}
	return json.Marshal(out)
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
