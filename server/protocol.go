package server

import "encoding/json"

// ProtocolVersion is the version of upstream pi's session-server protocol this server speaks.
const ProtocolVersion = 1

// Error codes of protocol version 1: a closed set, as the client checks it.
const (
	CodeVersion        = "version"
	CodeBusy           = "busy"
	CodeSessionLocked  = "session_locked"
	CodeNotFound       = "not_found"
	CodeInvalidRequest = "invalid_request"
	CodeNotImplemented = "not_implemented"
	CodeInternal       = "internal_error"
)

// Error is a protocol error, sent in a failed response or a hello_error.
type Error struct {
	Code    string `cbor:"code"`
	Message string `cbor:"message"`
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

func protoErr(code, msg string) *Error { return &Error{Code: code, Message: msg} }

// ModelRef names a model.
type ModelRef struct {
	Provider string `cbor:"provider"`
	ID       string `cbor:"id"`
}

// ModelCost is a model's price per million tokens.
type ModelCost struct {
	Input      float64 `cbor:"input"`
	Output     float64 `cbor:"output"`
	CacheRead  float64 `cbor:"cacheRead"`
	CacheWrite float64 `cbor:"cacheWrite"`
}

// ModelMetadata describes a model a session may use.
type ModelMetadata struct {
	Provider                string    `cbor:"provider"`
	ID                      string    `cbor:"id"`
	Name                    string    `cbor:"name"`
	API                     string    `cbor:"api"`
	Reasoning               bool      `cbor:"reasoning"`
	Input                   []string  `cbor:"input"`
	ContextWindow           int       `cbor:"contextWindow"`
	MaxTokens               int       `cbor:"maxTokens"`
	Cost                    ModelCost `cbor:"cost"`
	SupportedThinkingLevels []string  `cbor:"supportedThinkingLevels"`
	Authenticated           bool      `cbor:"authenticated"`
}

// Content is one content part of a transcript item; Type decides which fields go out.
type Content struct {
	Type       string          `cbor:"type"`
	Text       *string         `cbor:"text,omitempty"`
	Thinking   *string         `cbor:"thinking,omitempty"`
	Redacted   bool            `cbor:"redacted,omitempty"`
	Data       *string         `cbor:"data,omitempty"`
	MimeType   string          `cbor:"mimeType,omitempty"`
	ToolCallID string          `cbor:"toolCallId,omitempty"`
	ToolName   string          `cbor:"toolName,omitempty"`
	Input      json.RawMessage `cbor:"input,omitempty"`
}

// UsageCost is what a reply cost, in US dollars.
type UsageCost struct {
	Input      float64 `cbor:"input"`
	Output     float64 `cbor:"output"`
	CacheRead  float64 `cbor:"cacheRead"`
	CacheWrite float64 `cbor:"cacheWrite"`
	Total      float64 `cbor:"total"`
}

// Usage counts a reply's tokens.
type Usage struct {
	Input       int       `cbor:"input"`
	Output      int       `cbor:"output"`
	CacheRead   int       `cbor:"cacheRead"`
	CacheWrite  int       `cbor:"cacheWrite"`
	TotalTokens int       `cbor:"totalTokens"`
	Cost        UsageCost `cbor:"cost"`
}

// Item is one transcript item: a user message, an assistant reply or a tool call with its
// result. Role and Status decide which fields go out; IsError is a pointer because a tool
// item always carries it and the others never do.
type Item struct {
	ID           string          `cbor:"id"`
	Role         string          `cbor:"role"`
	ToolCallID   string          `cbor:"toolCallId,omitempty"`
	ToolName     string          `cbor:"toolName,omitempty"`
	Input        json.RawMessage `cbor:"input,omitempty"`
	Content      []Content       `cbor:"content"`
	Model        *ModelRef       `cbor:"model,omitempty"`
	Details      json.RawMessage `cbor:"details,omitempty"`
	Usage        *Usage          `cbor:"usage,omitempty"`
	Timestamp    int64           `cbor:"timestamp"`
	Status       string          `cbor:"status,omitempty"`
	StopReason   string          `cbor:"stopReason,omitempty"`
	ErrorMessage string          `cbor:"errorMessage,omitempty"`
	IsError      *bool           `cbor:"isError,omitempty"`
}

// SessionMetadata is a session's entry in a list.
type SessionMetadata struct {
	ID              string `cbor:"id"`
	CreatedAt       int64  `cbor:"createdAt"`
	UpdatedAt       int64  `cbor:"updatedAt,omitempty"`
	ParentSessionID string `cbor:"parentSessionId,omitempty"`
	SessionName     string `cbor:"sessionName,omitempty"`
	Cwd             string `cbor:"cwd,omitempty"`
}

// SessionSnapshot is the whole state of a live session.
type SessionSnapshot struct {
	ID               string   `cbor:"id"`
	Name             string   `cbor:"name,omitempty"`
	Cwd              string   `cbor:"cwd"`
	CreatedAt        int64    `cbor:"createdAt"`
	UpdatedAt        int64    `cbor:"updatedAt"`
	Phase            string   `cbor:"phase"`
	Model            ModelRef `cbor:"model"`
	ThinkingLevel    string   `cbor:"thinkingLevel"`
	Attached         bool     `cbor:"attached"`
	Locked           bool     `cbor:"locked"`
	Revision         int64    `cbor:"revision"`
	Transcript       []Item   `cbor:"transcript"`
	QueuedSteer      []Item   `cbor:"queuedSteer"`
	QueuedSteerCount int      `cbor:"queuedSteerCount"`
}

// ServerSnapshot is what the server holds: its sessions and models.
type ServerSnapshot struct {
	ServerID        string            `cbor:"serverId"`
	ProtocolVersion int               `cbor:"protocolVersion"`
	Revision        int64             `cbor:"revision"`
	Sessions        []SessionMetadata `cbor:"sessions"`
	Models          []ModelMetadata   `cbor:"models"`
}

// Progress is a transient hint about a session's activity; snapshots stay authoritative.
type Progress struct {
	Type         string  `cbor:"type"`
	Item         *Item   `cbor:"item,omitempty"`
	MessageID    string  `cbor:"messageId,omitempty"`
	ContentIndex *int    `cbor:"contentIndex,omitempty"`
	Kind         string  `cbor:"kind,omitempty"`
	Delta        *string `cbor:"delta,omitempty"`
}

// Event is a server event.
type Event struct {
	Type      string    `cbor:"type"`
	Snapshot  any       `cbor:"snapshot,omitempty"` // *ServerSnapshot or *SessionSnapshot
	SessionID string    `cbor:"sessionId,omitempty"`
	Progress  *Progress `cbor:"progress,omitempty"`
	Line      string    `cbor:"line,omitempty"` // pi_event's
}

// Result is a command's result; Command decides the other field.
type Result struct {
	Command   string             `cbor:"command"`
	Sessions  *[]SessionMetadata `cbor:"sessions,omitempty"`
	Session   *SessionSnapshot   `cbor:"session,omitempty"`
	SessionID string             `cbor:"sessionId,omitempty"`
	// pi_status only.
	Live    *[]LiveStatus `cbor:"live,omitempty"`
	Clients int           `cbor:"clients,omitempty"`
	RPC     string        `cbor:"rpc,omitempty"` // pi_rpc's response line
	after   func()        // runs once the response is queued (pi_rpc's later lines)
}

// Server → client envelopes.
type (
	serverHello struct {
		Type         string          `cbor:"type"`
		Version      int             `cbor:"version"`
		ConnectionID string          `cbor:"connectionId"`
		Snapshot     *ServerSnapshot `cbor:"snapshot"`
		Capabilities []string        `cbor:"capabilities,omitempty"` // only to a client that asked
	}
	helloError struct {
		Type  string `cbor:"type"`
		Error *Error `cbor:"error"`
	}
	okResponse struct {
		Type   string  `cbor:"type"`
		ID     string  `cbor:"id"`
		OK     bool    `cbor:"ok"`
		Result *Result `cbor:"result"`
	}
	errResponse struct {
		Type  string `cbor:"type"`
		ID    string `cbor:"id"`
		OK    bool   `cbor:"ok"`
		Error *Error `cbor:"error"`
	}
	eventEnvelope struct {
		Type  string `cbor:"type"`
		Event *Event `cbor:"event"`
	}
)
