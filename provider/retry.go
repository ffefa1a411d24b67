package provider

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"time"
)

// transientPattern matches failures worth another try: rate limits, overloaded or failing
// servers, and broken or slow connections. The texts are those of the servers and of Go's
// net/http, as the adapters put them into ErrorMessage.
const transientPattern = `(?i)` +
	`\b(429|500|502|503|504|529)\b|overloaded|rate.?limit|too many requests` +
	`|service.?unavailable|server.?error|internal.?error|bad gateway|gateway time` +
	`|connection.?(error|refused|reset|lost|closed)|broken pipe|unexpected eof|network.?error` +
	`|timed? ?out|timeout|deadline exceeded|other side closed|socket hang up|fetch failed` +
	`|upstream.?connect|reset before headers|stream ended without|provider.?returned.?error` +
	`|stream overran` // wire.StreamError: a reply past its output budget; timeouts say "timed out"

// IsRetryable reports whether msg is a failed reply that may succeed if sent again unchanged.
// A context overflow never is: sending the same prompt again overflows again.
func IsRetryable(msg *Message) bool {
	if msg == nil || msg.StopReason != StopError || IsContextOverflow(msg) {
		return false
	}
	// Compiled here, not at package init: only a failed reply needs it.
	return regexp.MustCompile(transientPattern).MatchString(msg.ErrorMessage)
}

// RetryPolicy says how often and how long to wait before retrying a transient failure.
type RetryPolicy struct {
	MaxRetries int           // retries after the first attempt; 0 disables retrying
	BaseDelay  time.Duration // the first wait; each later one doubles it
	MaxDelay   time.Duration // the longest wait a server may ask for with Retry-After
}

// DefaultRetryPolicy is pi's: three retries after 2, 4 and 8 seconds, and a server asking for
// more than a minute is not waited for.
func DefaultRetryPolicy() RetryPolicy {
	return RetryPolicy{MaxRetries: 3, BaseDelay: 2 * time.Second, MaxDelay: 60 * time.Second}
}

// Delay returns how long to wait before retry number attempt (1-based) after failed, and
// whether to retry at all. The server's Retry-After wins over the backoff; one longer than
// MaxDelay ends the retrying, since waiting silently for minutes helps nobody.
func (p RetryPolicy) Delay(attempt int, failed *Message) (time.Duration, bool) {
	if attempt > p.MaxRetries || !IsRetryable(failed) {
		return 0, false
	}
	if failed.RetryAfter > 0 {
		if p.MaxDelay > 0 && failed.RetryAfter > p.MaxDelay {
			return failed.RetryAfter, false
		}
		return failed.RetryAfter, true
	}
	return p.BaseDelay << (attempt - 1), true
}

// RetryNotice reports one step of retrying, so the loop can emit auto_retry_start (Start true)
// and auto_retry_end (Start false) events.
type RetryNotice struct {
	Start        bool
	Attempt      int // 1 for the first retry
	MaxAttempts  int
	Delay        time.Duration // Start: the wait before this attempt
	ErrorMessage string        // Start: the failure being retried
	Success      bool          // end: the last attempt succeeded
	FinalError   string        // end: why retrying stopped without success
}

// Retrying wraps a provider and retries transient failures with backoff.
//
// An attempt is retried only if it failed before streaming any content: the events of such an
// attempt (its start and its error) are held back, so the consumer sees one clean stream. A
// failure after content was streamed is passed on as it is, since the consumer has already
// shown part of the reply.
type Retrying struct {
	Provider Provider
	Policy   RetryPolicy
	Notify   func(RetryNotice) // may be nil
	// Sleep waits for d or until ctx is done; nil means a real timer. Tests replace it.
	Sleep func(ctx context.Context, d time.Duration) error
}

// Stream implements Provider.
func (r *Retrying) Stream(ctx context.Context, req *Request, emit func(Event)) Message {
	for attempt := 0; ; attempt++ {
		msg, held := r.try(ctx, req, emit, attempt+1)
		if !held {
			if attempt > 0 {
				r.notify(RetryNotice{Attempt: attempt, MaxAttempts: r.Policy.MaxRetries,
					Success:    msg.StopReason != StopError && msg.StopReason != StopAborted,
					FinalError: msg.ErrorMessage})
			}
			return msg
		}
		delay, _ := r.Policy.Delay(attempt+1, &msg)
		r.notify(RetryNotice{Start: true, Attempt: attempt + 1, MaxAttempts: r.Policy.MaxRetries,
			Delay: delay, ErrorMessage: msg.ErrorMessage})
		if err := r.sleep(ctx, delay); err != nil {
			r.notify(RetryNotice{Attempt: attempt + 1, MaxAttempts: r.Policy.MaxRetries, FinalError: "Retry cancelled"})
			b := NewBuilder(&req.Model, emit)
			b.Start()
			return b.Fail(StopAborted, "Retry cancelled")
		}
	}
}

// try runs one attempt. held reports that it failed retryably before any content, and that its
// events were therefore not passed on.
func (r *Retrying) try(ctx context.Context, req *Request, emit func(Event), nextAttempt int) (msg Message, held bool) {
	var start *Event
	var note string
	passing := false
	msg = r.Provider.Stream(ctx, req, func(ev Event) {
		switch {
		case passing:
			emit(ev)
			return
		case ev.Type == EventStart:
			start = &ev
			return
		case ev.Type == EventError && ctx.Err() == nil:
			delay, ok := r.Policy.Delay(nextAttempt, ev.Message)
			if ok {
				held = true
				return
			}
			if delay > 0 {
				note = fmt.Sprintf(" (the server asks to wait %v before retrying, more than the %v allowed)", delay, r.Policy.MaxDelay)
				ev.Message.ErrorMessage += note
			}
		}
		passing = true
		if start != nil {
			emit(*start)
		}
		emit(ev)
	})
	if !strings.HasSuffix(msg.ErrorMessage, note) { // the event's message may be the one returned
		msg.ErrorMessage += note
	}
	return msg, held
}

func (r *Retrying) notify(n RetryNotice) {
	if r.Notify != nil {
		r.Notify(n)
	}
}

func (r *Retrying) sleep(ctx context.Context, d time.Duration) error {
	if r.Sleep != nil {
		return r.Sleep(ctx, d)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("waiting %v to retry: %w", d, ctx.Err())
	}
}
