package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"pi/provider"
)

// runPrintMode runs each prompt in turn and prints the text of the final assistant reply.
// A failed or aborted reply prints its error on stderr and exits 1.
func runPrintMode(ctx context.Context, a *app, prompts []string, stdout, stderr io.Writer) int {
	last, err := runPrompts(ctx, a, prompts)
	if err != nil {
		fmt.Fprintln(stderr, "pi:", err)
		return 1
	}
	if failed(last) {
		fmt.Fprintln(stderr, "pi:", errorText(last))
		return 1
	}
	if last != nil {
		fmt.Fprintln(stdout, last.TextContent())
	}
	return 0
}

// runJSONMode writes a session header line, then every agent event as one JSON line.
func runJSONMode(ctx context.Context, a *app, prompts []string, stdout, stderr io.Writer) int {
	w := bufio.NewWriter(stdout)
	writeLine := func(v any) {
		data, err := json.Marshal(v)
		if err != nil {
			fmt.Fprintln(stderr, "pi: encoding an event:", err)
			return
		}
		w.Write(data)
		w.WriteByte('\n')
		w.Flush()
	}
	writeLine(sessionHeader{Type: "session", Version: 3, ID: newUUIDv7(time.Now()),
		Timestamp: time.Now().UTC().Format(time.RFC3339Nano), Cwd: a.cwd})
	unsubscribe := a.agent.Subscribe(func(_ context.Context, ev AgentEvent) { writeLine(ev) })
	defer unsubscribe()
	last, err := runPrompts(ctx, a, prompts)
	if err != nil {
		fmt.Fprintln(stderr, "pi:", err)
		return 1
	}
	if failed(last) {
		fmt.Fprintln(stderr, "pi:", errorText(last))
		return 1
	}
	return 0
}

// runPrompts sends each prompt as its own run and returns the last assistant message.
func runPrompts(ctx context.Context, a *app, prompts []string) (*provider.Message, error) {
	for _, text := range prompts {
		opens := len(a.agent.State().Messages) == 0
		msg := FirstUserMessage(text, nil, opens, a.cwd, time.Now())
		if err := a.agent.Prompt(ctx, msg); err != nil {
			return nil, err
		}
		if last := lastAssistant(a.agent); failed(last) {
			return last, nil
		}
	}
	return lastAssistant(a.agent), nil
}

func lastAssistant(a *Agent) *provider.Message {
	msgs := a.State().Messages
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == provider.RoleAssistant {
			return &msgs[i]
		}
	}
	return nil
}

func failed(m *provider.Message) bool {
	return m != nil && (m.StopReason == provider.StopError || m.StopReason == provider.StopAborted)
}

func errorText(m *provider.Message) string {
	if m.ErrorMessage != "" {
		return m.ErrorMessage
	}
	return "the model call ended with " + string(m.StopReason)
}

// sessionHeader is the first line of a session file and of JSON mode output.
type sessionHeader struct {
	Type          string `json:"type"`
	Version       int    `json:"version"`
	ID            string `json:"id"`
	Timestamp     string `json:"timestamp"`
	Cwd           string `json:"cwd"`
	ParentSession string `json:"parentSession,omitempty"`
}

// newUUIDv7 makes a time-ordered UUID, the kind pi uses for session ids.
func newUUIDv7(now time.Time) string {
	var b [16]byte
	rand.Read(b[:]) // never fails on supported platforms
	ms := uint64(now.UnixMilli())
	for i := 0; i < 6; i++ {
		b[i] = byte(ms >> (40 - 8*i))
	}
	b[6] = b[6]&0x0f | 0x70
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
