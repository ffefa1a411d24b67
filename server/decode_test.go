package server

import (
	"strings"
	"testing"

	"pi/internal/cbor"
)

func mustMarshal(t testing.TB, v any) []byte {
	t.Helper()
	b, err := cbor.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestParseClientMessage(t *testing.T) {
	req := func(cmd map[string]any) map[string]any {
		return map[string]any{"type": "request", "id": "r1", "request": cmd}
	}
	cases := []struct {
		name string
		msg  any
		ok   bool
	}{
		{"hello", map[string]any{"type": "hello", "version": 1}, true},
		{"hello of another version still parses", map[string]any{"type": "hello", "version": 7}, true},
		{"negative version", map[string]any{"type": "hello", "version": -1}, false},
		{"fractional version", map[string]any{"type": "hello", "version": 1.5}, false},
		{"hello without version", map[string]any{"type": "hello"}, false},
		{"hello asking for pi's extensions", map[string]any{"type": "hello", "version": 1, "capabilities": []any{"pi", "other"}}, true},
		{"capabilities that are not a list", map[string]any{"type": "hello", "version": 1, "capabilities": "pi"}, false},
		{"a capability that is not text", map[string]any{"type": "hello", "version": 1, "capabilities": []any{1}}, false},
		{"pi_rpc", req(map[string]any{"command": "pi_rpc", "sessionId": "s", "line": `{"type":"get_tree"}`}), true},
		{"pi_rpc without a line", req(map[string]any{"command": "pi_rpc", "sessionId": "s"}), false},
		{"pi_rpc with an empty line", req(map[string]any{"command": "pi_rpc", "sessionId": "s", "line": ""}), false},
		{"list", req(map[string]any{"command": "list"}), true},
		{"create with everything", req(map[string]any{"command": "create", "cwd": "/w", "name": "n",
			"model": map[string]any{"provider": "p", "id": "m"}, "thinkingLevel": "max"}), true},
		{"create with an empty cwd", req(map[string]any{"command": "create", "cwd": ""}), false},
		{"create with an unknown thinking level", req(map[string]any{"command": "create", "thinkingLevel": "extreme"}), false},
		{"model with an extra key", req(map[string]any{"command": "set_model", "sessionId": "s",
			"model": map[string]any{"provider": "p", "id": "m", "x": 1}}), false},
		{"prompt", req(map[string]any{"command": "prompt", "sessionId": "s", "text": ""}), true},
		{"prompt without text", req(map[string]any{"command": "prompt", "sessionId": "s"}), false},
		{"prompt with a number for text", req(map[string]any{"command": "prompt", "sessionId": "s", "text": 3}), false},
		{"attach with an empty id", req(map[string]any{"command": "attach", "sessionId": ""}), false},
		{"a field another command has", req(map[string]any{"command": "abort", "sessionId": "s", "text": "x"}), false},
		{"unknown command", req(map[string]any{"command": "delete", "sessionId": "s"}), false},
		{"request with an empty id", map[string]any{"type": "request", "id": "", "request": map[string]any{"command": "list"}}, false},
		{"envelope with an extra key", map[string]any{"type": "request", "id": "1", "x": true, "request": map[string]any{"command": "list"}}, false},
		{"not a map", []any{"hello", 1}, false},
		{"unknown type", map[string]any{"type": "cancel"}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := parseClientMessage(mustMarshal(t, c.msg), 1<<20)
			if (err == nil) != c.ok {
				t.Fatalf("ok = %v, want %v (%v)", err == nil, c.ok, err)
			}
		})
	}
}

// FuzzParseClientMessage: any payload parses or is refused with a message for the client; a
// parsed request names one of the commands.
func FuzzParseClientMessage(f *testing.F) {
	f.Add(mustMarshal(f, map[string]any{"type": "hello", "version": 1}))
	f.Add(mustMarshal(f, map[string]any{"type": "request", "id": "1", "request": map[string]any{"command": "prompt", "sessionId": "s", "text": "t"}}))
	f.Add(mustMarshal(f, map[string]any{"type": "request", "id": "1", "request": map[string]any{"command": "create",
		"model": map[string]any{"provider": "p", "id": "m"}}}))
	f.Add([]byte{0xa1, 0x61, 0x61, 0xf7})
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := parseClientMessage(b, 1<<16)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "Invalid client protocol") {
				t.Fatalf("error %q", err)
			}
			return
		}
		if !m.hello {
			if _, _, ok := commandFields(m.cmd.Name); !ok || m.id == "" {
				t.Fatalf("parsed %+v", m)
			}
		}
	})
}
