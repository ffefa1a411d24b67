package main

// print.go is the print and JSON modes: each prompt from the command line goes through the
// front door in turn; print mode prints the final reply, JSON mode every event.

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"

	"pi/agent"
	"pi/live"
	"pi/provider"
	"pi/session"
)

// runPrintMode runs each prompt in turn and prints the text of the final assistant reply.
// A failed or aborted reply prints its error on stderr and exits 1.
func runPrintMode(ctx context.Context, h *live.Session, prompts []string, images []provider.Block, stdout, stderr io.Writer) int {
	defer watchRefusals(h.Agent(), "print", stderr)()
	if picked := h.PickedModel(); picked != "" { // a newly pulled model must not change a bare pi -p silently
		fmt.Fprintln(stderr, "pi:", picked)
	}
	last, err := runPrompts(ctx, h, prompts, images)
	if reportFailure(stderr, last, err) {
		return 1
	}
	if last != nil {
		fmt.Fprintln(stdout, last.TextContent())
	}
	return 0
}

// runJSONMode writes a session header line, then every agent event as one JSON line, and
// queue_update when the steering or follow-up queue changed. A message_update carries the
// partial reply only now and then (agent.UpdateGate), unless fullUpdates.
func runJSONMode(ctx context.Context, h *live.Session, fullUpdates bool, prompts []string, images []provider.Block, stdout, stderr io.Writer) int {
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
	writeLine(sessionHeaderLine(h.Header(), h.Agent().Model().Label(), h.PickedModel()))
	defer watchRefusals(h.Agent(), "JSON", stderr)()
	var queue queueWatch
	var updates agent.UpdateGate
	updates.SetFull(fullUpdates)
	unsubscribe := h.Agent().Subscribe(func(_ context.Context, ev agent.Event) {
		if ev.Type != live.EvQueueUpdate {
			writeLine(updates.Thin(ev))
		}
		if ev.Type == agent.EvMessageStart || ev.Type == agent.EvAgentEnd || ev.Type == live.EvQueueUpdate {
			if line, changed := queue.update(h.Agent()); changed { // a queued message is delivered at its message_start
				writeLine(json.RawMessage(line))
			}
		}
	})
	defer unsubscribe()
	last, err := runPrompts(ctx, h, prompts, images)
	if reportFailure(stderr, last, err) {
		return 1
	}
	return 0
}

// reportFailure prints why a run failed, if it did: an error of pi's own, or the final reply's.
func reportFailure(stderr io.Writer, last *provider.Message, err error) bool {
	switch {
	case err != nil:
		fmt.Fprintln(stderr, "pi:", err)
	case last.Failed():
		fmt.Fprintln(stderr, "pi:", last.FailureText())
	default:
		return false
	}
	return true
}

// runPrompts sends each prompt as its own run and returns the last assistant message.
func runPrompts(ctx context.Context, h *live.Session, prompts []string, images []provider.Block) (*provider.Message, error) {
	for i, text := range prompts {
		in := live.Input{Text: text, Source: live.SourceInteractive}
		if i == 0 {
			in.Images = images // the @file images go with the first prompt
		}
		if err := h.Send(ctx, in); err != nil {
			return nil, err
		}
		h.Settle(ctx, false) // messages the scripts' handlers sent during the run
		if last := provider.LastAssistant(h.Agent().MessagesView()); last.Failed() {
			return last, nil
		}
	}
	h.Settle(ctx, true) // background children, then the turns their notices start
	return provider.LastAssistant(h.Agent().MessagesView()), nil
}

// sessionHeaderLine is the header as JSON mode's first line, with pi's "type" field, and two
// of this pi's own that pi's readers ignore: the model the run starts on, and, when pi picked
// it because nothing named one, why ("modelPicked").
func sessionHeaderLine(h session.Header, model, picked string) fields {
	f := fields{{"type", "session"}, {"version", h.Version}, {"id", h.ID}, {"timestamp", h.Timestamp}, {"cwd", h.Cwd}}
	if h.ParentSession != "" {
		f = append(f, field{"parentSession", h.ParentSession})
	}
	f = append(f, field{"model", model})
	if picked != "" {
		f = append(f, field{"modelPicked", picked})
	}
	return f
}
