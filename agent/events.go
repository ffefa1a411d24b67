package agent

import (
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
	EvCompactionStart     = "compaction_start"
	EvCompactionEnd       = "compaction_end"
	// EvSubagent carries one event of a child session (a subagent) to the parent's
	// subscribers: {"type":"subagent_event","agentId":"agent-1","event":{...}}.
	EvSubagent = "subagent_event"
)

// Event is one thing that happened in a run. Which fields are set depends on Type.
//
// Message of a message_start or message_update for an assistant reply points at the reply
// being streamed, which keeps changing: a subscriber that keeps it must Clone it.
type Event struct {
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

	AgentID string // subagent_event: the child's id in its parent's session
	Sub     *Event // subagent_event: the child's own event

	Detail UpdateDetail // message_update: how much of the partial reply its JSON carries (UpdateGate)
}

// CompactionInfo describes a compaction for compaction_start and compaction_end.
type CompactionInfo struct {
	Reason    string // manual, threshold, overflow
	Result    *CompactionResult
	Aborted   bool
	WillRetry bool
	Error     string
}

// CompactionResult is what a finished compaction reports to subscribers (the session package's
// result, copied here so that the loop does not depend on sessions).
type CompactionResult struct {
	Summary          string
	FirstKeptEntryID string
	TokensBefore     int
	TokensAfter      int
}

// write adds the compaction's fields to an event object; the result and outcome only end it.
func (c *CompactionInfo) write(w *provider.ObjectWriter, end bool) {
	w.Field("reason", c.Reason)
	if !end {
		return
	}
	if r := c.Result; r != nil {
		res := provider.NewObjectWriter()
		res.Field("summary", r.Summary)
		res.Field("firstKeptEntryId", r.FirstKeptEntryID)
		res.Field("tokensBefore", r.TokensBefore)
		res.Field("tokensAfter", r.TokensAfter)
		obj, err := res.Close()
		if err != nil {
			w.Fail(err)
			return
		}
		w.Raw("result", obj)
	}
	w.Field("aborted", c.Aborted)
	w.Field("willRetry", c.WillRetry)
	if c.Error != "" {
		w.Field("errorMessage", c.Error)
	}
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
func (e Event) MarshalJSON() ([]byte, error) {
	w := provider.NewObjectWriter()
	w.Field("type", e.Type)
	switch e.Type {
	case EvAgentEnd:
		w.Field("messages", nonNilMessages(e.Messages))
	case EvTurnEnd:
		w.Field("message", e.Message)
		w.Field("toolResults", nonNilMessages(e.ToolResults))
	case EvMessageStart, EvMessageEnd:
		w.Field("message", e.Message)
	case EvMessageUpdate:
		e.writeUpdate(w)
	case EvToolExecutionStart, EvToolExecutionUpdate, EvToolExecutionEnd:
		e.writeTool(w)
	case EvCompactionStart, EvCompactionEnd:
		if e.Compaction != nil {
			e.Compaction.write(w, e.Type == EvCompactionEnd)
		}
	case EvAutoRetryStart, EvAutoRetryEnd:
		if e.Retry != nil {
			e.Retry.write(w, e.Type == EvAutoRetryStart)
		}
	case EvSubagent:
		w.Field("agentId", e.AgentID)
		w.Field("event", e.Sub)
	}
	return w.Close()
}

// writeUpdate writes message_update's fields as its Detail says: the partial reply in
// message and again in assistantMessageEvent.partial (pi's shape), once, or not at all.
func (e *Event) writeUpdate(w *provider.ObjectWriter) {
	if e.Detail != UpdateDelta {
		w.Field("message", e.Message)
	}
	ae := e.AssistantEvent
	if ae != nil && e.Detail != UpdateFull {
		delta := *ae
		delta.Partial = nil
		ae = &delta
	}
	w.Field("assistantMessageEvent", ae)
}

func (e *Event) writeTool(w *provider.ObjectWriter) {
	w.Field("toolCallId", e.ToolCallID)
	w.Field("toolName", e.ToolName)
	switch e.Type {
	case EvToolExecutionStart:
		w.Field("args", nonNilArgs(e.Args))
	case EvToolExecutionUpdate:
		w.Field("args", nonNilArgs(e.Args))
		w.Field("partialResult", resultJSON(e.Result))
	default:
		w.Field("result", resultJSON(e.Result))
		w.Field("isError", e.IsError)
	}
}

func (r *RetryInfo) write(w *provider.ObjectWriter, start bool) {
	w.Field("attempt", r.Attempt)
	if start {
		w.Field("maxAttempts", r.MaxAttempts)
		w.Field("delayMs", r.DelayMs)
		w.Field("errorMessage", r.Error)
		return
	}
	w.Field("success", r.Success)
	if r.Error != "" {
		w.Field("finalError", r.Error)
	}
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
