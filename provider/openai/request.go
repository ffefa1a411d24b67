package openai

import (
	"encoding/json"
	"strings"

	"pi/provider"
)

type chatRequest struct {
	Model               string          `json:"model"`
	Messages            []chatMessage   `json:"messages"`
	Tools               []chatTool      `json:"tools,omitempty"`
	Stream              bool            `json:"stream"`
	StreamOptions       *streamOptions  `json:"stream_options,omitempty"`
	MaxTokens           int             `json:"max_tokens,omitempty"`
	MaxCompletionTokens int             `json:"max_completion_tokens,omitempty"`
	Temperature         *float64        `json:"temperature,omitempty"`
	ReasoningEffort     string          `json:"reasoning_effort,omitempty"`
	ToolChoice          string          `json:"tool_choice,omitempty"`
	ResponseFormat      *responseFormat `json:"response_format,omitempty"`
}

// responseFormat constrains the whole reply to a JSON Schema (a retry of a call's arguments).
type responseFormat struct {
	Type       string      `json:"type"` // "json_schema"
	JSONSchema *jsonSchema `json:"json_schema"`
}

type jsonSchema struct {
	Name   string          `json:"name"`
	Schema json.RawMessage `json:"schema"`
	Strict bool            `json:"strict"`
}

type streamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

type chatMessage struct {
	Role string `json:"role"`
	// Content is a string, a list of parts, or nil (an assistant turn of only tool calls).
	Content    any            `json:"content"`
	ToolCalls  []chatToolCall `json:"tool_calls,omitempty"`
	ToolCallID string         `json:"tool_call_id,omitempty"`
}

type chatPart struct {
	Type     string    `json:"type"`
	Text     string    `json:"text,omitempty"`
	ImageURL *imageURL `json:"image_url,omitempty"`
}

type imageURL struct {
	URL string `json:"url"`
}

type chatToolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Function chatFunction `json:"function"`
}

type chatFunction struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

type chatTool struct {
	Type     string      `json:"type"`
	Function toolFuction `json:"function"`
}

type toolFuction struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
	Strict      bool            `json:"strict,omitempty"`
}

// emptySchema stands in for a tool without parameters: servers reject a missing schema.
const emptySchema = `{"type":"object","properties":{}}`

func (p *Provider) buildRequest(req *provider.Request) *chatRequest {
	r := &chatRequest{Model: req.Model.ID, Stream: true, StreamOptions: &streamOptions{IncludeUsage: true},
		Temperature: req.Options.Temperature}
	if req.SystemPrompt != "" {
		r.Messages = append(r.Messages, chatMessage{Role: "system", Content: req.SystemPrompt})
	}
	r.Messages = append(r.Messages, convertMessages(provider.ReplayMessages(req.Messages), req.Model.AcceptsImages())...)
	strict := p.strictTools(&req.Model)
	for _, t := range req.Tools {
		params := t.Parameters
		if len(params) == 0 {
			params = json.RawMessage(emptySchema)
		}
		fn := toolFuction{Name: t.Name, Description: t.Description, Parameters: params}
		if strict && !t.NoConstrainedSampling {
			if s, ok := strictSchema(params); ok {
				fn.Parameters, fn.Strict = s, true
			}
		}
		r.Tools = append(r.Tools, chatTool{Type: "function", Function: fn})
	}
	maxTokens := req.Options.MaxTokens
	if maxTokens == 0 {
		maxTokens = req.Model.MaxTokens
	}
	// OpenAI itself refuses max_tokens for its reasoning models; every other server knows only
	// max_tokens.
	if strings.Contains(p.cfg.BaseURL, "api.openai.com") {
		r.MaxCompletionTokens = maxTokens
	} else {
		r.MaxTokens = maxTokens
	}
	if req.Model.Reasoning {
		r.ReasoningEffort = reasoningEffort(req.Options.Thinking)
	}
	if len(req.ReplySchema) > 0 {
		// The tools stay, so the prompt renders as before and the server's cache holds; a call
		// is ruled out, since servers refuse a schema for the reply beside one for calls.
		r.ResponseFormat = &responseFormat{Type: "json_schema", JSONSchema: &jsonSchema{Name: "arguments", Schema: req.ReplySchema}}
		if len(r.Tools) > 0 {
			r.ToolChoice = "none"
		}
	}
	return r
}

