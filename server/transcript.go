package server

import (
	"encoding/json"
	"strconv"
	"strings"

	"pi/provider"
	"pi/session"
)

// transcript.go turns pi's messages into the protocol's transcript items. An item's id is
// its message's place in the agent's transcript ("m3"), which a streaming reply already
// knows at its start; a tool item is named after its call ("t-" + call id), so the running
// item of progress events and the finished one of snapshots are the same item.

func messageID(i int) string { return "m" + strconv.Itoa(i) }

func toolItemID(callID string) string { return "t-" + callID }

// items converts a transcript. Messages of pi's own roles (custom, bash, summaries) have no
// protocol item and are left out; tool calls are looked up for their results' input.
func items(msgs []provider.Message, seen map[string]bool) []Item {
	out := make([]Item, 0, len(msgs))
	calls := map[string]map[string]any{}
	for i := range msgs {
		m := &msgs[i]
		switch m.Role {
		case provider.RoleUser:
			out = append(out, userItem(messageID(i), m))
		case provider.RoleAssistant:
			for _, c := range m.ToolCalls() {
				calls[c.ID] = c.Arguments
			}
			out = append(out, assistantItem(messageID(i), m))
		case provider.RoleToolResult:
			seen[m.ToolCallID] = true
			out = append(out, toolResultItem(m, calls[m.ToolCallID]))
		}
	}
	return out
}

// userItem is a user message as the user wrote it: without the date-and-folder block pi
// opens a conversation with, which is for the model.
func userItem(id string, m *provider.Message) Item {
	content := contentOf(m.Content, false)
	kept := content[:0]
	for _, c := range content {
		if c.Type == "text" && strings.HasPrefix(*c.Text, "<context>") {
			t := session.WithoutContextBlock(*c.Text)
			if c.Text = &t; t == "" {
				continue
			}
		}
		kept = append(kept, c)
	}
	return Item{ID: id, Role: "user", Content: kept, Timestamp: nonNegative(m.Timestamp)}
}

func assistantItem(id string, m *provider.Message) Item {
	it := Item{ID: id, Role: "assistant", Content: contentOf(m.Content, true), Timestamp: nonNegative(m.Timestamp),
		Model: &ModelRef{Provider: orUnknown(m.Provider), ID: orUnknown(m.Model)}, Usage: usageOf(m.Usage)}
	switch m.StopReason {
	case provider.StopError:
		it.Status, it.StopReason, it.ErrorMessage = "error", "error", m.ErrorMessage
	case provider.StopAborted:
		it.Status, it.StopReason, it.ErrorMessage = "aborted", "aborted", m.ErrorMessage
	case provider.StopLength, provider.StopToolUse:
		it.Status, it.StopReason = "complete", string(m.StopReason)
	default:
		it.Status, it.StopReason = "complete", "stop"
	}
	return it
}

// streamingItem is a reply still arriving: its content so far, no stop reason.
func streamingItem(id string, m *provider.Message, content []Content) Item {
	return Item{ID: id, Role: "assistant", Content: content, Timestamp: nonNegative(m.Timestamp),
		Model: &ModelRef{Provider: orUnknown(m.Provider), ID: orUnknown(m.Model)}, Status: "streaming"}
}

func toolResultItem(m *provider.Message, args map[string]any) Item {
	it := toolItem(m.ToolCallID, m.ToolName, args, m.Timestamp)
	it.Content = contentOf(m.Content, false)
	if len(m.Details) > 0 && json.Valid(m.Details) {
		it.Details = m.Details
	}
	finishTool(&it, m.IsError)
	return it
}

// toolItem is a tool call that is running.
func toolItem(callID, name string, args map[string]any, ts int64) Item {
	f := false
	return Item{ID: toolItemID(callID), Role: "tool", ToolCallID: orUnknown(callID), ToolName: orUnknown(name),
		Input: jsonValue(args), Content: []Content{}, Timestamp: nonNegative(ts), Status: "running", IsError: &f}
}

func finishTool(it *Item, isError bool) {
	it.Status, it.IsError = "complete", &isError
	if isError {
		it.Status = "error"
	}
}

// contentOf converts blocks; assistant content may hold thinking and tool calls, the others
// text and images.
func contentOf(blocks []provider.Block, assistant bool) []Content {
	out := make([]Content, 0, len(blocks))
	for _, b := range blocks {
		if c, ok := contentPart(b, assistant); ok {
			out = append(out, c)
		}
	}
	return out
}

func contentPart(b provider.Block, assistant bool) (Content, bool) {
	switch {
	case b.Type == provider.BlockText:
		return Content{Type: "text", Text: &b.Text}, true
	case b.Type == provider.BlockImage && !assistant:
		return Content{Type: "image", Data: &b.Data, MimeType: orUnknown(b.MimeType)}, true
	case b.Type == provider.BlockThinking && assistant:
		return Content{Type: "thinking", Thinking: &b.Thinking, Redacted: b.Redacted}, true
	case b.Type == provider.BlockToolCall && assistant:
		return Content{Type: "toolCall", ToolCallID: orUnknown(b.ID), ToolName: orUnknown(b.Name),
			Input: jsonValue(b.Arguments)}, true
	}
	return Content{}, false
}

func usageOf(u *provider.Usage) *Usage {
	if u == nil {
		return nil
	}
	return &Usage{Input: max(u.Input, 0), Output: max(u.Output, 0), CacheRead: max(u.CacheRead, 0),
		CacheWrite: max(u.CacheWrite, 0), TotalTokens: max(u.TotalTokens, 0),
		Cost: UsageCost{Input: max(u.Cost.Input, 0), Output: max(u.Cost.Output, 0), CacheRead: max(u.Cost.CacheRead, 0),
			CacheWrite: max(u.Cost.CacheWrite, 0), Total: max(u.Cost.Total, 0)}}
}

// jsonValue is args as a JSON value; a call without arguments has an empty object.
func jsonValue(args map[string]any) json.RawMessage {
	if args == nil {
		return json.RawMessage("{}")
	}
	b, err := json.Marshal(args)
	if err != nil {
		return json.RawMessage("{}")
	}
	return b
}

func nonNegative(ts int64) int64 { return max(ts, 0) }

// orUnknown keeps ids non-empty, as the protocol wants them.
func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}
