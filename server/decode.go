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
	token   string // a version-2 hello's
	pi      bool   // the hello asked for pi's extensions (capabilities: ["pi"])
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
	Wait      bool   // pi_stop: let the runs finish first
	Line      string // pi_rpc: one of pi's RPC commands, as JSON
}

// commandFields lists a command's fields besides "command"; the ones in required must be
// there. Known is false for a name that is not a command.
func commandFields(name string) (allowed, required []string, known bool) {
	switch name {
	case "list", cmdStatus:
		return nil, nil, true
	case cmdStop:
		return []string{"wait"}, nil, true
	case "create":
		return []string{"cwd", "name", "model", "thinkingLevel"}, nil, true
	case "attach", "detach", "abort":
		return []string{"sessionId"}, []string{"sessionId"}, true
	case "prompt", "steer":
		return []string{"sessionId", "text"}, []string{"sessionId", "text"}, true
	case "set_model":
		return []string{"sessionId", "model"}, []string{"sessionId", "model"}, true
	case "set_thinking":
		return []string{"sessionId", "thinkingLevel"}, []string{"sessionId", "thinkingLevel"}, true
	case cmdRPC:
		return []string{"sessionId", "line"}, []string{"sessionId", "line"}, true
	}
	return nil, nil, false
}

// thinkingLevels are the protocol's, in order.
func thinkingLevels() []string {
	return []string{"off", "minimal", "low", "medium", "high", "xhigh", "max"}
}

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
		token, hasToken := m["token"]
		tok, isText := nonEmpty(token)
		pi, capsOK := parseCapabilities(m)
		if !ok || ver < 0 || !onlyKeys(m, "type", "version", "token", "capabilities") || hasToken && (ver != 2 || !isText) || !capsOK {
			return clientMessage{}, errInvalidMessage
		}
		return clientMessage{hello: true, version: ver, token: tok, pi: pi}, nil
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
	allowed, required, known := commandFields(name)
	if !known || !onlyKeys(m, append([]string{"command"}, allowed...)...) {
		return command{}, errInvalidMessage
	}
	for _, k := range required {
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
			ok = ok && slices.Contains(thinkingLevels(), c.Thinking)
		case "model":
			c.Model, ok = parseModelRef(v)
		case "wait":
			c.Wait, ok = v.(bool)
		case "line":
			c.Line, ok = nonEmpty(v)
		}
		if !ok {
			return command{}, errInvalidMessage
		}
	}
	return c, nil
}

// parseCapabilities reads a hello's capabilities, a list of names (pi's own clients send
// it; upstream's never do); only "pi" means anything, and the others are ignored.
func parseCapabilities(m map[string]any) (pi, ok bool) {
	v, has := m["capabilities"]
	if !has {
		return false, true
	}
	list, ok := v.([]any)
	if !ok || len(list) > 64 {
		return false, false
	}
	for _, c := range list {
		name, isText := c.(string)
		if !isText {
			return false, false
		}
		pi = pi || name == CapabilityPi
	}
	return pi, true
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
