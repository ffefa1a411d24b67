package provider

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"
)

// scripted fails or answers according to its steps, one per call.
type scripted struct {
	steps []step
	calls int
}

type step struct {
	text       string // streamed before the outcome
	err        string // "" means success
	retryAfter time.Duration
}

func (s *scripted) Stream(ctx context.Context, req *Request, emit func(Event)) Message {
	st := s.steps[s.calls]
	s.calls++
	b := NewBuilder(&req.Model, emit)
	b.Start()
	if st.text != "" {
		b.TextDelta(st.text)
	}
	if st.err != "" {
		b.Message().RetryAfter = st.retryAfter
		return b.Fail(StopError, st.err)
	}
	return b.Done(StopStop)
}

func eventTypes(evs []Event) []EventType {
	var out []EventType
	for _, e := range evs {
		out = append(out, e.Type)
	}
	return out
}

func TestRetrying(t *testing.T) {
	tests := []struct {
		name      string
		steps     []step
		wantStop  StopReason
		wantCalls int
		wantWaits []time.Duration
		wantTypes []EventType
		wantEnd   *RetryNotice
	}{
		{
			name:      "429 then success",
			steps:     []step{{err: "429 Too Many Requests"}, {text: "hi"}},
			wantStop:  StopStop,
			wantCalls: 2,
			wantWaits: []time.Duration{2 * time.Second},
			wantTypes: []EventType{EventStart, EventTextStart, EventTextDelta, EventTextEnd, EventDone},
			wantEnd:   &RetryNotice{Attempt: 1, MaxAttempts: 3, Success: true},
		},
		{
			name:      "backoff doubles and gives up",
			steps:     []step{{err: "503 Service Unavailable"}, {err: "503 Service Unavailable"}, {err: "503 Service Unavailable"}, {err: "503 Service Unavailable"}},
			wantStop:  StopError,
			wantCalls: 4,
			wantWaits: []time.Duration{2 * time.Second, 4 * time.Second, 8 * time.Second},
			wantTypes: []EventType{EventStart, EventError},
			wantEnd:   &RetryNotice{Attempt: 3, MaxAttempts: 3, FinalError: "503 Service Unavailable"},
		},
		{
			name:      "retry-after honoured",
			steps:     []step{{err: "429 Too Many Requests", retryAfter: 5 * time.Second}, {text: "ok"}},
			wantStop:  StopStop,
			wantCalls: 2,
			wantWaits: []time.Duration{5 * time.Second},
			wantTypes: []EventType{EventStart, EventTextStart, EventTextDelta, EventTextEnd, EventDone},
			wantEnd:   &RetryNotice{Attempt: 1, MaxAttempts: 3, Success: true},
		},
		{
			name:      "retry-after beyond the cap",
			steps:     []step{{err: "429 Too Many Requests", retryAfter: 10 * time.Minute}},
			wantStop:  StopError,
			wantCalls: 1,
			wantTypes: []EventType{EventStart, EventError},
		},
		{
			name:      "overflow not retried",
			steps:     []step{{err: "400 Bad Request: prompt is too long: 9 tokens > 8 maximum"}},
			wantStop:  StopError,
			wantCalls: 1,
			wantTypes: []EventType{EventStart, EventError},
		},
		{
			name:      "failure after content passed on",
			steps:     []step{{text: "partial", err: "overloaded_error: Overloaded"}},
			wantStop:  StopError,
			wantCalls: 1,
			wantTypes: []EventType{EventStart, EventTextStart, EventTextDelta, EventTextEnd, EventError},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			inner := &scripted{steps: tt.steps}
			var waits []time.Duration
			var notices []RetryNotice
			r := &Retrying{Provider: inner, Policy: DefaultRetryPolicy(),
				Notify: func(n RetryNotice) { notices = append(notices, n) },
				Sleep:  func(ctx context.Context, d time.Duration) error { waits = append(waits, d); return nil }}
			var evs []Event
			msg := r.Stream(context.Background(), &Request{Model: Model{ID: "m"}}, func(e Event) { evs = append(evs, e) })
			if msg.StopReason != tt.wantStop || inner.calls != tt.wantCalls || !reflect.DeepEqual(waits, tt.wantWaits) {
				t.Fatalf("stop %s calls %d waits %v", msg.StopReason, inner.calls, waits)
			}
			if got := eventTypes(evs); !reflect.DeepEqual(got, tt.wantTypes) {
				t.Fatalf("events %v, want %v", got, tt.wantTypes)
			}
			starts := 0
			for _, n := range notices {
				if n.Start {
					starts++
				}
			}
			if starts != len(tt.wantWaits) {
				t.Errorf("%d start notices for %d waits", starts, len(tt.wantWaits))
			}
			if tt.wantEnd != nil && !reflect.DeepEqual(notices[len(notices)-1], *tt.wantEnd) {
				t.Errorf("end notice %+v, want %+v", notices[len(notices)-1], *tt.wantEnd)
			}
		})
	}
}

func TestRetryingExplainsLongRetryAfter(t *testing.T) {
	inner := &scripted{steps: []step{{err: "429 Too Many Requests", retryAfter: 10 * time.Minute}}}
	r := &Retrying{Provider: inner, Policy: DefaultRetryPolicy()}
	var last Event
	msg := r.Stream(context.Background(), &Request{}, func(e Event) { last = e })
	if !strings.Contains(msg.ErrorMessage, "10m0s") || last.Message.ErrorMessage != msg.ErrorMessage {
		t.Fatalf("message %q, event %q", msg.ErrorMessage, last.Message.ErrorMessage)
	}
}

func TestRetryingCancelledWait(t *testing.T) {
	inner := &scripted{steps: []step{{err: "429 Too Many Requests"}}}
	ctx, cancel := context.WithCancel(context.Background())
	var notices []RetryNotice
	r := &Retrying{Provider: inner, Policy: DefaultRetryPolicy(), Notify: func(n RetryNotice) {
		notices = append(notices, n)
		cancel()
	}}
	start := time.Now()
	var evs []Event
	msg := r.Stream(ctx, &Request{}, func(e Event) { evs = append(evs, e) })
	if msg.StopReason != StopAborted || time.Since(start) > time.Second {
		t.Fatalf("got %s after %v", msg.StopReason, time.Since(start))
	}
	if got := eventTypes(evs); !reflect.DeepEqual(got, []EventType{EventStart, EventError}) {
		t.Errorf("events %v", got)
	}
	if last := notices[len(notices)-1]; last.Start || last.FinalError != "Retry cancelled" {
		t.Errorf("last notice %+v", last)
	}
}

func TestFinishUsage(t *testing.T) {
	u := Usage{Input: 1000, Output: 500, CacheRead: 2000, CacheWrite: 100}
	FinishUsage(&u, ModelCost{Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75})
	if u.TotalTokens != 3600 || u.Cost.Total < 0.011474 || u.Cost.Total > 0.011476 {
		t.Fatalf("%+v", u)
	}
}
