package server

import (
	"fmt"
	"slices"

	"pi/internal/cbor"
)

// clientMessage is a decoded, checked client message: a hello or a request.
type clientMessage struct {
	hello   bool
	version int64
	id      string // request id
	cmd     command
}

// command is one of the nine v1 commands; only the fields its name allows are set.
type command struct {
	Name      string
	SessionID string
	Text      string
	Cwd       string
	Title     string // create's name
	Model     *ModelRef
	Thinking  string
}

// commandFields lists, per command, the fields it takes besides "command"; the ones in
// required must be there.
var commandFields = map[string]struct{ allowed, required []string }{
	"list":         {},
	"create":       {allowed: []string{"cwd", "name", "model", "thinkingLevel"}},
	"attach":       {allowed: []string{"sessionId"}, required: []string{"sessionId"}},
	"detach":       {allowed: []string{"sessionId"}, required: []string{"sessionId"}},
	"prompt":       {allowed: []string{"sessionId", "text"}, required: []string{"sessionId", "text"}},
	"steer":        {allowed: []string{"sessionId", "text"}, required: []string{"sessionId", "text"}},
	"abort":        {allowed: []string{"sessionId"}, required: []string{"sessionId"}},
	"set_model":    {allowed: []string{"sessionId", "model"}, required: []string{"sessionId", "model"}},
	"set_thinking": {allowed: []string{"sessionId", "thinkingLevel"}, required: []string{"sessionId", "thinkingLevel"}},
	cmdStatus:      {},
	cmdStop:        {},
}

var thinkingLevels = []string{"off", "minimal", "low", "medium", "high", "xhigh", "max"}

// parseClientMessage decodes one frame's payload and checks it against the v1 schemas: every
// object closed, every type exact. The error is what the client is told.
func parseClientMessage(payload []byte, maxBytes int) (clientMessage, error) {
	v, err := cbor.Decode(payload, cbor.Limits{MaxBytes: maxBytes})
	if err != nil {
		return clientMessage{}, fmt.Errorf("Invalid client protocol frame: %v", err)
	}
	m, ok := v.(map[string]any)
	if !ok {
		return clientMessage{}, errInvalidMessage
	}
	switch m["type"] {
	case "hello":
		ver, ok := m["version"].(int64)
		if !ok || ver < 0 || !onlyKeys(m, "type", "version") {
			return clientMessage{}, errInvalidMessage
		}
		return clientMessage{hello: true, version: ver}, nil
	case "request":
		id, ok := nonEmpty(m["id"])
		req, isMap := m["request"].(map[string]any)
		if !ok || !isMap || !onlyKeys(m, "type", "id", "request") {
			return clientMessage{}, errInvalidMessage
		}
		cmd, err := parseCommand(req)
		if err != nil {
			return clientMessage{}, err
		}
		return clientMessage{id: id, cmd: cmd}, nil
	}
	return clientMessage{}, errInvalidMessage
}

var errInvalidMessage = fmt.Errorf("Invalid client protocol message")

func parseCommand(m map[string]any) (command, error) {
	name, _ := m["command"].(string)
	spec, known := commandFields[name]
	if !known || !onlyKeys(m, append([]string{"command"}, spec.allowed...)...) {
		return command{}, errInvalidMessage
	}
	for _, k := range spec.required {
		if _, ok := m[k]; !ok {
			return command{}, errInvalidMessage
		}
	}
	c := command{Name: name}
	ok := true
	for k, v := range m {
		switch k {
		case "sessionId":
			c.SessionID, ok = nonEmpty(v)
		case "cwd":
			c.Cwd, ok = nonEmpty(v)
		case "text":
			c.Text, ok = v.(string)
		case "name":
			c.Title, ok = v.(string)
		case "thinkingLevel":
			c.Thinking, ok = v.(string)
			ok = ok && slices.Contains(thinkingLevels, c.Thinking)
		case "model":
			c.Model, ok = parseModelRef(v)
		}
		if !ok {
			return command{}, errInvalidMessage
		}
	}
	return c, nil
}

func parseModelRef(v any) (*ModelRef, bool) {
	m, ok := v.(map[string]any)
	if !ok || !onlyKeys(m, "provider", "id") {
		return nil, false
	}
	p, ok1 := nonEmpty(m["provider"])
	id, ok2 := nonEmpty(m["id"])
	return &ModelRef{Provider: p, ID: id}, ok1 && ok2
}

func nonEmpty(v any) (string, bool) {
	s, ok := v.(string)
	return s, ok && s != ""
}

// onlyKeys reports whether m has no key outside keys.
func onlyKeys(m map[string]any, keys ...string) bool {
	for k := range m {
		if !slices.Contains(keys, k) {
			return false
		}
	}
	return true
}
