package rpcwire

import (
	"encoding/json"

	"pi/provider"
)

// Event is the part of one of pi's event lines a client acts on beyond the agent's own
// events: the queues, a tool's partial output, a retry, a later answer to a command.
type Event struct {
	Type          string         `json:"type"`
	ID            string         `json:"id,omitempty"` // extension_ui_request, a later response
	ToolCallID    string         `json:"toolCallId,omitempty"`
	Steering      []string       `json:"steering,omitempty"` // queue_update
	FollowUp      []string       `json:"followUp,omitempty"` // queue_update
	PartialResult *PartialResult `json:"partialResult,omitempty"`
	Attempt       int            `json:"attempt,omitempty"` // auto_retry_start
	MaxAttempts   int            `json:"maxAttempts,omitempty"`
	DelayMs       int64          `json:"delayMs,omitempty"`
	ErrorMessage  string         `json:"errorMessage,omitempty"`
	Success       bool           `json:"success,omitempty"` // response
	Error         string         `json:"error,omitempty"`
}

// PartialResult is tool_execution_update's output so far.
type PartialResult struct {
	Content []provider.Block `json:"content"`
}

// UIRequest is an extension_ui_request: a question (confirm, select, input, editor) to
// answer with a UIResponse, or a request that expects none (notify, setStatus, setWidget,
// setTitle, set_editor_text). Timeout is in milliseconds; zero waits for the user.
type UIRequest struct {
	Type            string   `json:"type"`
	ID              string   `json:"id"`
	Method          string   `json:"method"`
	Title           string   `json:"title,omitempty"`
	Message         string   `json:"message,omitempty"`
	Options         []string `json:"options,omitempty"`
	Placeholder     string   `json:"placeholder,omitempty"`
	Prefill         string   `json:"prefill,omitempty"`
	Timeout         float64  `json:"timeout,omitempty"`
	NotifyType      string   `json:"notifyType,omitempty"`
	StatusKey       string   `json:"statusKey,omitempty"`
	StatusText      string   `json:"statusText,omitempty"`
	WidgetKey       string   `json:"widgetKey,omitempty"`
	WidgetLines     []string `json:"widgetLines,omitempty"`
	WidgetPlacement string   `json:"widgetPlacement,omitempty"`
	Text            string   `json:"text,omitempty"` // set_editor_text
}

// Fields are the request's fields by pi's names, as a screen that applies fire-and-forget
// requests by name takes them; a missing text or lines stays missing (it clears the slot).
func (r *UIRequest) Fields() map[string]any {
	f := map[string]any{"title": r.Title, "statusKey": r.StatusKey, "widgetKey": r.WidgetKey,
		"widgetPlacement": r.WidgetPlacement}
	if r.StatusText != "" {
		f["statusText"] = r.StatusText
	}
	if r.WidgetLines != nil {
		f["widgetLines"] = r.WidgetLines
	}
	if r.Text != "" {
		f["text"] = r.Text
	}
	return f
}

// UIResponse is the extension_ui_response answering a question: confirmed for confirm, value
// for the others, or cancelled.
type UIResponse struct {
	Type      string  `json:"type"` // always "extension_ui_response"
	ID        string  `json:"id"`
	Confirmed *bool   `json:"confirmed,omitempty"`
	Value     *string `json:"value,omitempty"`
	Cancelled bool    `json:"cancelled,omitempty"`
}

// DecodeEvent reads one event line; it is an error when the line is not a JSON object.
func DecodeEvent(line []byte) (Event, error) {
	var ev Event
	err := json.Unmarshal(line, &ev)
	return ev, err
}

// QueueUpdate is the queue_update line: both queues' texts, always both lists.
type QueueUpdate struct {
	Type     string   `json:"type"` // always "queue_update"
	Steering []string `json:"steering"`
	FollowUp []string `json:"followUp"`
}
