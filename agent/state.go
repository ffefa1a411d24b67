package agent

// state.go holds the Agent's accessors: what it holds and the settings for the next call.
// The loop itself is in loop.go.

import (
	"context"
	"pi/provider"
	"pi/tools"
)

// Subscribe adds a listener. Listeners are called one after another, in subscription order,
// on the goroutine of the run; they must return promptly. The returned function removes it.
func (a *Agent) Subscribe(fn func(ctx context.Context, ev Event)) (unsubscribe func()) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.nextSubID++
	id := a.nextSubID
	a.subscribers = append(a.subscribers, subscriber{id: id, fn: fn})
	return func() {
		a.mu.Lock()
		defer a.mu.Unlock()
		for i, s := range a.subscribers {
			if s.id == id {
				a.subscribers = append(a.subscribers[:i:i], a.subscribers[i+1:]...)
				return
			}
		}
	}
}

// State returns a copy of the agent's state.
func (a *Agent) State() State {
	a.mu.Lock()
	defer a.mu.Unlock()
	s := a.state
	s.Messages = append([]provider.Message(nil), a.state.Messages...)
	s.Tools = append([]tools.Tool(nil), a.state.Tools...)
	s.PendingToolCalls = make(map[string]bool, len(a.state.PendingToolCalls))
	for k, v := range a.state.PendingToolCalls {
		s.PendingToolCalls[k] = v
	}
	return s
}

// RetryNotice reports a provider's automatic retry as auto_retry_start / auto_retry_end.
func (a *Agent) RetryNotice(n provider.RetryNotice) {
	info := &RetryInfo{Attempt: n.Attempt, MaxAttempts: n.MaxAttempts, DelayMs: n.Delay.Milliseconds(),
		Error: n.ErrorMessage, Success: n.Success}
	typ := EvAutoRetryStart
	if !n.Start {
		typ, info.Error = EvAutoRetryEnd, n.FinalError
	}
	a.emit(context.Background(), Event{Type: typ, Retry: info})
}

// Emit delivers an event the agent did not make itself (compaction, queue changes) to the
// subscribers, in order with the agent's own.
func (a *Agent) Emit(ev Event) { a.emit(context.Background(), ev) }

// Provider is the provider the next call goes to.
func (a *Agent) Provider() provider.Provider {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.provider
}

// SetProvider switches provider and model together for the next call.
func (a *Agent) SetProvider(p provider.Provider, m provider.Model) {
	a.mu.Lock()
	a.provider, a.state.Model = p, m
	a.mu.Unlock()
}

// MessagesView returns the transcript without copying it. Callers must not change it; it
// stays valid because the agent only ever appends or replaces the whole slice.
func (a *Agent) MessagesView() []provider.Message {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.state.Messages[:len(a.state.Messages):len(a.state.Messages)]
}

// Model is the model the next call goes to; cheaper than State on a long transcript.
func (a *Agent) Model() provider.Model {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.state.Model
}

// SetModel switches the model for the next call.
func (a *Agent) SetModel(m provider.Model) { a.mu.Lock(); a.state.Model = m; a.mu.Unlock() }

// Thinking is the thinking level of the next call.
func (a *Agent) Thinking() string { a.mu.Lock(); defer a.mu.Unlock(); return a.state.Thinking }

// SetThinking sets the thinking level for the next call.
func (a *Agent) SetThinking(level string) { a.mu.Lock(); a.state.Thinking = level; a.mu.Unlock() }

// SetSystemPrompt replaces the system prompt for the next call.
func (a *Agent) SetSystemPrompt(p string) { a.mu.Lock(); a.state.SystemPrompt = p; a.mu.Unlock() }

// SetTools replaces the active tools for the next call.
func (a *Agent) SetTools(ts []tools.Tool) {
	a.mu.Lock()
	a.state.Tools = append([]tools.Tool(nil), ts...)
	a.mu.Unlock()
}

// ReplaceMessages swaps the transcript, e.g. after compaction or when a session is resumed.
func (a *Agent) ReplaceMessages(msgs []provider.Message) {
	a.mu.Lock()
	a.state.Messages = append([]provider.Message(nil), msgs...)
	a.foreign = 0
	if len(msgs) == 0 { // a new conversation: its first call is offered the tools without a message
		a.declared = nil
	}
	for i := range msgs {
		if !isLLMRole(msgs[i].Role) {
			a.foreign++
		}
	}
	a.mu.Unlock()
}

// SetQueueModes sets how the steering and follow-up queues drain.
func (a *Agent) SetQueueModes(steer, follow QueueMode) {
	a.mu.Lock()
	a.steerMode, a.followMode = steer.OrDefault(), follow.OrDefault()
	a.mu.Unlock()
}

// Steer queues a message for delivery after the current turn's tool calls, before the next
// model call.
func (a *Agent) Steer(m provider.Message) {
	a.mu.Lock()
	a.steerQueue = append(a.steerQueue, m)
	a.mu.Unlock()
}

// FollowUp queues a message for delivery when the agent would otherwise stop.
func (a *Agent) FollowUp(m provider.Message) {
	a.mu.Lock()
	a.followQueue = append(a.followQueue, m)
	a.mu.Unlock()
}

// ClearQueues empties both queues and returns what they held, steering first.
func (a *Agent) ClearQueues() []provider.Message {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := append(a.steerQueue, a.followQueue...)
	a.steerQueue, a.followQueue = nil, nil
	return out
}

// QueuedMessages returns copies of both queues.
func (a *Agent) QueuedMessages() (steer, follow []provider.Message) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]provider.Message(nil), a.steerQueue...), append([]provider.Message(nil), a.followQueue...)
}

// IsRunning reports whether a run is in progress.
func (a *Agent) IsRunning() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.cancel != nil
}
