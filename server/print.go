package server

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"

	"pi/provider"
	"pi/rpcwire"
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
	snaps := make(chan *SessionSnapshot, 256)
	go func() {
		for raw := range c.Events() { // progress is not shown; snapshots come with the responses
			if ev, err := ReadEvent(raw); err == nil && ev.Session != nil {
				select {
				case snaps <- ev.Session: // for a prompt with pictures, which pi_rpc answers at once
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
	if last.Status != "complete" {
		fmt.Fprintf(stderr, "pi: the reply ended %v: %s\n", last.Status, last.ErrorMessage)
		return 1
	}
	fmt.Fprintln(stdout, last.Text())
	return 0
}

func promptAll(ctx context.Context, c *Client, o PrintOptions, snaps <-chan *SessionSnapshot) (*Item, error) {
	var snap *SessionSnapshot
	var err error
	if o.Session != "" {
		snap, err = c.Attach(ctx, o.Session)
	} else {
		snap, err = c.Create(ctx, cwdOr(o.Cwd))
	}
	if err != nil {
		return nil, err
	}
	id := snap.ID
	var last *Item
	for i, p := range o.Prompts {
		if i == 0 && len(o.Images) > 0 {
			snap, err = promptWithImages(ctx, c, id, p, o.Images, snaps)
		} else {
			snap, err = c.PromptToEnd(ctx, id, p)
		}
		if err != nil {
			return nil, err
		}
		if last = snap.LastReply(); last == nil {
			return nil, errors.New("the session has no reply")
		}
		if last.Status != "complete" {
			break
		}
	}
	c.Detach(ctx, id)
	return last, nil
}

// promptWithImages sends a prompt with pictures as pi's prompt command (v1's carries text
// only), which answers once the prompt is taken, and waits for the run it starts to end: a
// snapshot of the session at work, then one at rest, which it returns.
func promptWithImages(ctx context.Context, c *Client, id, text string, imgs []provider.Block, snaps <-chan *SessionSnapshot) (*SessionSnapshot, error) {
	if !c.HasPi() {
		return nil, errors.New("this pi serve takes no pictures with a prompt (it is too old, or not pi)")
	}
	for len(snaps) > 0 {
		<-snaps // from before this prompt
	}
	resp, _, err := c.PiRPC(ctx, id, rpcwire.Command{Type: "prompt", Message: text, Images: imgs})
	if err != nil {
		return nil, err
	}
	if !resp.Success {
		return nil, fmt.Errorf("prompt: %s", cmp.Or(resp.Error, "refused without a reason"))
	}
	working := false
	for {
		select {
		case snap := <-snaps:
			if snap.ID != id {
				continue
			}
			if snap.Phase != "idle" {
				working = true
			} else if working {
				return snap, nil
			}
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}
