package subagent

// schedules.go: deferred Agent calls. A schedule starts a background child when its time
// comes (once, or again and again); the child's end reaches the session as any background
// child's does. Every change hands the whole list to the host's save function, which keeps it
// in the session file, so that the session opened again (RestoreSchedules) sets them again.

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Scheduled is one deferred Agent call.
type Scheduled struct {
	ID    string
	When  string    // the schedule as written: "in 10m", "every 1h"
	Next  time.Time // its next run
	Spec  Spec
	Runs  []string // the agents it has started since the session was opened
	Error string   // why its last run could not start, or could not be saved
}

type schedule struct {
	s    Scheduled
	w    When
	stop func() bool
}

// schedules is a Manager's list; mu is held while the save function writes.
type schedules struct {
	mu     sync.Mutex
	list   []*schedule // in the order they were made
	serial int
	save   func([]Scheduled) error
}

// MaxSchedules is how many schedules one session may hold: each change writes the whole list
// to the session file, and a model that schedules in a loop must meet an end.
const MaxSchedules = 32

var errSchedulingOff = errors.New("schedule: scheduling is off; [subagents] scheduling = true in pi.toml turns it on")

// Scheduling reports whether this manager takes schedules (Options.Scheduling).
func (m *Manager) Scheduling() bool { return m.opts.Scheduling }

func (m *Manager) clock() Clock {
	if m.opts.Clock == nil {
		return systemClock{}
	}
	return m.opts.Clock
}

// Schedule registers s to run in the background as when says (see ParseWhen) and returns it.
func (m *Manager) Schedule(s Spec, when string) (Scheduled, error) {
	if !m.opts.Scheduling {
		return Scheduled{}, errSchedulingOff
	}
	w, err := ParseWhen(when, m.clock().Now())
	if err == nil {
		s, err = m.checkScheduled(s)
	}
	if err != nil {
		return Scheduled{}, err
	}
	m.sched.mu.Lock()
	defer m.sched.mu.Unlock()
	switch {
	case m.life.Err() != nil:
		return Scheduled{}, errors.New("schedule: the session is closing")
	case len(m.sched.list) >= MaxSchedules:
		return Scheduled{}, fmt.Errorf("schedule: this session has %d schedules, the most it may hold; cancel one first (/agents cancel ID)", MaxSchedules)
	}
	m.sched.serial++
	e := &schedule{s: Scheduled{ID: "schedule-" + strconv.Itoa(m.sched.serial), When: w.Text, Next: w.First, Spec: s}, w: w}
	m.sched.list = append(m.sched.list, e)
	m.arm(e)
	if err := m.saveLocked(); err != nil { // a schedule the file does not hold would not come back: none
		e.stop()
		m.sched.list = m.sched.list[:len(m.sched.list)-1]
		return Scheduled{}, fmt.Errorf("schedule %q: keeping it in the session file: %w", when, err)
	}
	return e.s, nil
}

// checkScheduled is s as each of its runs starts it, once what it names is known to exist.
func (m *Manager) checkScheduled(s Spec) (Spec, error) {
	if strings.TrimSpace(s.Prompt) == "" {
		return s, errors.New("prompt is empty")
	}
	if s.Resume != "" {
		return s, errors.New("resume: a scheduled run cannot continue an agent by its id (ids do not outlive the session); name a session_file")
	}
	typ, err := m.typeNamed(cmpOr(s.Type, "general-purpose"))
	if err != nil {
		return s, err
	}
	if s.SessionFile != "" {
		if s.SessionFile, err = m.sessionFile(s.SessionFile); err != nil {
			return s, err
		}
	}
	s.Type, s.Background = typ.Name, true
	return s, nil
}

// timerStep is the longest a schedule's timer waits before it looks at the wall clock again:
// a timer counts the time the machine runs, so after a laptop's sleep (or the clock set
// right) "at 14:30" would otherwise come late by as long as it slept.
const timerStep = time.Minute

// arm sets e's timer for its next run (at once when that has passed), or for a look at the
// clock a timerStep on. Called with sched.mu held.
func (m *Manager) arm(e *schedule) {
	e.stop = m.clock().AfterFunc(min(e.s.Next.Sub(m.clock().Now()), timerStep), func() { m.fire(e) })
}

// fire starts e's run, then sets its next one or, for a schedule that runs once, drops it.
func (m *Manager) fire(e *schedule) {
	m.sched.mu.Lock()
	defer m.sched.mu.Unlock()
	if m.life.Err() != nil || !slices.Contains(m.sched.list, e) { // closed, cancelled or replaced meanwhile
		return
	}
	if m.clock().Now().Before(e.s.Next) { // a look at the clock: not yet
		m.arm(e)
		return
	}
	id, err := m.start(m.life, e.s.Spec, e.s.ID)
	failedBefore := e.s.Error != ""
	e.s.Error = ""
	if err != nil {
		e.s.Error = err.Error()
	} else {
		e.s.Runs = append(e.s.Runs, id)
	}
	if next := e.w.Following(e.s.Next, m.clock().Now()); !next.IsZero() {
		e.s.Next = next
		m.arm(e)
	} else {
		m.sched.list = slices.DeleteFunc(m.sched.list, func(x *schedule) bool { return x == e })
	}
	if serr := m.saveLocked(); serr != nil {
		e.s.Error = strings.TrimPrefix(e.s.Error+"; ", "; ") + "keeping the schedules in the session file: " + serr.Error()
	}
	if err != nil && !failedBefore && m.opts.ScheduleFailed != nil { // once, not at every hour it fails again
		go m.opts.ScheduleFailed(e.s) // the host sends a notice, which may wait for the session
	}
}

