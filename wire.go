package main

// wire.go is what RPC and JSON mode both write besides rpcwire's shapes: objects whose keys
// keep pi's order (the JSON mode's session line), and queue_update lines sent only when a
// queue changed.

import (
	"encoding/json"
	"fmt"
	"sync"

	"pi/agent"
	"pi/provider"
	"pi/rpcwire"
)

// fields is a JSON object whose keys keep their order.
type fields []field

type field struct {
	key   string
	value any
}

func (f fields) MarshalJSON() ([]byte, error) {
	buf := []byte{'{'}
	for i, kv := range f {
		if i > 0 {
			buf = append(buf, ',')
		}
		key, _ := json.Marshal(kv.key) // strings always marshal
		val, err := json.Marshal(kv.value)
		if err != nil {
			return nil, fmt.Errorf("field %q: %w", kv.key, err)
		}
		buf = append(append(append(buf, key...), ':'), val...)
	}
	return append(buf, '}'), nil
}

// nonNilMessages makes an empty list encode as [], as pi sends it.
func nonNilMessages(m []provider.Message) []provider.Message {
	if m == nil {
		return []provider.Message{}
	}
	return m
}

// queueWatch turns the agent's queues into queue_update lines, only when they changed since the
// last line (and not for queues that were always empty).
type queueWatch struct {
	mu   sync.Mutex
	last string
}

func (q *queueWatch) update(ag *agent.Agent) ([]byte, bool) {
	steer, follow := ag.QueuedMessages()
	line, err := json.Marshal(rpcwire.QueueUpdate{Type: "queue_update", Steering: messageTexts(steer), FollowUp: messageTexts(follow)})
	if err != nil {
		return nil, false
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	changed := string(line) != q.last && (q.last != "" || len(steer)+len(follow) > 0)
	q.last = string(line)
	return line, changed
}

func messageTexts(msgs []provider.Message) []string {
	out := make([]string, len(msgs))
	for i := range msgs {
		out[i] = msgs[i].TextContent()
	}
	return out
}
