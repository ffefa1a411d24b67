package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
)

// Provider turns a request into a stream of events. Stream calls emit for every event, in
// order, on the calling goroutine, and returns the final assistant message, which is also the
// message of the last event (done or error). It never fails in another way: errors and
// cancellation become a final message with StopReason error or aborted and an ErrorMessage.
//
// The Partial message carried by events is owned by the provider and changes as the stream
// goes on: a consumer that keeps it must Clone it.
type Provider interface {
	Stream(ctx context.Context, req *Request, emit func(Event)) Message
}

// Request is everything a provider needs for one model call.
type Request struct {
	Model        Model
	SystemPrompt string
	Messages     []Message
	Tools        []ToolDef
	Options      Options
	// ReplySchema, when set, asks the server to constrain the whole reply to this JSON Schema
	// (see ArgumentsConstrainer); only adapters that implement that capability honour it.
	ReplySchema json.RawMessage
}

// Options tune one call.
type Options struct {
	Thinking    string   // off, minimal, low, medium, high, xhigh, max (the highest the server has); "" means off
	MaxTokens   int      // 0: the model's default
	Temperature *float64 // nil: the server's default
	SessionID   string   // a prompt-cache key for servers that take one
	APIKey      string   // never logged, never stored
}

// ToolDef is what a model is told about a tool.
type ToolDef struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
	// NoConstrainedSampling keeps this tool's arguments free even where the model's calls are
	// constrained to their schemas (a Lua tool's constrained_sampling = false).
	NoConstrainedSampling bool `json:"-"`
}

// Model describes one model of one configured provider.
type Model struct {
	ID            string    `json:"id"`
	Name          string    `json:"name,omitempty"`
	Provider      string    `json:"provider"` // the configured provider's name, e.g. "ollama"
	API           string    `json:"api"`      // the wire format: ollama, openai, anthropic, faux
	BaseURL       string    `json:"baseUrl,omitempty"`
	Reasoning     bool      `json:"reasoning"`
	Input         []string  `json:"input,omitempty"` // "text", "image"
	ContextWindow int       `json:"contextWindow"`
	MaxTokens     int       `json:"maxTokens"`
	Cost          ModelCost `json:"cost"`

	// NoTextToolCalls turns off the recovery of tool calls a model writes as text
	// (provider/textcalls); pi.toml's text_tool_calls = false sets it.
	NoTextToolCalls bool `json:"-"`
	// ConstrainedSampling says whether adapters ask the server to constrain the decoding of
	// tool-call arguments to the tools' schemas; nil means where the adapter knows the server
	// supports it. pi.toml's constrained_sampling sets it.
	ConstrainedSampling *bool `json:"-"`
	// NoArgumentRetry turns off asking the model once more, with its reply constrained to the
	// tool's schema, for a call's arguments that failed validation (ArgumentsConstrainer);
	// pi.toml's argument_repair = false sets it.
	NoArgumentRetry bool `json:"-"`
	// Prewarm says the session may send this model's server the next request's prefix while the
	// user types (a server on this machine, or [providers.*] prewarm = true).
	Prewarm bool `json:"-"`
}

// AcceptsImages reports whether the model takes image input.
func (m *Model) AcceptsImages() bool {
	for _, in := range m.Input {
		if in == "image" {
			return true
		}
	}
	return false
}

// Label is how pi names m to the user and in pi.toml: provider/id (the id alone without a
// provider).
func (m Model) Label() string {
	if m.Provider == "" {
		return m.ID
	}
	return m.Provider + "/" + m.ID
}

// Same reports whether m and o are one model: the same provider and id, where an Ollama
// model asked for as "name" is the "name:latest" its server lists.
func (m Model) Same(o Model) bool {
	if m.Provider != o.Provider {
		return false
	}
	if m.ID == o.ID {
		return true
	}
	return (m.API == "ollama" || o.API == "ollama") && ollamaTagged(m.ID) == ollamaTagged(o.ID)
}

// ollamaTagged is an Ollama model name with its tag, ":latest" when it has none.
func ollamaTagged(id string) string {
	if i := strings.LastIndex(id, "/"); !strings.Contains(id[i+1:], ":") {
		return id + ":latest"
	}
	return id
}

// Traits is what a model picker says of m besides its name: "128k context · images".
func (m *Model) Traits() string {
	var t []string
	if m.ContextWindow > 0 {
		t = append(t, fmt.Sprintf("%dk context", m.ContextWindow/1000))
	}
	if m.AcceptsImages() {
		t = append(t, "images")
	}
	return strings.Join(t, " · ")
}

// ModelCost is the price in US dollars per million tokens.
type ModelCost struct {
	Input      float64 `json:"input"`
	Output     float64 `json:"output"`
	CacheRead  float64 `json:"cacheRead"`
	CacheWrite float64 `json:"cacheWrite"`
}

// Apply fills u.Cost from the token counts in u.
func (c ModelCost) Apply(u *Usage) {
	const perToken = 1.0 / 1e6
	u.Cost.Input = float64(u.Input) * c.Input * perToken
	u.Cost.Output = float64(u.Output) * c.Output * perToken
	u.Cost.CacheRead = float64(u.CacheRead) * c.CacheRead * perToken
	u.Cost.CacheWrite = float64(u.CacheWrite) * c.CacheWrite * perToken
	u.Cost.Total = u.Cost.Input + u.Cost.Output + u.Cost.CacheRead + u.Cost.CacheWrite
}

// Unavailable stands in for a model that could not be set up: every call fails with err's
// text, so a front end can start anyway and show why.
func Unavailable(err error) Provider { return unavailable{err} }

type unavailable struct{ err error }

func (u unavailable) Stream(_ context.Context, req *Request, emit func(Event)) Message {
	b := NewBuilder(&req.Model, emit)
	b.Start()
	return b.Fail(StopError, u.err.Error())
}