// Cancel drops a schedule: it starts no more runs (those it started go on).
func (m *Manager) Cancel(id string) error {
	m.sched.mu.Lock()
	defer m.sched.mu.Unlock()
	i := slices.IndexFunc(m.sched.list, func(e *schedule) bool { return e.s.ID == id })
	if i < 0 {
		return fmt.Errorf("no schedule %q in this session; /agents lists them", id)
	}
	e := m.sched.list[i]
	e.stop()
	m.sched.list = slices.Delete(m.sched.list, i, i+1)
	if err := m.saveLocked(); err != nil { // kept, as the file still has it
		m.sched.list = slices.Insert(m.sched.list, i, e)
		m.arm(e)
		return fmt.Errorf("cancel %s: keeping the change in the session file: %w", id, err)
	}
	return nil
}

// Schedules lists the schedules, oldest first.
func (m *Manager) Schedules() []Scheduled {
	m.sched.mu.Lock()
	defer m.sched.mu.Unlock()
	return m.snapshotLocked()
}

func (m *Manager) snapshotLocked() []Scheduled {
	out := make([]Scheduled, 0, len(m.sched.list))
	for _, e := range m.sched.list {
		s := e.s
		s.Runs = slices.Clone(s.Runs)
		out = append(out, s)
	}
	return out
}

func (m *Manager) saveLocked() error {
	if m.sched.save == nil {
		return nil
	}
	return m.sched.save(m.snapshotLocked())
}

// RestoreSchedules replaces the schedules with list, as a session file kept them, and saves
// every later change with save. A run whose time passed while the session was closed starts
// at once (a repeating one then keeps its rhythm). Entries that cannot be used are left out
// and reported. Schedules made before the first session was attached (a script's, as it
// loads) join the first one. Without Options.Scheduling it sets nothing.
func (m *Manager) RestoreSchedules(list []Scheduled, save func([]Scheduled) error) (problems []error) {
	m.sched.mu.Lock()
	defer m.sched.mu.Unlock()
	var unsaved []*schedule
	if m.sched.save == nil {
		unsaved = m.sched.list
	}
	for _, e := range m.sched.list {
		e.stop()
	}
	m.sched.list, m.sched.save = nil, save
	if !m.opts.Scheduling || m.life.Err() != nil {
		return nil
	}
	for _, s := range list {
		e, err := m.restored(s)
		if err != nil {
			problems = append(problems, fmt.Errorf("schedule %s (%s): %w", s.ID, s.When, err))
			continue
		}
		if n, err := strconv.Atoi(strings.TrimPrefix(s.ID, "schedule-")); err == nil && n > m.sched.serial {
			m.sched.serial = n
		}
		m.sched.list = append(m.sched.list, e)
		m.arm(e)
	}
	for _, e := range unsaved {
		if slices.ContainsFunc(m.sched.list, func(x *schedule) bool { return x.s.ID == e.s.ID }) {
			m.sched.serial++
			e.s.ID = "schedule-" + strconv.Itoa(m.sched.serial)
		}
		m.sched.list = append(m.sched.list, e)
		m.arm(e)
	}
	if len(unsaved) > 0 {
		if err := m.saveLocked(); err != nil {
			problems = append(problems, fmt.Errorf("keeping the schedules made before the session opened: %w", err))
		}
	}
	return problems
}

func (m *Manager) restored(s Scheduled) (*schedule, error) {
	var w When
	var err error
	switch {
	case s.ID == "" || slices.ContainsFunc(m.sched.list, func(e *schedule) bool { return e.s.ID == s.ID }):
		return nil, errors.New("no id, or another schedule's")
	case s.Next.IsZero():
		return nil, errors.New("no next run")
	case strings.HasPrefix(strings.ToLower(s.When), "every"): // its rhythm; the next run is the file's
		w, err = ParseWhen(s.When, m.clock().Now())
	default:
		w = When{Text: s.When}
	}
	if err == nil {
		s.Spec, err = m.checkScheduled(s.Spec)
	}
	if err != nil {
		return nil, err
	}
	s.Runs = nil
	return &schedule{s: s, w: w}, nil
}

func (m *Manager) stopSchedules() {
	m.sched.mu.Lock()
	defer m.sched.mu.Unlock()
	for _, e := range m.sched.list {
		e.stop()
	}
}

// Line is a schedule in one line: id, when, type, description, the next run (as of now).
func (s Scheduled) Line(now time.Time) string {
	line := fmt.Sprintf("%s %s · %s · %s · next %s (in %s)", s.ID, s.When, s.Spec.Type, s.Spec.Description,
		s.Next.In(now.Location()).Format("2006-01-02 15:04"), roundedUntil(s.Next.Sub(now)))
	if s.Error != "" {
		line += " · last run: " + s.Error
	}
	return line
}

// roundedUntil is d as "45s", "10m", "1h30m" or "2d3h": to the second under a minute, to
// the minute under a day, to the hour beyond.
func roundedUntil(d time.Duration) string {
	if s := max(d, 0).Round(time.Second); s < time.Minute {
		return s.String()
	}
	if d >= 24*time.Hour {
		d = d.Round(time.Hour)
		days, hours := d/(24*time.Hour), d%(24*time.Hour)/time.Hour
		if hours == 0 {
			return fmt.Sprintf("%dd", days)
		}
		return fmt.Sprintf("%dd%dh", days, hours)
	}
	d = d.Round(time.Minute)
	h, m := d/time.Hour, d%time.Hour/time.Minute
	switch {
	case h == 0:
		return fmt.Sprintf("%dm", m)
	case m == 0:
		return fmt.Sprintf("%dh", h)
	}
	return fmt.Sprintf("%dh%dm", h, m)
}
