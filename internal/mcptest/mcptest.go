// Package mcptest is a small MCP server for tests: the same tools and prompt over stdio
// (ServeStdio, for a test binary that runs itself as the server) and over streamable HTTP
// (Handler, for an httptest server on 127.0.0.1). It speaks just enough of MCP's JSON-RPC for
// pi's bundled mcp script: initialize, ping, tools/list, tools/call with progress and
// cancellation, prompts/list and prompts/get, notifications/tools/list_changed.
//
// Tools: echo {text}; progress {steps}, which reports each step; image, an image and a text
// resource; fail, an isError result; slow, which waits until it is cancelled (Cancelled
// reports the request ids); grow, which adds the tool extra and says the list changed; crash,
// which ends the process (stdio only). Prompt: greet {name}.
//
// It imports nothing of this module and is only for tests.
package mcptest

import (
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"time"
)

// Server holds one server's state: its tool list and the requests in flight.
type Server struct {
	// OnCancel, when set, hears of every cancelled request (a stdio server in another process
	// reports it where the test can see it).
	OnCancel func(id string)
	// OnSlow, when set, hears of every slow request once it waits for its cancellation, so
	// that a test cancels only a request the server has.
	OnSlow func(id string)
	// DescriptionTail, when set, ends every tool's description: a test makes the declarations
	// as large as it needs.
	DescriptionTail string

	mu        sync.Mutex
	grown     bool
	slow      map[string]chan struct{} // request id (as JSON) → closed when cancelled
	cancelled []string
	calls     []string // tool names called, in order
}

// New returns a server.
func New() *Server { return &Server{slow: map[string]chan struct{}{}} }

