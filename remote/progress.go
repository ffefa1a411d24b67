package remote

import (
	"encoding/json"

	"pi/provider"
	"pi/session"
)

// progress applies one progress event to the screen.
func (v *view) progress(p map[string]any) {
	item, _ := p["item"].(map[string]any)
	switch str(p["type"]) {
	case "item_started":
		switch str(item["role"]) {
		case "user":
			v.ui.AddUserMessage(userText(item))
		case "assistant":
			m := messageOf(item)
			v.mu.Lock()
			v.partial = &m
			v.mu.Unlock()
			v.ui.StartAssistant()
		case "tool":
			v.toolStarted(item)
		}
	case "item_updated":
		if str(item["role"]) == "assistant" {
			m := messageOf(item)
			v.mu.Lock()
			v.partial = &m
			v.mu.Unlock()
			v.ui.UpdateAssistant(&m)
		}
	case "assistant_delta":
		v.delta(p)
	case "item_finished":
		switch str(item["role"]) {
		case "assistant":
			m := messageOf(item)
			v.mu.Lock()
			v.partial = nil
			v.mu.Unlock()
			v.ui.EndAssistant(&m)
		case "tool":
			v.toolFinished(item)
		}
	}
}

func (v *view) delta(p map[string]any) {
	v.mu.Lock()
	defer v.mu.Unlock()
	m := v.partial
	i, _ := p["contentIndex"].(int64)
	if m == nil || int(i) >= len(m.Content) {
		return
	}
	b := &m.Content[i]
	switch str(p["kind"]) {
	case "text":
		b.Text += str(p["delta"])
	case "thinking":
		b.Thinking += str(p["delta"])
	default:
		return
	}
	v.ui.UpdateAssistant(m)
}

func (v *view) toolStarted(item map[string]any) {
	args, _ := item["input"].(map[string]any)
	v.ui.ToolStart(str(item["toolCallId"]), str(item["toolName"]), args)
}

func (v *view) toolFinished(item map[string]any) {
	m := messageOf(item)
	isError, _ := item["isError"].(bool)
	v.ui.ToolEnd(str(item["toolCallId"]), m.Content, item["details"], isError)
}

// messageOf turns a transcript item into a pi message for the screen.
func messageOf(item map[string]any) provider.Message {
	m := provider.Message{Role: provider.Role(str(item["role"])), StopReason: provider.StopReason(str(item["stopReason"])),
		ErrorMessage: str(item["errorMessage"])}
	parts, _ := item["content"].([]any)
	for _, p := range parts {
		part, _ := p.(map[string]any)
		switch str(part["type"]) {
		case "text":
			m.Content = append(m.Content, provider.Text(str(part["text"])))
		case "thinking":
			m.Content = append(m.Content, provider.Thinking(str(part["thinking"])))
		case "image":
			m.Content = append(m.Content, provider.Image(str(part["data"]), str(part["mimeType"])))
		case "toolCall":
			args, _ := part["input"].(map[string]any)
			m.Content = append(m.Content, provider.ToolCall(str(part["toolCallId"]), str(part["toolName"]), args))
		}
	}
	if d, ok := item["details"]; ok {
		m.Details, _ = json.Marshal(d)
	}
	return m
}

func str(v any) string { s, _ := v.(string); return s }

func textOf(item map[string]any) string {
	m := messageOf(item)
	return m.TextContent()
}

// userText is a user item as the local terminal UI shows it: pictures as markers, without the
// context block that opens a conversation.
func userText(item map[string]any) string {
	m := messageOf(item)
	return session.ShownUserText(&m)
}
