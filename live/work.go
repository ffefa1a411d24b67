package live

// work.go is the registry of work in flight in one live session: the run, a manual compaction,
// the user's shell command and a branch summary. It is what Abort cancels and Quiesce waits
// for, so no front end keeps cancels or run state of its own.

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
)

// workKind names one kind of work; at most one of each runs at a time.
type workKind string

const (
	workRun           workKind = "run"
	workCompaction    workKind = "compaction"
	workBash          workKind = "shell command"
	workBranchSummary workKind = "branch summary"
	workSession       workKind = "session change"
)

// ownsTranscript tells the kinds that change the agent's transcript: they exclude each other,
// so the transcript has one writer at a time.
func (k workKind) ownsTranscript() bool { return k != workBash }

type workItem struct {
	cancel context.CancelFunc
	done   chan struct{}
}

// workRegistry holds the work in flight. Its zero value is not ready; use newWorkRegistry.
type workRegistry struct {
	mu    sync.Mutex
	items map[workKind]*workItem
}

func newWorkRegistry() *workRegistry { return &workRegistry{items: map[workKind]*workItem{}} }

// busyError says what is in the way of new work.
type busyError struct{ want, running workKind }

// ErrRunning and ErrCompacting are what a refusal wraps when a prompt's run, or a
// compaction, holds the transcript; a front end may word its own advice for them.
var (
	ErrRunning    = errors.New("a run holds the transcript")
	ErrCompacting = errors.New("a compaction holds the transcript")
)

func (e *busyError) Is(target error) bool {
	return target == ErrRunning && e.running == workRun || target == ErrCompacting && e.running == workCompaction
}

func (e *busyError) Error() string {
	switch {
	case e.running == workRun && e.want == workRun:
		return "the agent is working on a prompt: steer it or queue a follow-up instead"
	case e.running == workCompaction:
		return "the conversation is being compacted: wait for it to finish"
	case e.want == e.running:
		return fmt.Sprintf("a %s is already running", e.want)
	}
	return fmt.Sprintf("cannot start a %s while a %s is running", e.want, e.running)
}

// begin registers work of kind and returns its context, which Abort cancels, and the function
// that ends it. It refuses while the same kind runs, or another kind that owns the transcript
// when this one does too.
func (w *workRegistry) begin(ctx context.Context, kind workKind) (context.Context, func(), error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.blockerLocked(kind); err != nil {
		return nil, nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	item := &workItem{cancel: cancel, done: make(chan struct{})}
	w.items[kind] = item
	end := sync.OnceFunc(func() {
		cancel()
		w.mu.Lock()
		delete(w.items, kind)
		w.mu.Unlock()
		close(item.done)
	})
	return ctx, end, nil
}

func (w *workRegistry) blockerLocked(kind workKind) error {
	if _, ok := w.items[kind]; ok {
		return &busyError{want: kind, running: kind}
	}
	if !kind.ownsTranscript() {
		return nil
	}
	for k := range w.items {
		if k.ownsTranscript() {
			return &busyError{want: kind, running: k}
		}
	}
	return nil
}

// running reports whether work of kind is in flight.
func (w *workRegistry) running(kind workKind) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	_, ok := w.items[kind]
	return ok
}

// wait blocks until the work of kind in flight, if any, has ended, or ctx is done.
func (w *workRegistry) wait(ctx context.Context, kind workKind) error {
	w.mu.Lock()
	it := w.items[kind]
	w.mu.Unlock()
	if it == nil {
		return nil
	}
	select {
	case <-it.done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("waiting for the %s to end: %w", kind, ctx.Err())
	}
}

// waitAll blocks until the work in flight when it was called has ended, or ctx is done; it
// reports whether there was any.
func (w *workRegistry) waitAll(ctx context.Context) (waited bool, err error) {
	items := w.matching(nil)
	for _, it := range items {
		select {
		case <-it.done:
		case <-ctx.Done():
			return true, fmt.Errorf("waiting for the work in flight to end: %w", ctx.Err())
		}
	}
	return len(items) > 0, nil
}

// cancel stops the work of the given kinds, or all of it when none are named; it does not wait.
func (w *workRegistry) cancel(kinds ...workKind) {
	for _, it := range w.matching(kinds) {
		it.cancel()
	}
}

// stop cancels the work of the given kinds (all of it when none are named) and waits until it
// has ended.
func (w *workRegistry) stop(kinds ...workKind) {
	for _, it := range w.matching(kinds) {
		it.cancel()
		<-it.done
	}
}

func (w *workRegistry) matching(kinds []workKind) []*workItem {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []*workItem
	for k, it := range w.items {
		if len(kinds) == 0 || slices.Contains(kinds, k) {
			out = append(out, it)
		}
	}
	return out
}

// whileIdle runs fn when no transcript-owning work is registered, holding the registry so that
// none can begin meanwhile; it reports whether fn ran.
func (w *workRegistry) whileIdle(fn func()) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	for k := range w.items {
		if k.ownsTranscript() {
			return false
		}
	}
	fn()
	return true
}

// sendsInFlight counts the messages scripts sent (pi.send_user_message) that have not been
// dealt with yet, so that a script command, and print mode, can wait for what they started.
type sendsInFlight struct {
	mu   sync.Mutex
	n    int
	none chan struct{} // closed when n drops to zero
}

func (s *sendsInFlight) add() {
	s.mu.Lock()
	if s.n == 0 {
		s.none = make(chan struct{})
	}
	s.n++
	s.mu.Unlock()
}

func (s *sendsInFlight) done() {
	s.mu.Lock()
	if s.n--; s.n == 0 {
		close(s.none)
	}
	s.mu.Unlock()
}

// wait returns once every message counted has been dealt with, or ctx ends.
func (s *sendsInFlight) wait(ctx context.Context) {
	s.mu.Lock()
	none := s.none
	busy := s.n > 0
	s.mu.Unlock()
	if !busy {
		return
	}
	select {
	case <-none:
	case <-ctx.Done():
	}
}
