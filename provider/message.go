// Package provider owns the message model shared by every part of pi (messages, content blocks,
// usage, stream events), the Provider interface that model adapters implement, and the adapters
// themselves. It serialises messages exactly as the TypeScript pi does, so session files and RPC
// payloads interoperate.
//
// It must not import any other package of this module: everything else builds on it.
package provider

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"
)

// Role names who wrote a message. pi's three LLM roles plus the application roles pi stores in
// sessions (custom, bashExecution, branchSummary, compactionSummary) all fit in Role.
type Role string

const (
	RoleUser       Role = "user"
	RoleAssistant  Role = "assistant"
	RoleToolResult Role = "toolResult"
)

// StopReason says why an assistant reply ended.
type StopReason string

const (
	StopStop    StopReason = "stop"
	StopLength  StopReason = "length"
	StopToolUse StopReason = "toolUse"
	StopError   StopReason = "error"
	StopAborted StopReason = "aborted"
)

// Block types, as pi names them.
const (
	BlockText     = "text"
	BlockThinking = "thinking"
	BlockImage    = "image"
	BlockToolCall = "toolCall"
)

// Block is one content block. Type decides which fields are meaningful; MarshalJSON writes only
// those, in pi's field order.
type Block struct {
	Type string

	Text          string // text
	TextSignature string // text (optional)

	Thinking          string // thinking
	ThinkingSignature string // thinking (optional)
	Redacted          bool   // thinking (optional)

	Data     string // image: base64
	MimeType string // image

	ID               string         // toolCall
	Name             string         // toolCall
	Arguments        map[string]any // toolCall
	ThoughtSignature string         // toolCall (optional)

	// RawArguments keeps the argument text a model streamed when it could not be parsed as JSON,
	// so the loop can echo it in the error it returns. Never serialised.
	RawArguments string
}

// Text returns a text block.
func Text(s string) Block { return Block{Type: BlockText, Text: s} }

// Thinking returns a thinking block.
func Thinking(s string) Block { return Block{Type: BlockThinking, Thinking: s} }

// Image returns an image block with base64 data.
func Image(data, mimeType string) Block {
	return Block{Type: BlockImage, Data: data, MimeType: mimeType}
}

// ToolCall returns a tool-call block.
func ToolCall(id, name string, args map[string]any) Block {
	return Block{Type: BlockToolCall, ID: id, Name: name, Arguments: args}
}

// Usage counts tokens and their cost for one reply.
type Usage struct {
	Input       int  `json:"input"`
	Output      int  `json:"output"`
	CacheRead   int  `json:"cacheRead"`
	CacheWrite  int  `json:"cacheWrite"`
	TotalTokens int  `json:"totalTokens"`
	Cost        Cost `json:"cost"`
	// Timings is how long the server says it spent, when it says (Ollama, llama.cpp); it is
	// not part of pi's message format, so sessions do not keep it.
	Timings *Timings `json:"-"`
}

// Timings is a server's own account of one reply: the prompt's tokens and the time it spent
// evaluating them, the tokens it wrote and the time those took. PromptTokens is the whole
// prompt; Cached is the part taken from the server's cache where it says (llama.cpp's
// cache_n). Ollama does not say: its PromptTime covers only what it evaluated, so on a warm
// prefix PromptRate overstates the speed.
type Timings struct {
	PromptTokens int
	PromptTime   time.Duration
	OutputTokens int
	OutputTime   time.Duration
	Cached       int // prompt tokens taken from the cache; 0 where the server does not say
}

// PromptRate is prompt tokens evaluated per second, OutputRate tokens written per second; 0
// when the time is not known.
func (t *Timings) PromptRate() float64 { return rate(t.PromptTokens-t.Cached, t.PromptTime) }
func (t *Timings) OutputRate() float64 { return rate(t.OutputTokens, t.OutputTime) }

func rate(n int, d time.Duration) float64 {
	if n <= 0 || d <= 0 {
		return 0
	}
	return float64(n) / d.Seconds()
}

// Cost is in US dollars.
type Cost struct {
	Input      float64 `json:"input"`
	Output     float64 `json:"output"`
	CacheRead  float64 `json:"cacheRead"`
	CacheWrite float64 `json:"cacheWrite"`
	Total      float64 `json:"total"`
}

// Message is a user, assistant or tool-result message, or one of pi's application messages.
// Fields that a role does not use stay zero. Fields this type does not know are kept in Extra
// and written back, so foreign messages survive a load/save cycle.
type Message struct {
	Role Role

	// Content holds the blocks. StringContent records that the JSON had a plain string (user
	// messages may), so it is written back the same way.
	Content       []Block
	StringContent bool

	// Assistant fields.
	API          string
	Provider     string
	Model        string
	ResponseID   string
	Usage        *Usage
	StopReason   StopReason
	ErrorMessage string
	// RetryAfter is how long the server asked to wait (Retry-After) before a failed reply may
	// be retried; the retry policy reads it. Never serialised.
	RetryAfter time.Duration

	// Tool-result fields. Details is also written for an assistant message that has them
	// (tool calls recovered from its text).
	ToolCallID string
	ToolName   string
	Details    json.RawMessage
	IsError    bool

	Timestamp int64 // unix milliseconds

	Extra map[string]json.RawMessage
}

