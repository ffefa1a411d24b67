package subagent

// clock.go: where a Manager's schedules read the time and set their timers. A test (or a
// program that drives time itself) passes a ManualClock and moves it; nothing here sleeps.

import (
	"sync"
	"time"
)

// Clock is the time a Manager's schedules run on.
type Clock interface {
	Now() time.Time
	// AfterFunc calls f on its own goroutine once d has passed; stop cancels a call that has
	// not started and reports whether it did.
	AfterFunc(d time.Duration, f func()) (stop func() bool)
}

// systemClock is the real time.
type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now() }
func (systemClock) AfterFunc(d time.Duration, f func()) func() bool {
	return time.AfterFunc(d, f).Stop
}

// ManualClock is a Clock that moves only when told to (Advance, Jump): the timers that come
// due run then, each on its own goroutine as time.AfterFunc's do.
type ManualClock struct {
	mu     sync.Mutex
	now    time.Time
	timers []*manualTimer
}

type manualTimer struct {
	at time.Time
	f  func()
}

// NewManualClock is a clock standing at now.
func NewManualClock(now time.Time) *ManualClock { return &ManualClock{now: now} }

func (c *ManualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *ManualClock) AfterFunc(d time.Duration, f func()) func() bool {
	c.mu.Lock()
	t := &manualTimer{at: c.now.Add(d), f: f}
	c.timers = append(c.timers, t)
	c.mu.Unlock()
	if d <= 0 {
		c.Advance(0)
	}
	return func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		for i, x := range c.timers {
			if x == t {
				c.timers = append(c.timers[:i], c.timers[i+1:]...)
				return true
			}
		}
		return false
	}
}

// Advance moves the clock on by d and starts the timers that have come due.
func (c *ManualClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	var due, rest []*manualTimer
	for _, t := range c.timers {
		if t.at.After(c.now) {
			rest = append(rest, t)
		} else {
			due = append(due, t)
		}
	}
	c.timers = rest
	c.mu.Unlock()
	for _, t := range due {
		go t.f()
	}
}

// Jump moves the wall clock on by d as a machine's sleep does: the timers do not count that
// time, so each comes due d later than it would have.
func (c *ManualClock) Jump(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	for _, t := range c.timers {
		t.at = t.at.Add(d)
	}
}

// Pending is how many timers are set and not yet due: a test waits for a schedule to be armed.
func (c *ManualClock) Pending() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.timers)
}
