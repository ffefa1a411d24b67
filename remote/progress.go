package remote

import (
	"encoding/json"

	"pi/provider"
	"pi/server"
	"pi/session"
)

// progress applies one progress event to the screen.
func (v *view) progress(p *server.Progress) {
	switch p.Type {
	case "item_started":
		if p.Item != nil {
			v.itemStarted(*p.Item)
		}
	case "item_updated":
		if p.Item != nil && p.Item.Role == "assistant" {
			m := p.Item.Message()
			v.setPartial(&m)
			v.ui.UpdateAssistant(&m)
		}
	case "assistant_delta":
		v.delta(p)
	case "item_finished":
		if p.Item == nil {
			return
		}
		switch p.Item.Role {
		case "assistant":
			m := p.Item.Message()
			v.setPartial(nil)
			v.ui.EndAssistant(&m)
		case "tool":
			v.toolFinished(*p.Item)
		}
	}
}

func (v *view) itemStarted(item server.Item) {
	switch item.Role {
	case "user":
		v.ui.AddUserMessage(userText(item))
	case "assistant":
		m := item.Message()
		v.setPartial(&m)
		v.ui.StartAssistant()
	case "tool":
		v.toolStarted(item)
	}
}

func (v *view) setPartial(m *provider.Message) {
	v.mu.Lock()
	v.partial = m
	v.mu.Unlock()
}

// delta extends the reply being streamed; one out of range, or with none streaming, is
// dropped.
func (v *view) delta(p *server.Progress) {
	v.mu.Lock()
	defer v.mu.Unlock()
	m := v.partial
	if m == nil || p.ContentIndex == nil || p.Delta == nil || *p.ContentIndex < 0 || *p.ContentIndex >= len(m.Content) {
		return
	}
	b := &m.Content[*p.ContentIndex]
	switch p.Kind {
	case "text":
		b.Text += *p.Delta
	case "thinking":
		b.Thinking += *p.Delta
	default:
		return
	}
	v.ui.UpdateAssistant(m)
}

func (v *view) toolStarted(item server.Item) {
	call := toolCall(item.ToolCallID, item.ToolName, item.Input)
	v.ui.ToolStart(call.ID, call.Name, call.Arguments)
}

func (v *view) toolFinished(item server.Item) {
	m := item.Message()
	var details any
	if len(item.Details) > 0 {
		details = item.Details
	}
	v.ui.ToolEnd(item.ToolCallID, m.Content, details, item.IsError != nil && *item.IsError)
}

// toolCall is a tool call block; arguments that are not a JSON object are left out.
func toolCall(id, name string, input json.RawMessage) provider.Block {
	b := provider.ToolCall(id, name, nil)
	if len(input) > 0 {
		_ = json.Unmarshal(input, &b.Arguments) // the screen shows what it can of the call
	}
	return b
}

// userText is a user item as the local terminal UI shows it: pictures as markers, without the
// context block that opens a conversation.
func userText(item server.Item) string {
	m := item.Message()
	return session.ShownUserText(&m)
}
