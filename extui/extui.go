// Package extui is pi's extension UI sub-protocol as JSON lines: the side that asks. A
// script's select, confirm, input and editor become an extension_ui_request line with a fresh
// id, and the question waits for the extension_ui_response line with the same id; notify,
// setStatus, setWidget, setTitle and set_editor_text only inform. RPC mode writes the lines
// on stdout; pi serve sends them to the attached clients that asked for pi's extensions.
//
// An Asker owns no transport: it is given a function that sends one line and reports whether
// anybody could receive it. It does not touch the scripts or the session; it only turns
// questions into lines and answers back into values.
package extui

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"time"
)

// Asker asks the questions of one session's scripts over a line transport.
type Asker struct {
	send func(line []byte) bool
	// Settled, when set before the first question, is told each question's id once it has
	// been answered, has timed out or was cancelled: where several clients were asked, the
	// others can put their dialogs away.
	Settled func(id string)

	mu      sync.Mutex
	waiting map[string]chan map[string]any // request id → its answer
	closed  bool
}

// New makes an Asker writing with send, which returns false when nobody could receive the
// line: a question is then answered at once with cancelled, as with no UI.
func New(send func(line []byte) bool) *Asker {
	return &Asker{send: send, waiting: map[string]chan map[string]any{}}
}

func cancelled() map[string]any { return map[string]any{"cancelled": true} }

// Ask sends {"type":"extension_ui_request","id","method",…fields} and waits for the answer.
// A "timeout" field (milliseconds) makes it give up and answer {"cancelled": true}, as do
// Close and Cancel; the end of ctx does too, with ctx's error.
func (a *Asker) Ask(ctx context.Context, method string, fields map[string]any) (map[string]any, error) {
	id := NewRequestID()
	ch := make(chan map[string]any, 1)
	a.mu.Lock()
	if a.closed {
		a.mu.Unlock()
		return cancelled(), nil
	}
	a.waiting[id] = ch
	a.mu.Unlock()
	defer a.forget(id)
	if !a.send(requestLine(id, method, fields)) {
		return cancelled(), nil
	}
	if a.Settled != nil {
		defer a.Settled(id)
	}
	var timeout <-chan time.Time
	if d := Timeout(fields["timeout"]); d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		timeout = t.C
	}
	select {
	case r := <-ch:
		return r, nil
	case <-timeout:
		return cancelled(), nil
	case <-ctx.Done():
		return cancelled(), fmt.Errorf("waiting for the client to answer %s: %w", method, ctx.Err())
	}
}

func (a *Asker) forget(id string) {
	a.mu.Lock()
	delete(a.waiting, id)
	a.mu.Unlock()
}

// Timeout reads a timeout in milliseconds, as pi sends it to its clients.
func Timeout(v any) time.Duration {
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

// Cancel answers every open question with cancelled (its client has gone); later questions
// are asked as usual.
func (a *Asker) Cancel() {
	a.mu.Lock()
	defer a.mu.Unlock()
	for id, ch := range a.waiting {
		ch <- cancelled() // buffered, and the entry goes, so nobody else sends
		delete(a.waiting, id)
	}
}

// Close cancels the open questions and answers every later one with cancelled.
func (a *Asker) Close() {
	a.mu.Lock()
	a.closed = true
	a.mu.Unlock()
	a.Cancel()
}

// Route hands an extension_ui_response to the question waiting for it and reports whether
// line was one. Answers to unknown or expired requests are dropped.
func (a *Asker) Route(line []byte) bool {
	if !bytes.Contains(line, []byte("extension_ui_response")) {
		return false
	}
	var r map[string]any
	if json.Unmarshal(line, &r) != nil || r["type"] != "extension_ui_response" {
		return false
	}
	id, _ := r["id"].(string)
	a.mu.Lock()
	ch := a.waiting[id]
	delete(a.waiting, id)
	a.mu.Unlock()
	if ch != nil {
		ch <- r // buffered; the entry was removed, so nobody else sends
	}
	return true
}

// requestLine is the request with type, id and method first and the other fields in key
// order, so that lines are stable.
func requestLine(id, method string, fields map[string]any) []byte {
	keys := make([]string, 0, len(fields))
	for k := range fields {
		if k != "type" && k != "id" && k != "method" {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	buf, _ := json.Marshal("extension_ui_request")
	buf = append([]byte(`{"type":`), buf...)
	buf = appendField(buf, "id", id)
	buf = appendField(buf, "method", method)
	for _, k := range keys {
		buf = appendField(buf, k, fields[k])
	}
	return append(buf, '}')
}

func appendField(buf []byte, key string, v any) []byte {
	k, _ := json.Marshal(key)
	val, err := json.Marshal(v)
	if err != nil {
		val, _ = json.Marshal(fmt.Sprint(v)) // a value JSON cannot hold is sent as its text
	}
	buf = append(append(append(buf, ','), k...), ':')
	return append(buf, val...)
}

// NewRequestID is a random UUID (version 4), as pi uses for extension UI requests.
func NewRequestID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}