type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  any             `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// Cancelled returns the ids of the requests the client cancelled, as JSON.
func (s *Server) Cancelled() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.cancelled)
}

// Calls returns the names of the tools called so far.
func (s *Server) Calls() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.calls)
}

// handle answers one message. send passes on notifications about the request (progress)
// and, last, its response; a request's answer may come later (slow). crash ends a stdio
// server; stop ends a wait early (the HTTP request went away).
func (s *Server) handle(m message, send func(message), crash func(), stop <-chan struct{}) {
	if m.Method == "" || m.ID == nil { // a response or a notification
		if m.Method == "notifications/cancelled" {
			var p struct {
				RequestID json.RawMessage `json:"requestId"`
			}
			_ = json.Unmarshal(m.Params, &p)
			s.cancel(string(p.RequestID))
		}
		return
	}
	reply := func(result any) { send(message{JSONRPC: "2.0", ID: m.ID, Result: result}) }
	switch m.Method {
	case "initialize":
		var p struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		_ = json.Unmarshal(m.Params, &p)
		version := "2025-06-18"
		if p.ProtocolVersion == "2025-03-26" {
			version = p.ProtocolVersion
		}
		reply(map[string]any{"protocolVersion": version, "serverInfo": map[string]any{"name": "mcptest", "version": "1"},
			"capabilities": map[string]any{"tools": map[string]any{"listChanged": true}, "prompts": map[string]any{}}})
	case "ping":
		reply(map[string]any{})
	case "tools/list":
		reply(map[string]any{"tools": s.tools()})
	case "tools/call":
		s.call(m, send, reply, crash, stop)
	case "prompts/list":
		reply(map[string]any{"prompts": []any{map[string]any{"name": "greet", "description": "Greet someone",
			"arguments": []any{map[string]any{"name": "name", "required": true}}}}})
	case "prompts/get":
		var p struct {
			Arguments map[string]string `json:"arguments"`
		}
		_ = json.Unmarshal(m.Params, &p)
		reply(map[string]any{"messages": []any{map[string]any{"role": "user",
			"content": map[string]any{"type": "text", "text": "Say hello to " + p.Arguments["name"] + "."}}}})
	default:
		send(message{JSONRPC: "2.0", ID: m.ID, Error: &rpcError{Code: -32601, Message: "no method " + m.Method}})
	}
}

func (s *Server) tools() []any {
	obj := func(props map[string]any, required ...string) map[string]any {
		return map[string]any{"type": "object", "properties": props, "required": append([]string{}, required...)}
	}
	str := map[string]any{"type": "string"}
	list := []any{
		map[string]any{"name": "echo", "description": "Echo the text", "inputSchema": obj(map[string]any{"text": str}, "text")},
		map[string]any{"name": "progress", "description": "Report progress", "inputSchema": obj(map[string]any{"steps": map[string]any{"type": "integer"}})},
		map[string]any{"name": "image", "description": "An image and a resource", "inputSchema": obj(map[string]any{})},
		map[string]any{"name": "fail", "description": "Always fails", "inputSchema": obj(map[string]any{})},
		map[string]any{"name": "slow", "description": "Waits until cancelled", "inputSchema": obj(map[string]any{})},
		map[string]any{"name": "grow", "description": "Adds the tool extra", "inputSchema": obj(map[string]any{})},
		map[string]any{"name": "crash", "description": "Ends the server", "inputSchema": obj(map[string]any{})},
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.grown {
		list = append(list, map[string]any{"name": "extra", "description": "Added later", "inputSchema": obj(map[string]any{})})
	}
	if s.DescriptionTail != "" {
		for _, t := range list {
			t := t.(map[string]any)
			t["description"] = t["description"].(string) + " " + s.DescriptionTail
		}
	}
	return list
}

// A tiny PNG (1×1), base64.
const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="

func text(t string) map[string]any { return map[string]any{"type": "text", "text": t} }

func (s *Server) call(m message, send func(message), reply func(any), crash func(), stop <-chan struct{}) {
	var p struct {
		Name      string         `json:"name"`
		Arguments map[string]any `json:"arguments"`
		Meta      struct {
			ProgressToken json.RawMessage `json:"progressToken"`
		} `json:"_meta"`
	}
	_ = json.Unmarshal(m.Params, &p)
	s.mu.Lock()
	s.calls = append(s.calls, p.Name)
	s.mu.Unlock()
	content := func(blocks ...any) map[string]any { return map[string]any{"content": blocks} }
	switch p.Name {
	case "echo":
		reply(content(text(fmt.Sprint("echo: ", p.Arguments["text"]))))
	case "progress":
		steps, _ := p.Arguments["steps"].(float64)
		for i := 1; i <= int(steps); i++ {
			send(message{JSONRPC: "2.0", Method: "notifications/progress", Params: mustJSON(map[string]any{
				"progressToken": p.Meta.ProgressToken, "progress": i, "total": int(steps), "message": fmt.Sprintf("step %d", i)})})
			time.Sleep(20 * time.Millisecond)
		}
		reply(content(text(fmt.Sprintf("%d steps done", int(steps)))))
	case "image":
		reply(content(text("an image:"), map[string]any{"type": "image", "data": png, "mimeType": "image/png"},
			map[string]any{"type": "resource", "resource": map[string]any{"uri": "file:///notes.txt", "mimeType": "text/plain", "text": "buy milk"}}))
	case "fail":
		reply(map[string]any{"content": []any{text("it failed on purpose")}, "isError": true})
	case "slow":
		s.waitCancel(string(m.ID), stop)
		reply(content(text("slow finished")))
	case "grow":
		s.mu.Lock()
		s.grown = true
		s.mu.Unlock()
		reply(content(text("grown")))
		send(message{JSONRPC: "2.0", Method: "notifications/tools/list_changed"})
	case "crash":
		crash()
		reply(map[string]any{"content": []any{text("cannot crash here")}, "isError": true})
	default:
		send(message{JSONRPC: "2.0", ID: m.ID, Error: &rpcError{Code: -32602, Message: "unknown tool " + p.Name}})
	}
}

func (s *Server) waitCancel(id string, stop <-chan struct{}) {
	ch := make(chan struct{})
	s.mu.Lock()
	s.slow[id] = ch
	onSlow := s.OnSlow
	s.mu.Unlock()
	if onSlow != nil {
		onSlow(id)
	}
	select {
	case <-ch:
	case <-stop:
	case <-time.After(30 * time.Second):
	}
}

func (s *Server) cancel(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cancelled = append(s.cancelled, id)
	if s.OnCancel != nil {
		s.OnCancel(id)
	}
	if ch, ok := s.slow[id]; ok {
		close(ch)
		delete(s.slow, id)
	}
}

func mustJSON(x any) json.RawMessage {
	data, _ := json.Marshal(x)
	return data
}
