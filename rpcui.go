package main

// rpcui.go is RPC mode's side of the extension UI sub-protocol: select, confirm, input and
// editor send an extension_ui_request and wait for the client's extension_ui_response with the
// same id; notify and setStatus only inform. The server's Confirm, Select, Input and Notify are
// what the scripts' user interface asks for, so scripts get the same answers in RPC mode as in
// the terminal UI.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// uiRequest sends {"type":"extension_ui_request","id","method",…fields} and waits for the
// answer. A "timeout" field (milliseconds) makes it give up and answer {"cancelled": true},
// as does the end of the session; the end of ctx does too, with ctx's error.
func (s *rpcServer) uiRequest(ctx context.Context, method string, fields map[string]any) (map[string]any, error) {
	id := newRequestID()
	ch := make(chan map[string]any, 1)
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return map[string]any{"cancelled": true}, nil
	}
	s.uiWaiting[id] = ch
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.uiWaiting, id)
		s.mu.Unlock()
	}()
	s.write(uiRequestLine(id, method, fields))
	var timeout <-chan time.Time
	if d := uiTimeout(fields["timeout"]); d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		timeout = t.C
	}
	select {
	case r := <-ch:
		return r, nil
	case <-timeout:
		return map[string]any{"cancelled": true}, nil
	case <-ctx.Done():
		return map[string]any{"cancelled": true}, fmt.Errorf("waiting for the client to answer %s: %w", method, ctx.Err())
	}
}

// uiTimeout reads a timeout in milliseconds, as pi sends it to its clients.
func uiTimeout(v any) time.Duration {
	switch t := v.(type) {
	case int:
		return time.Duration(t) * time.Millisecond
	case int64:
		return time.Duration(t) * time.Millisecond
	case float64:
		return time.Duration(t * float64(time.Millisecond))
	}
	return 0
}

// uiNotice sends a request that expects no answer.
func (s *rpcServer) uiNotice(method string, fields map[string]any) {
	s.write(uiRequestLine(newRequestID(), method, fields))
}

func uiRequestLine(id, method string, extra map[string]any) fields {
	f := fields{{"type", "extension_ui_request"}, {"id", id}, {"method", method}}
	for _, k := range sortedKeys(extra) {
		if k != "type" && k != "id" && k != "method" {
			f = append(f, field{k, extra[k]})
		}
	}
	return f
}

// routeUIResponse hands an extension_ui_response to the request waiting for it and reports
// whether line was one. Answers to unknown or expired requests are dropped.
func (s *rpcServer) routeUIResponse(line []byte) bool {
	if !bytes.Contains(line, []byte("extension_ui_response")) {
		return false
	}
	var r map[string]any
	if json.Unmarshal(line, &r) != nil || r["type"] != "extension_ui_response" {
		return false
	}
	id, _ := r["id"].(string)
	s.mu.Lock()
	ch := s.uiWaiting[id]
	delete(s.uiWaiting, id)
	s.mu.Unlock()
	if ch != nil {
		ch <- r // buffered; the entry was removed, so nobody else sends
	}
	return true
}

// Confirm asks a yes/no question; a dismissed or timed-out question is a no.
func (s *rpcServer) Confirm(ctx context.Context, title, message string) (bool, error) {
	r, err := s.uiRequest(ctx, "confirm", map[string]any{"title": title, "message": message})
	yes, _ := r["confirmed"].(bool)
	return yes && r["cancelled"] != true, err
}

// Select asks to pick one of options; ok is false when the client dismissed it.
func (s *rpcServer) Select(ctx context.Context, title string, options []string) (string, bool, error) {
	r, err := s.uiRequest(ctx, "select", map[string]any{"title": title, "options": options})
	return uiValue(r, err)
}

// Input asks for a line of text.
func (s *rpcServer) Input(ctx context.Context, title, placeholder string) (string, bool, error) {
	f := map[string]any{"title": title}
	if placeholder != "" {
		f["placeholder"] = placeholder
	}
	return uiValue(s.uiRequest(ctx, "input", f))
}

// Editor asks for a longer text, starting from prefill.
func (s *rpcServer) Editor(ctx context.Context, title, prefill string) (string, bool, error) {
	f := map[string]any{"title": title}
	if prefill != "" {
		f["prefill"] = prefill
	}
	return uiValue(s.uiRequest(ctx, "editor", f))
}

func uiValue(r map[string]any, err error) (string, bool, error) {
	v, ok := r["value"].(string)
	return v, ok && r["cancelled"] != true, err
}

// Notify shows a message; level is info, warning or error.
func (s *rpcServer) Notify(message, level string) {
	f := map[string]any{"message": message}
	if level != "" {
		f["notifyType"] = level
	}
	s.uiNotice("notify", f)
}

// SetStatus sets (or with empty text clears) a status line the client shows under key.
func (s *rpcServer) SetStatus(key, text string) {
	f := map[string]any{"statusKey": key}
	if text != "" {
		f["statusText"] = text
	}
	s.uiNotice("setStatus", f)
}

// ExtensionUI sends one of the requests that expect no answer (setWidget, setTitle, …).
func (s *rpcServer) ExtensionUI(method string, f map[string]any) { s.uiNotice(method, f) }

// ExtensionError reports a script's failure as pi's extension_error event.
func (s *rpcServer) ExtensionError(path, event, message string) {
	s.write(fields{{"type", "extension_error"}, {"extensionPath", path}, {"event", event}, {"error", message}})
}
