package server

import (
	"encoding/json"

	"pi/provider"
)

// bridgemessages.go turns a snapshot's transcript into pi's messages: for the RPC bridge's
// get_messages (the items that have ended, as RPC mode would list them) and pi attach's screen.

// finishedMessages is the snapshot's transcript without the items still streaming or running.
func finishedMessages(snap *SessionSnapshot) []provider.Message {
	out := make([]provider.Message, 0, len(snap.Transcript))
	for i := range snap.Transcript {
		if it := &snap.Transcript[i]; it.Status != "streaming" && it.Status != "running" {
			out = append(out, it.Message())
		}
	}
	return out
}

// Message is the transcript item as a pi message: a tool item is its result, an assistant
// item without a stop reason stopped normally. The RPC bridge and pi attach's screen read
// the server's transcript through it.
func (it *Item) Message() provider.Message {
	m := provider.Message{Role: provider.Role(it.Role), Content: []provider.Block{}, Timestamp: it.Timestamp}
	for _, part := range it.Content {
		m.Content = append(m.Content, blockOf(part))
	}
	switch it.Role {
	case "assistant":
		if it.Model != nil {
			m.Provider, m.Model = it.Model.Provider, it.Model.ID
		}
		m.StopReason = provider.StopReason(it.StopReason)
		if m.StopReason == "" {
			m.StopReason = "stop"
		}
		m.ErrorMessage = it.ErrorMessage
		m.Usage = providerUsage(it.Usage)
	case "tool":
		m.Role = provider.RoleToolResult
		m.ToolCallID, m.ToolName, m.Details = it.ToolCallID, it.ToolName, it.Details
		m.IsError = it.IsError != nil && *it.IsError
	}
	return m
}

func blockOf(c Content) provider.Block {
	switch c.Type {
	case "thinking":
		return provider.Thinking(deref(c.Thinking))
	case "image":
		return provider.Image(deref(c.Data), c.MimeType)
	case "toolCall":
		b := provider.ToolCall(c.ToolCallID, c.ToolName, nil)
		if len(c.Input) > 0 && json.Unmarshal(c.Input, &b.Arguments) != nil {
			b.RawArguments = string(c.Input) // kept as the model wrote it
		}
		return b
	}
	return provider.Text(deref(c.Text))
}

func providerUsage(u *Usage) *provider.Usage {
	if u == nil {
		return nil
	}
	return &provider.Usage{Input: u.Input, Output: u.Output, CacheRead: u.CacheRead, CacheWrite: u.CacheWrite,
		TotalTokens: u.TotalTokens, Cost: provider.Cost(u.Cost)}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