// UserText returns a user message holding plain text, as pi writes it (content as a string).
func UserText(text string, timestamp int64) Message {
	return Message{Role: RoleUser, Content: []Block{Text(text)}, StringContent: true, Timestamp: timestamp}
}

// TextContent joins the text blocks of a message.
func (m *Message) TextContent() string {
	if len(m.Content) == 1 && m.Content[0].Type == BlockText {
		return m.Content[0].Text
	}
	var b bytes.Buffer
	for _, c := range m.Content {
		if c.Type == BlockText {
			b.WriteString(c.Text)
		}
	}
	return b.String()
}

// ToolCalls returns the tool-call blocks of a message, in source order.
func (m *Message) ToolCalls() []Block {
	var calls []Block
	for _, c := range m.Content {
		if c.Type == BlockToolCall {
			calls = append(calls, c)
		}
	}
	return calls
}

// Clone returns a copy whose slices can be changed without touching m. Argument maps and
// raw JSON are shared: nothing in pi mutates them after a message is final.
func (m *Message) Clone() Message {
	c := *m
	c.Content = append([]Block(nil), m.Content...)
	if m.Usage != nil {
		u := *m.Usage
		c.Usage = &u
	}
	return c
}

// knownMessageField reports whether Message has a field of its own for a JSON key.
func knownMessageField(key string) bool {
	switch key {
	case "role", "content", "api", "provider", "model", "responseId", "usage", "stopReason", "errorMessage",
		"toolCallId", "toolName", "details", "isError", "timestamp":
		return true
	}
	return false
}

// MarshalJSON writes the message in pi's shape for its role.
func (m Message) MarshalJSON() ([]byte, error) {
	w := NewObjectWriter()
	w.Field("role", m.Role)
	switch m.Role {
	case RoleToolResult:
		w.Field("toolCallId", m.ToolCallID)
		w.Field("toolName", m.ToolName)
		w.Field("content", nonNilBlocks(m.Content))
		if len(m.Details) > 0 {
			w.Raw("details", m.Details)
		}
		w.Field("isError", m.IsError)
		if m.Usage != nil { // the tool's own model usage
			w.Field("usage", m.Usage)
		}
	case RoleAssistant:
		w.Field("content", nonNilBlocks(m.Content))
		w.Field("api", m.API)
		w.Field("provider", m.Provider)
		w.Field("model", m.Model)
		if m.ResponseID != "" {
			w.Field("responseId", m.ResponseID)
		}
		u := m.Usage
		if u == nil {
			u = &Usage{}
		}
		w.Field("usage", u)
		w.Field("stopReason", m.StopReason)
		if m.ErrorMessage != "" {
			w.Field("errorMessage", m.ErrorMessage)
		}
		if len(m.Details) > 0 { // e.g. tool calls recovered from the text
			w.Raw("details", m.Details)
		}
	default:
		if m.Content != nil || m.Role == RoleUser {
			if m.StringContent && len(m.Content) == 1 && m.Content[0].Type == BlockText {
				w.Field("content", m.Content[0].Text)
			} else {
				w.Field("content", nonNilBlocks(m.Content))
			}
		}
	}
	w.Extra(m.Extra)
	if len(m.Details) > 0 && m.Role != RoleToolResult && m.Role != RoleAssistant { // pi's custom messages
		w.Raw("details", m.Details)
	}
	if m.Timestamp != 0 || m.Role == RoleUser || m.Role == RoleAssistant || m.Role == RoleToolResult {
		w.Field("timestamp", m.Timestamp)
	}
	return w.Close()
}

// UnmarshalJSON reads any of pi's message shapes.
func (m *Message) UnmarshalJSON(data []byte) error {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil {
		return fmt.Errorf("message: %w", err)
	}
	*m = Message{}
	if err := decodeField(fields, "role", &m.Role); err != nil {
		return err
	}
	if raw, ok := fields["content"]; ok && !isNull(raw) {
		trimmed := bytes.TrimLeft(raw, " \t\r\n")
		if len(trimmed) > 0 && trimmed[0] == '"' {
			var s string
			if err := json.Unmarshal(raw, &s); err != nil {
				return fmt.Errorf("message content: %w", err)
			}
			m.Content, m.StringContent = []Block{Text(s)}, true
		} else if err := json.Unmarshal(raw, &m.Content); err != nil {
			return fmt.Errorf("message content: %w", err)
		}
	}
	for _, f := range []struct {
		name string
		dst  any
	}{
		{"api", &m.API}, {"provider", &m.Provider}, {"model", &m.Model}, {"responseId", &m.ResponseID},
		{"usage", &m.Usage}, {"stopReason", &m.StopReason}, {"errorMessage", &m.ErrorMessage},
		{"toolCallId", &m.ToolCallID}, {"toolName", &m.ToolName}, {"isError", &m.IsError},
		{"timestamp", &m.Timestamp},
	} {
		if err := decodeField(fields, f.name, f.dst); err != nil {
			return err
		}
	}
	if raw, ok := fields["details"]; ok {
		m.Details = append(json.RawMessage(nil), raw...)
	}
	for k, v := range fields {
		if !knownMessageField(k) {
			if m.Extra == nil {
				m.Extra = map[string]json.RawMessage{}
			}
			m.Extra[k] = v
		}
	}
	return nil
}

