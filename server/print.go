package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
)

// PrintOptions are `pi -p --connect`'s: the prompts go to a served session, one after the
// other, and the last reply is printed.
type PrintOptions struct {
	Socket  string
	Session string // the session to attach to (its id); empty: a new session in Cwd
	Cwd     string
	Prompts []string
}

// RunPrint is `pi -p --connect SOCKET`: it returns the exit code. While a prompt runs the
// reply's text is not streamed; the final text is printed, as print mode does.
func RunPrint(ctx context.Context, o PrintOptions, stdout, stderr io.Writer) int {
	if len(o.Prompts) == 0 {
		fmt.Fprintln(stderr, "pi: nothing to do: give a prompt, e.g. pi -p --connect SOCKET \"explain main.go\"")
		return 2
	}
	c, err := Dial(ctx, o.Socket)
	if err != nil {
		fmt.Fprintln(stderr, "pi:", err)
		return 1
	}
	defer c.Close()
	go func() {
		for range c.Events() { // progress is not shown; snapshots come with the responses
		}
	}()
	last, err := promptAll(ctx, c, o)
	if err != nil {
		fmt.Fprintln(stderr, "pi:", err)
		return 1
	}
	if last["status"] != "complete" {
		msg, _ := last["errorMessage"].(string)
		fmt.Fprintf(stderr, "pi: the reply ended %v: %s\n", last["status"], msg)
		return 1
	}
	fmt.Fprintln(stdout, itemText(last))
	return 0
}

func promptAll(ctx context.Context, c *Client, o PrintOptions) (map[string]any, error) {
	cmd := map[string]any{"command": "attach", "sessionId": o.Session}
	if o.Session == "" {
		cmd = map[string]any{"command": "create", "cwd": cwdOr(o.Cwd)}
	}
	res, err := c.Request(ctx, cmd)
	if err != nil {
		return nil, err
	}
	id, _ := res["session"].(map[string]any)["id"].(string)
	var last map[string]any
	for _, p := range o.Prompts {
		res, err := c.Request(ctx, map[string]any{"command": "prompt", "sessionId": id, "text": p})
		if err != nil {
			return nil, err
		}
		if last = lastAssistant(res["session"]); last == nil {
			return nil, errors.New("the session has no reply")
		}
		if last["status"] != "complete" {
			break
		}
	}
	c.Request(ctx, map[string]any{"command": "detach", "sessionId": id})
	return last, nil
}

func lastAssistant(snap any) map[string]any {
	m, _ := snap.(map[string]any)
	items, _ := m["transcript"].([]any)
	for i := len(items) - 1; i >= 0; i-- {
		if it, _ := items[i].(map[string]any); it["role"] == "assistant" {
			return it
		}
	}
	return nil
}

func itemText(it map[string]any) string {
	var b strings.Builder
	parts, _ := it["content"].([]any)
	for _, p := range parts {
		if pm, _ := p.(map[string]any); pm["type"] == "text" {
			s, _ := pm["text"].(string)
			b.WriteString(s)
		}
	}
	return b.String()
}