// reasoningEffort maps pi's thinking levels onto the three efforts servers accept.
func reasoningEffort(level string) string {
	switch level {
	case "minimal", "low":
		return "low"
	case "medium":
		return "medium"
	case "high", "xhigh", "max":
		return "high"
	}
	return ""
}

// convertMessages turns pi's messages into chat messages. Thinking is not sent back: servers
// do not accept it, and chat templates drop earlier reasoning anyway. Images in tool results
// follow as one user message after the results, since tool messages carry text only.
func convertMessages(msgs []provider.Message, images bool) []chatMessage {
	var out []chatMessage
	var pendingImages []chatPart
	flushImages := func() {
		if len(pendingImages) > 0 {
			parts := append([]chatPart{{Type: "text", Text: "Images from the tool results above:"}}, pendingImages...)
			out = append(out, chatMessage{Role: "user", Content: parts})
			pendingImages = nil
		}
	}
	for _, m := range msgs {
		if m.Role != provider.RoleToolResult {
			flushImages()
		}
		switch m.Role {
		case provider.RoleUser:
			out = append(out, chatMessage{Role: "user", Content: userContent(m.Content, images)})
		case provider.RoleAssistant:
			out = append(out, assistantMessage(&m))
		case provider.RoleToolResult:
			text, imgs := toolResultContent(m.Content, images)
			out = append(out, chatMessage{Role: "tool", ToolCallID: m.ToolCallID, Content: text})
			pendingImages = append(pendingImages, imgs...)
		}
	}
	flushImages()
	return out
}

func userContent(blocks []provider.Block, images bool) any {
	if len(blocks) == 1 && blocks[0].Type == provider.BlockText {
		return blocks[0].Text
	}
	parts := make([]chatPart, 0, len(blocks))
	for _, b := range blocks {
		switch b.Type {
		case provider.BlockText:
			parts = append(parts, chatPart{Type: "text", Text: b.Text})
		case provider.BlockImage:
			parts = append(parts, imagePart(b, images))
		}
	}
	return parts
}

func imagePart(b provider.Block, images bool) chatPart {
	if !images {
		return chatPart{Type: "text", Text: "(image omitted: this model does not take images)"}
	}
	return chatPart{Type: "image_url", ImageURL: &imageURL{URL: "data:" + b.MimeType + ";base64," + b.Data}}
}

func assistantMessage(m *provider.Message) chatMessage {
	out := chatMessage{Role: "assistant"}
	var text strings.Builder
	for _, b := range m.Content {
		switch b.Type {
		case provider.BlockText:
			text.WriteString(b.Text)
		case provider.BlockToolCall:
			args, _ := json.Marshal(nonNil(b.Arguments)) // decoded JSON always encodes; map keys sort
			out.ToolCalls = append(out.ToolCalls, chatToolCall{ID: b.ID, Type: "function",
				Function: chatFunction{Name: b.Name, Arguments: string(args)}})
		}
	}
	if text.Len() > 0 || len(out.ToolCalls) == 0 {
		out.Content = text.String()
	}
	return out
}

func toolResultContent(blocks []provider.Block, images bool) (string, []chatPart) {
	var text strings.Builder
	var imgs []chatPart
	for _, b := range blocks {
		switch b.Type {
		case provider.BlockText:
			if text.Len() > 0 {
				text.WriteByte('\n')
			}
			text.WriteString(b.Text)
		case provider.BlockImage:
			if images {
				imgs = append(imgs, imagePart(b, true))
			} else {
				text.WriteString("\n(image omitted: this model does not take images)")
			}
		}
	}
	return text.String(), imgs
}

func nonNil(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}
