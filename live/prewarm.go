package live

// prewarm.go is the warm cache: while the user reads or types, the model's server is sent the
// stable prefix of the next request (system prompt, tool definitions, the conversation so far)
// as a one-token request, so that when Enter is pressed it evaluates only the new message. A
// model on this machine only, unless pi.toml says prewarm = true: a hosted API bills it.

import (
	"context"
	"sync"
	"time"

	"pi/provider"
)

// warmupTimeout bounds a warm-up: a prefix of a 128k window on a CPU takes minutes, and a
// warm-up past that helps nobody.
const warmupTimeout = 5 * time.Minute

// warmer holds the warm-up in flight, if any.
type warmer struct {
	mu     sync.Mutex
	done   chan struct{} // closed when the warm-up in flight has ended; nil when none
	cancel context.CancelFunc
}

// prewarm starts a warm-up of the next request's prefix when the session warms at all
// (Options.Prewarm), the model's server may be warmed, and no run goes. A warm-up already
// under way for an older prefix (before a model switch, a compaction) is given up. It returns
// at once.
func (h *Session) prewarm() {
	if !h.warmOn || h.Busy() || !h.agent.Model().Prewarm {
		return // checked before the prefix is built: that converts the whole transcript
	}
	req := h.agent.RequestPrefix()
	req.Options.MaxTokens = 1
	msgs, model := h.agent.MessagesView(), modelKey(req.Model)
	p := h.agent.Provider()
	ctx, cancel := context.WithTimeout(h.life, warmupTimeout)
	done := make(chan struct{})
	h.warm.mu.Lock()
	if h.warm.cancel != nil {
		h.warm.cancel()
	}
	h.warm.done, h.warm.cancel = done, cancel
	h.warm.mu.Unlock()
	go func() {
		defer close(done)
		defer cancel()
		if evicts, err := provider.WouldEvict(ctx, p, req.Model); err != nil || evicts {
			return // loading this model would push out one that is loaded: not for a guess
		}
		p.Stream(ctx, req, func(ev provider.Event) {
			if ev.Type == provider.EventDone && ev.Message != nil && ev.Message.Usage != nil && ev.Message.Usage.Input > 0 {
				h.budget.served(model, msgs, len(msgs), ev.Message.Usage, false)
				h.budget.changed()
			}
		})
	}()
}

// waitWarm holds a run's first request until the warm-up in flight has ended: the server then
// re-uses what it evaluated, where cancelling it would throw that away.
func (h *Session) waitWarm(ctx context.Context) {
	h.warm.mu.Lock()
	done := h.warm.done
	h.warm.mu.Unlock()
	if done == nil {
		return
	}
	select {
	case <-done:
	case <-ctx.Done():
	}
}
