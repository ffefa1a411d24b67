package termui

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"pi/tui"
)

// resumesearch.go is /resume's search as the user types: what the sessions hold, not only
// their rows, narrows the list.

const (
	// resumeDebounce is how long a query waits for the next key before its search starts.
	resumeDebounce = 150 * time.Millisecond
	// resumeMaxMatches caps one search: past it, typing on narrows the list further.
	resumeMaxMatches = 200
)

// resumeSearch runs one search at a time for the /resume picker: a new query cancels the
// search of the one before (through its context) and starts once no key has come for
// resumeDebounce; matches go to the picker as the session finds them.
type resumeSearch struct {
	ctx   context.Context
	sess  Session
	refs  []string
	index map[string]int // Ref → the picker's option

	mu     sync.Mutex
	timer  *time.Timer
	cancel context.CancelFunc
}

func newResumeSearch(ctx context.Context, sess Session, list []Resumable) *resumeSearch {
	r := &resumeSearch{ctx: ctx, sess: sess, index: make(map[string]int, len(list))}
	for i, s := range list {
		r.refs = append(r.refs, s.Ref)
		r.index[s.Ref] = i
	}
	return r
}

// query is the picker's onQuery: it is called on the input goroutine, so it only schedules.
func (r *resumeSearch) query(q string, res *tui.SearchResults) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.stopLocked()
	if strings.TrimSpace(q) == "" {
		res.Done("")
		return
	}
	ctx, cancel := context.WithCancel(r.ctx)
	r.cancel = cancel
	r.timer = time.AfterFunc(resumeDebounce, func() { r.run(ctx, q, res) })
}

func (r *resumeSearch) run(ctx context.Context, q string, res *tui.SearchResults) {
	matched := 0
	err := r.sess.SearchSessions(ctx, q, r.refs, func(ref, line string) bool {
		if i, ok := r.index[ref]; ok {
			res.Found(i, line)
			matched++
		}
		return matched < resumeMaxMatches
	})
	switch {
	case ctx.Err() != nil: // a newer query, or the picker has closed
	case err != nil:
		res.Done("search failed: " + err.Error())
	case matched >= resumeMaxMatches:
		res.Done(fmt.Sprintf("stopped at %d matches: type on to narrow it", resumeMaxMatches))
	default:
		res.Done("")
	}
}

// stop ends the search in flight, once the picker has closed.
func (r *resumeSearch) stop() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.stopLocked()
}

func (r *resumeSearch) stopLocked() {
	if r.timer != nil {
		r.timer.Stop()
	}
	if r.cancel != nil {
		r.cancel()
	}
}
