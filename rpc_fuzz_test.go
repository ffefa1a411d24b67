package main

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"
)

// FuzzDecodeCommand feeds arbitrary lines to the command decoder: it must never panic, accept
// only JSON objects with a type, and whatever it returns must give a response that is one
// valid JSON line.
func FuzzDecodeCommand(f *testing.F) {
	for _, seed := range []string{
		`{"type":"prompt","message":"hi","id":"1"}`,
		`{"type":"prompt","message":"x","images":[{"type":"image","data":"AA==","mimeType":"image/png"}]}`,
		`{"type":"bash","command":"ls","excludeFromContext":true,"id":7}`,
		`{"type":"set_auto_retry","enabled":false}`,
		`{"type":"fork","entryId":"abcd1234"}`,
		`{"type":"extension_ui_response","id":"x","confirmed":true}`,
		`{"type": "get_state"`, `[]`, `null`, `"prompt"`, `{"type":5}`, `{"id":{"a":[1]},"type":"x"}`,
		"{\"type\":\"prompt\",\"message\":\"a\u2028b\"}",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		c, err := decodeCommand(line)
		if err == nil && (c.Type == "" || !json.Valid(line)) {
			t.Fatalf("accepted %q as %+v", line, c)
		}
		if len(c.ID) > 0 && !json.Valid(c.ID) {
			t.Fatalf("id %q is not JSON", c.ID)
		}
		command := c.Type
		if command == "" {
			command = "parse"
		}
		var out bytes.Buffer
		s := &rpcServer{out: &out, stderr: io.Discard}
		s.respond(c.ID, command, nil, err)
		resp := out.Bytes()
		if bytes.Count(resp, []byte("\n")) != 1 || !json.Valid(resp) {
			t.Fatalf("response to %q is not one JSON line: %q", line, resp)
		}
	})
}

// FuzzReadLines checks the framing: lines end at '\n' only, a '\r' before it goes, and nothing
// else (U+2028 included) splits a line.
func FuzzReadLines(f *testing.F) {
	f.Add([]byte("a\nb\r\n\r\nc"))
	f.Add([]byte("x\u2028y\u2029z\n\n"))
	f.Add([]byte("\r\r\n"))
	f.Fuzz(func(t *testing.T, input []byte) {
		s := newRPCServer(nil, io.Discard, io.Discard)
		lines := make(chan []byte)
		go s.readLines(bytes.NewReader(input), lines, make(chan struct{}))
		var got []string
		for l := range lines {
			got = append(got, string(l))
		}
		var want []string
		for _, part := range strings.SplitAfter(string(input), "\n") {
			part = strings.TrimSuffix(strings.TrimSuffix(part, "\n"), "\r")
			if part != "" && !s.Route([]byte(part)) {
				want = append(want, part)
			}
		}
		if strings.Join(got, "\x00") != strings.Join(want, "\x00") {
			t.Fatalf("lines %q, want %q", got, want)
		}
	})
}