// MarshalJSON writes the block in pi's shape for its type.
func (b Block) MarshalJSON() ([]byte, error) {
	w := NewObjectWriter()
	w.Field("type", b.Type)
	switch b.Type {
	case BlockText:
		w.Field("text", b.Text)
		if b.TextSignature != "" {
			w.Field("textSignature", b.TextSignature)
		}
	case BlockThinking:
		w.Field("thinking", b.Thinking)
		if b.ThinkingSignature != "" {
			w.Field("thinkingSignature", b.ThinkingSignature)
		}
		if b.Redacted {
			w.Field("redacted", true)
		}
	case BlockImage:
		w.Field("data", b.Data)
		w.Field("mimeType", b.MimeType)
	case BlockToolCall:
		w.Field("id", b.ID)
		w.Field("name", b.Name)
		args := b.Arguments
		if args == nil {
			args = map[string]any{}
		}
		w.Field("arguments", args)
		if b.ThoughtSignature != "" {
			w.Field("thoughtSignature", b.ThoughtSignature)
		}
	default:
		return nil, fmt.Errorf("content block: unknown type %q", b.Type)
	}
	return w.Close()
}

// UnmarshalJSON reads a content block of any of pi's types.
func (b *Block) UnmarshalJSON(data []byte) error {
	var raw struct {
		Type              string          `json:"type"`
		Text              string          `json:"text"`
		TextSignature     string          `json:"textSignature"`
		Thinking          string          `json:"thinking"`
		ThinkingSignature string          `json:"thinkingSignature"`
		Redacted          bool            `json:"redacted"`
		Data              string          `json:"data"`
		MimeType          string          `json:"mimeType"`
		ID                string          `json:"id"`
		Name              string          `json:"name"`
		Arguments         json.RawMessage `json:"arguments"`
		ThoughtSignature  string          `json:"thoughtSignature"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return fmt.Errorf("content block: %w", err)
	}
	switch raw.Type {
	case BlockText, BlockThinking, BlockImage, BlockToolCall:
	default:
		return fmt.Errorf("content block: unknown type %q", raw.Type)
	}
	*b = Block{Type: raw.Type, Text: raw.Text, TextSignature: raw.TextSignature, Thinking: raw.Thinking,
		ThinkingSignature: raw.ThinkingSignature, Redacted: raw.Redacted, Data: raw.Data,
		MimeType: raw.MimeType, ID: raw.ID, Name: raw.Name, ThoughtSignature: raw.ThoughtSignature}
	if raw.Type == BlockToolCall {
		b.Arguments = map[string]any{}
		if len(raw.Arguments) > 0 && !isNull(raw.Arguments) {
			if err := json.Unmarshal(raw.Arguments, &b.Arguments); err != nil {
				return fmt.Errorf("tool call %q arguments: %w", raw.Name, err)
			}
		}
	}
	return nil
}

func nonNilBlocks(b []Block) []Block {
	if b == nil {
		return []Block{}
	}
	return b
}

func isNull(raw json.RawMessage) bool {
	return string(bytes.TrimSpace(raw)) == "null"
}

func decodeField(fields map[string]json.RawMessage, name string, dst any) error {
	raw, ok := fields[name]
	if !ok || isNull(raw) {
		return nil
	}
	if err := json.Unmarshal(raw, dst); err != nil {
		return fmt.Errorf("message field %q: %w", name, err)
	}
	return nil
}

// Failed reports whether m is a reply that failed or was aborted.
func (m *Message) Failed() bool {
	return m != nil && (m.StopReason == StopError || m.StopReason == StopAborted)
}

// FailureText is why a failed reply failed, in words for the user.
func (m *Message) FailureText() string {
	if m.ErrorMessage != "" {
		return m.ErrorMessage
	}
	return "the model call ended with " + string(m.StopReason)
}

// LastAssistant is the newest assistant reply of msgs, nil when there is none.
func LastAssistant(msgs []Message) *Message {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == RoleAssistant {
			return &msgs[i]
		}
	}
	return nil
}

// OneLine is s on one line (newlines and tabs become spaces), cut to limit runes with an
// ellipsis: for listings and reasons that must fit a row.
func OneLine(s string, limit int) string {
	out := []rune{}
	for _, r := range s {
		if r == '\n' || r == '\r' || r == '\t' {
			r = ' '
		}
		out = append(out, r)
		if len(out) == limit {
			return string(out[:limit-1]) + "…"
		}
	}
	return string(out)
}
