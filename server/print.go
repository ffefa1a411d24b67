package server

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"pi/provider"
)

// PrintOptions are `pi -p --connect`'s: the prompts go to a served session, one after the
// other, and the last reply is printed.
type PrintOptions struct {
	Socket  string
	Session string // the session to attach to (its id); empty: a new session in Cwd
	Cwd     string
	Prompts []string
	Images  []provider.Block // go with the first prompt (@file pictures)
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
	snaps := make(chan map[string]any, 256)
	go func() {
		for ev := range c.Events() { // progress is not shown; snapshots come with the responses
			if snap, _ := ev["snapshot"].(map[string]any); ev["type"] == "session_snapshot" {
				select {
				case snaps <- snap: // for a prompt with pictures, which pi_rpc answers at once
				default:
				}
			}
		}
	}()
	last, err := promptAll(ctx, c, o, snaps)
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

func promptAll(ctx context.Context, c *Client, o PrintOptions, snaps <-chan map[string]any) (map[string]any, error) {
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
	for i, p := range o.Prompts {
		var snap any
		if i == 0 && len(o.Images) > 0 {
			snap, err = promptWithImages(ctx, c, id, p, o.Images, snaps)
		} else {
			res, err = c.Request(ctx, map[string]any{"command": "prompt", "sessionId": id, "text": p})
			snap = res["session"]
		}
		if err != nil {
			return nil, err
		}
		if last = lastAssistant(snap); last == nil {
			return nil, errors.New("the session has no reply")
		}
		if last["status"] != "complete" {
			break
		}
	}
	c.Request(ctx, map[string]any{"command": "detach", "sessionId": id})
	return last, nil
}

// promptWithImages sends a prompt with pictures as pi's prompt command (v1's carries text
// only), which answers once the prompt is taken, and waits for the run it starts to end: a
// snapshot of the session at work, then one at rest, which it returns.
func promptWithImages(ctx context.Context, c *Client, id, text string, imgs []provider.Block, snaps <-chan map[string]any) (any, error) {
	if !c.HasPi() {
		return nil, errors.New("this pi serve takes no pictures with a prompt (it is too old, or not pi)")
	}
	for len(snaps) > 0 {
		<-snaps // from before this prompt
	}
	line, err := json.Marshal(map[string]any{"type": "prompt", "message": text, "images": imgs})
	if err != nil {
		return nil, err
	}
	raw, _, err := c.RPC(ctx, id, line)
	if err != nil {
		return nil, err
	}
	var resp struct {
		Success bool   `json:"success"`
		Error   string `json:"error"`
	}
	if err := json.Unmarshal(raw, &resp); err != nil || !resp.Success {
		return nil, fmt.Errorf("prompt: %s", cmp.Or(resp.Error, string(raw)))
	}
	working := false
	for {
		select {
		case snap := <-snaps:
			if snap["id"] != id {
				continue
			}
			if snap["phase"] != "idle" {
				working = true
			} else if working {
				return snap, nil
			}
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
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
