package anthropic

import (
	"encoding/json"

	"pi/provider"
)

type request struct {
	Model       string    `json:"model"`
	MaxTokens   int       `json:"max_tokens"`
	System      []block   `json:"system,omitempty"`
	Messages    []message `json:"messages"`
	Tools       []tool    `json:"tools,omitempty"`
	Thinking    *thinking `json:"thinking,omitempty"`
	Temperature *float64  `json:"temperature,omitempty"`
	Stream      bool      `json:"stream"`
}

type thinking struct {
	Type         string `json:"type"`
	BudgetTokens int    `json:"budget_tokens"`
}

type message struct {
	Role    string  `json:"role"`
	Content []block `json:"content"`
}

// block is any content block; the type decides which fields are set.
type block struct {
	Type         string          `json:"type"`
	Text         *string         `json:"text,omitempty"`
	Thinking     *string         `json:"thinking,omitempty"`
	Signature    string          `json:"signature,omitempty"`
	Data         string          `json:"data,omitempty"` // redacted_thinking
	Source       *imageSource    `json:"source,omitempty"`
	ID           string          `json:"id,omitempty"`
	Name         string          `json:"name,omitempty"`
	Input        json.RawMessage `json:"input,omitempty"`
	ToolUseID    string          `json:"tool_use_id,omitempty"`
	Content      []block         `json:"content,omitempty"`
	IsError      bool            `json:"is_error,omitempty"`
	CacheControl *cacheControl   `json:"cache_control,omitempty"`
}

type imageSource struct {
	Type      string `json:"type"`
	MediaType string `json:"media_type"`
	Data      string `json:"data"`
}

type cacheControl struct {
	Type string `json:"type"`
}

type tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"input_schema"`
}

// budget is the thinking budget for a level, pi's defaults; xhigh doubles high, and max is the
// highest pi gives, xhigh's. 0 means off.
func budget(level string) int {
	switch level {
	case "minimal":
		return 1024
	case "low":
		return 2048
	case "medium":
		return 8192
	case "high":
		return 16384
	case "xhigh", "max":
		return 32768
	}
	return 0
}

// defaultMaxTokens is used when neither the call nor the model names a limit (the API requires
// one); answerTokens is what is left for the answer when a thinking budget has to fit too.
const (
	defaultMaxTokens = 16384
	answerTokens     = 8192
)

func buildRequest(req *provider.Request) *request {
	r := &request{Model: req.Model.ID, Stream: true, Temperature: req.Options.Temperature}
	r.MaxTokens = req.Options.MaxTokens
	if r.MaxTokens == 0 {
		r.MaxTokens = req.Model.MaxTokens
	}
	if r.MaxTokens == 0 {
		r.MaxTokens = defaultMaxTokens
	}
	if budget := budget(req.Options.Thinking); budget > 0 && req.Model.Reasoning {
		r.Thinking = &thinking{Type: "enabled", BudgetTokens: budget}
		if r.MaxTokens <= budget {
			r.MaxTokens = budget + answerTokens // the budget counts against max_tokens
		}
		r.Temperature = nil // the API accepts no temperature with thinking
	}
	if req.SystemPrompt != "" {
		r.System = []block{{Type: "text", Text: &req.SystemPrompt, CacheControl: ephemeral()}}
	}
	r.Messages = convertMessages(provider.ReplayMessages(req.Messages))
	if n := len(r.Messages); n > 0 {
		last := r.Messages[n-1].Content
		last[len(last)-1].CacheControl = ephemeral()
	}
	for _, t := range req.Tools {
		schema := t.Parameters
		if len(schema) == 0 {
			schema = json.RawMessage(`{"type":"object","properties":{}}`)
		}
		r.Tools = append(r.Tools, tool{Name: t.Name, Description: t.Description, InputSchema: schema})
	}
	return r
}

// ephemeral returns a fresh breakpoint: the request is built anew each turn, so only the
// system prompt and the newest message ever carry one.
func ephemeral() *cacheControl { return &cacheControl{Type: "ephemeral"} }

// convertMessages maps pi's messages onto user/assistant turns. Consecutive tool results
// share one user turn, as the API requires all results of a reply in the next message.
func convertMessages(msgs []provider.Message) []message {
	var out []message
	for i := range msgs {
		m := &msgs[i]
		switch m.Role {
		case provider.RoleUser:
			if content := contentBlocks(m.Content); len(content) > 0 {
				out = append(out, message{Role: "user", Content: content})
			}
		case provider.RoleAssistant:
			if content := assistantBlocks(m.Content); len(content) > 0 {
				out = append(out, message{Role: "assistant", Content: content})
			}
		case provider.RoleToolResult:
			res := block{Type: "tool_result", ToolUseID: m.ToolCallID, Content: contentBlocks(m.Content), IsError: m.IsError}
			if n := len(out); n > 0 && out[n-1].Role == "user" && out[n-1].Content[0].Type == "tool_result" {
				out[n-1].Content = append(out[n-1].Content, res)
			} else {
				out = append(out, message{Role: "user", Content: []block{res}})
			}
		}
	}
	return out
}

// contentBlocks converts text and image blocks; empty text is dropped since the API rejects it.
func contentBlocks(blocks []provider.Block) []block {
	var out []block
	for _, b := range blocks {
		switch b.Type {
		case provider.BlockText:
			if b.Text != "" {
				out = append(out, block{Type: "text", Text: &b.Text})
			}
		case provider.BlockImage:
			out = append(out, block{Type: "image", Source: &imageSource{Type: "base64", MediaType: b.MimeType, Data: b.Data}})
		}
	}
	return out
}

// assistantBlocks sends thinking back only with its signature, which the API checks; thinking
// from another model has none and is left out.
func assistantBlocks(blocks []provider.Block) []block {
	var out []block
	for _, b := range blocks {
		switch {
		case b.Type == provider.BlockText && b.Text != "":
			out = append(out, block{Type: "text", Text: &b.Text})
		case b.Type == provider.BlockThinking && b.Redacted && b.ThinkingSignature != "":
			out = append(out, block{Type: "redacted_thinking", Data: b.ThinkingSignature})
		case b.Type == provider.BlockThinking && b.ThinkingSignature != "":
			out = append(out, block{Type: "thinking", Thinking: &b.Thinking, Signature: b.ThinkingSignature})
		case b.Type == provider.BlockToolCall:
			args := b.Arguments
			if args == nil {
				args = map[string]any{}
			}
			input, _ := json.Marshal(args) // decoded JSON always encodes; keys sort
			out = append(out, block{Type: "tool_use", ID: b.ID, Name: b.Name, Input: input})
		}
	}
	return out
}
