package subagent

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"pi/internal/testwait"
	"pi/provider"
	"pi/session"
)

// scheduleRig is a manager on a manual clock whose children end at once, with the lists it
// saved and the notices it sent.
type scheduleRig struct {
	m       *Manager
	clock   *ManualClock
	mu      sync.Mutex
	saved   [][]Scheduled
	notices []string
	failed  []Scheduled
	saveErr error
}

func newScheduleRig(t *testing.T, opts Options) *scheduleRig {
	t.Helper()
	r := &scheduleRig{clock: NewManualClock(now)}
	release := make(chan struct{})
	close(release)
	opts.Types, opts.Scheduling, opts.Clock, opts.Cwd = Builtins(), true, r.clock, cmpOr(opts.Cwd, t.TempDir())
	if opts.Factory == nil {
		opts.Factory = func(ctx context.Context, l Launch) (Child, error) { return &doneChild{prompt: l.Prompt}, nil }
	}
	opts.Finished = func(res Result) { r.mu.Lock(); r.notices = append(r.notices, Notice(res)); r.mu.Unlock() }
	opts.ScheduleFailed = func(s Scheduled) { r.mu.Lock(); r.failed = append(r.failed, s); r.mu.Unlock() }
	r.m = New(opts)
	r.m.RestoreSchedules(nil, func(l []Scheduled) error {
		r.mu.Lock()
		defer r.mu.Unlock()
		if r.saveErr != nil {
			return r.saveErr
		}
		r.saved = append(r.saved, l)
		return nil
	})
	t.Cleanup(r.m.Close)
	return r
}

// doneChild answers its prompt at once.
type doneChild struct{ prompt string }

func (c *doneChild) Run(context.Context) (Outcome, error) {
	return Outcome{Answer: "did: " + c.prompt, Turns: 1}, nil
}
func (c *doneChild) Steer(string) error           { return nil }
func (c *doneChild) Close()                       {}
func (c *doneChild) Messages() []provider.Message { return nil }

func (r *scheduleRig) noticeCount() int { r.mu.Lock(); defer r.mu.Unlock(); return len(r.notices) }

func (r *scheduleRig) lastSaved() []Scheduled {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.saved) == 0 {
		return nil
	}
	return r.saved[len(r.saved)-1]
}

// A run "in 10m" starts nothing before its time, then one background child, whose end
// reaches the session as a background child's notice naming the schedule; the schedule then
// is gone, from the list and from what was saved.
func TestScheduleInRunsOnceAtItsTime(t *testing.T) {
	r := newScheduleRig(t, Options{})
	s, err := r.m.Schedule(Spec{Prompt: "check the build", Description: "build check"}, "in 10m")
	if err != nil {
		t.Fatal(err)
	}
	if s.ID != "schedule-1" || !s.Next.Equal(now.Add(10*time.Minute)) || s.Spec.Type != "general-purpose" {
		t.Fatalf("scheduled %+v", s)
	}
	if saved := r.lastSaved(); len(saved) != 1 || saved[0].ID != s.ID {
		t.Fatalf("saved %+v, want the new schedule", saved)
	}
	r.clock.Advance(9*time.Minute + 59*time.Second) // past its first look at the clock
	testwait.Until(t, "the timer set for the last second", func() bool { return r.clock.Pending() == 1 })
	if len(r.m.List()) != 0 {
		t.Fatalf("before its time: children %v", r.m.List())
	}
	r.clock.Advance(time.Second)
	testwait.Until(t, "the scheduled child's notice", func() bool { return r.noticeCount() == 1 })
	kids := r.m.List()
	if len(kids) != 1 || kids[0].Schedule != s.ID || !kids[0].Background || kids[0].Answer != "did: check the build" {
		t.Fatalf("children %+v", kids)
	}
	if n := r.notices[0]; !strings.Contains(n, "started by schedule-1") || !strings.Contains(n, kids[0].ID) {
		t.Errorf("notice %q", n)
	}
	if left := r.m.Schedules(); len(left) != 0 || len(r.lastSaved()) != 0 {
		t.Errorf("after its one run: schedules %+v, saved %+v", left, r.lastSaved())
	}
}

// "every 1h" runs at each hour and stays listed with its next time; cancelled, it starts no
// more runs and the saved list no longer has it.
func TestScheduleEveryRepeatsUntilCancelled(t *testing.T) {
	r := newScheduleRig(t, Options{})
	s, err := r.m.Schedule(Spec{Prompt: "poll", Description: "poller"}, "every 1h")
	if err != nil {
		t.Fatal(err)
	}
	for run := 1; run <= 3; run++ {
		r.clock.Advance(time.Hour)
		testwait.Until(t, "the next run's notice", func() bool { return r.noticeCount() == run })
		testwait.Until(t, "the schedule set again", func() bool { return r.clock.Pending() == 1 })
		list := r.m.Schedules()
		if len(list) != 1 || !list[0].Next.Equal(now.Add(time.Duration(run+1)*time.Hour)) || len(list[0].Runs) != run {
			t.Fatalf("after run %d: %+v", run, list)
		}
		if !strings.Contains(list[0].Line(r.clock.Now()), "next 2026-12-01 "+list[0].Next.Format("15:04")+" (in 1h)") {
			t.Errorf("line %q", list[0].Line(r.clock.Now()))
		}
	}
	if err := r.m.Cancel(s.ID); err != nil {
		t.Fatal(err)
	}
	r.clock.Advance(5 * time.Hour)
	if len(r.m.List()) != 3 || len(r.m.Schedules()) != 0 || len(r.lastSaved()) != 0 || r.clock.Pending() != 0 {
		t.Errorf("after cancel: %d children, schedules %+v, saved %+v", len(r.m.List()), r.m.Schedules(), r.lastSaved())
	}
	if err := r.m.Cancel(s.ID); err == nil || !strings.Contains(err.Error(), "no schedule") {
		t.Errorf("cancelling it twice: %v", err)
	}
}

// What a schedule cannot be: refused with the reason, and nothing is kept.
func TestScheduleRefusals(t *testing.T) {
	cwd := t.TempDir()
	cases := []struct {
		name string
		opts Options
		spec Spec
		when string
		err  string
	}{
		{"scheduling off", Options{}, Spec{Prompt: "x"}, "in 1m", "scheduling = true"},
		{"bad grammar", Options{Scheduling: true}, Spec{Prompt: "x"}, "soon", "neither in, at nor every"},
		{"past time", Options{Scheduling: true}, Spec{Prompt: "x"}, "at 2020-01-01 10:00", "in the past"},
		{"empty prompt", Options{Scheduling: true}, Spec{Prompt: " "}, "in 1m", "prompt is empty"},
		{"resume", Options{Scheduling: true}, Spec{Prompt: "x", Resume: "agent-1"}, "in 1m", "name a session_file"},
		{"unknown type", Options{Scheduling: true}, Spec{Prompt: "x", Type: "nope"}, "in 1m", `no agent type "nope"`},
		{"session file elsewhere", Options{Scheduling: true, Cwd: cwd}, Spec{Prompt: "x", SessionFile: "/etc/x.jsonl"}, "in 1m", "not in this project"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			clock := NewManualClock(now)
			tc.opts.Clock, tc.opts.Types, tc.opts.Factory = clock, Builtins(), func(context.Context, Launch) (Child, error) { return &doneChild{}, nil }
			m := New(tc.opts)
			defer m.Close()
			_, err := m.Schedule(tc.spec, tc.when)
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("error %v, want one saying %q", err, tc.err)
			}
			if len(m.Schedules()) != 0 || clock.Pending() != 0 {
				t.Errorf("a refused schedule was kept: %+v", m.Schedules())
			}
		})
	}
}

// A schedule the session file could not take is not made (it would not come back); a cancel
// the file could not take leaves the schedule in place.
func TestScheduleNotSavedIsNotMade(t *testing.T) {
	r := newScheduleRig(t, Options{})
	s, err := r.m.Schedule(Spec{Prompt: "x"}, "every 1h")
	if err != nil {
		t.Fatal(err)
	}
	r.mu.Lock()
	r.saveErr = errors.New("disk full")
	r.mu.Unlock()
	if _, err := r.m.Schedule(Spec{Prompt: "y"}, "in 5m"); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("schedule with a failing file: %v", err)
	}
	if err := r.m.Cancel(s.ID); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("cancel with a failing file: %v", err)
	}
	if list := r.m.Schedules(); len(list) != 1 || list[0].ID != s.ID || r.clock.Pending() != 1 {
		t.Errorf("schedules %+v, timers %d: want the first one, still set", list, r.clock.Pending())
	}
}

// A schedule's runs hold a place under max_children only while they run: with a limit of
// one, a run that comes while the last still runs cannot start and is reported, once however
// often it fails in a row; the schedule stays, and runs again once there is room.
func TestScheduleRunPastTheLimitIsReported(t *testing.T) {
	var running, most atomic.Int32
	release := make(chan struct{})
	r := newScheduleRig(t, Options{Tree: NewTree(0, 1), Factory: func(context.Context, Launch) (Child, error) {
		return &fake{release: release, steered: make(chan string, 1), running: &running, most: &most}, nil
	}})
	if _, err := r.m.Schedule(Spec{Prompt: "x", Description: "poller"}, "every 1h"); err != nil {
		t.Fatal(err)
	}
	tick := func(what string) {
		r.clock.Advance(time.Hour)
		testwait.Until(t, what, func() bool { return r.clock.Pending() == 1 && r.clock.Now().Before(r.m.Schedules()[0].Next) })
	}
	tick("the first run started")
	testwait.Until(t, "the first run running", func() bool { return running.Load() == 1 })
	tick("the second run refused")
	tick("the third run refused")
	r.mu.Lock()
	failed := slices.Clone(r.failed)
	r.mu.Unlock()
	if len(failed) != 1 || !strings.Contains(ScheduleNotice(failed[0]), "could not start: subagent limit 1 reached") {
		t.Errorf("reports %+v, want one saying the limit", failed)
	}
	if list := r.m.Schedules(); len(list) != 1 || !strings.Contains(list[0].Line(r.clock.Now()), "last run: subagent limit") {
		t.Errorf("schedules %+v", list)
	}
	close(release)
	testwait.Until(t, "the first run's notice", func() bool { return r.noticeCount() == 1 })
	tick("the fourth run started")
	testwait.Until(t, "the fourth run's notice", func() bool { return r.noticeCount() == 2 })
	if list := r.m.Schedules(); len(list[0].Runs) != 2 || list[0].Error != "" {
		t.Errorf("after room came back: %+v", list)
	}
}

// A child's own Agent tool takes no schedule, even where the top-level session's does.
func TestScriptedScheduleOnlyAtTheTop(t *testing.T) {
	r := newScheduleRig(t, Options{})
	top := NewScripted(r.m, true, nil, nil)
	child := NewScripted(r.m, true, nil, &Self{ID: "agent-1", Depth: 1, Nesting: true})
	if !top.Scheduling() || child.Scheduling() {
		t.Errorf("scheduling: top %v, child %v", top.Scheduling(), child.Scheduling())
	}
	if _, err := child.Start(context.Background(), map[string]any{"prompt": "x", "schedule": "in 1m"}); err == nil ||
		!strings.Contains(err.Error(), "nor schedule") {
		t.Errorf("a child's schedule: %v", err)
	}
	id, err := top.Start(context.Background(), map[string]any{"prompt": "x", "description": "d", "schedule": "in 1m"})
	if err != nil || id != "schedule-1" {
		t.Fatalf("the top's schedule: %q, %v", id, err)
	}
	list := top.Schedules()
	if sc, _ := list[0].(map[string]any); len(list) != 1 || sc["next_in"] != "1m" || sc["schedule"] != "in 1m" {
		t.Errorf("schedules as scripts see them: %v", list)
	}
}

// The schedules kept in a session file come back when it is opened again: one whose time
// passed meanwhile runs at once, a repeating one keeps its rhythm, ids go on from the highest.
func TestSchedulesSurviveTheSessionFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.jsonl")
	sess := session.CreateAt(path, dir)
	if _, err := sess.AppendMessage(provider.Message{Role: provider.RoleAssistant, Content: []provider.Block{{Type: provider.BlockText, Text: "hi"}}}); err != nil {
		t.Fatal(err)
	}
	first := newScheduleRig(t, Options{Cwd: dir})
	first.m.RestoreSchedules(nil, func(l []Scheduled) error { return SaveSchedules(sess, l) })
	for _, when := range []string{"in 10m", "every 1h", "at 2026-12-02 10:00"} {
		if _, err := first.m.Schedule(Spec{Prompt: "task " + when, Description: when, MaxTurns: 3, Worktree: when == "every 1h",
			SessionFile: "notes.jsonl"}, when); err != nil {
			t.Fatal(err)
		}
	}
	first.m.Close()
	if err := sess.Close(); err != nil {
		t.Fatal(err)
	}

	reopened, err := session.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer reopened.Close()
	list, err := LoadSchedules(reopened)
	if err != nil || len(list) != 3 {
		t.Fatalf("loaded %+v, %v", list, err)
	}
	if s := list[1]; s.When != "every 1h" || !s.Spec.Worktree || s.Spec.MaxTurns != 3 || s.Spec.SessionFile != filepath.Join(dir, "notes.jsonl") {
		t.Errorf("read back %+v", s)
	}
	second := newScheduleRig(t, Options{Cwd: dir})
	second.clock.Advance(2*time.Hour + 30*time.Minute) // the session was closed meanwhile
	if problems := second.m.RestoreSchedules(list, func(l []Scheduled) error { return SaveSchedules(reopened, l) }); len(problems) != 0 {
		t.Fatal(problems)
	}
	testwait.Until(t, "the two missed runs", func() bool { return second.noticeCount() == 2 })
	testwait.Until(t, "the hourly one set again", func() bool { return len(second.m.Schedules()) == 2 && second.clock.Pending() == 2 })
	left := second.m.Schedules()
	if left[0].When != "every 1h" || !left[0].Next.Equal(now.Add(3*time.Hour)) || left[1].When != "at 2026-12-02 10:00" {
		t.Errorf("left %+v", left)
	}
	s, err := second.m.Schedule(Spec{Prompt: "more"}, "in 1m")
	if err != nil || s.ID != "schedule-4" {
		t.Errorf("a new schedule after the restored ones: %q, %v", s.ID, err)
	}
	again, _ := LoadSchedules(reopened)
	if len(again) != 3 {
		t.Errorf("the file now holds %d schedules, want 3", len(again))
	}
	clone, err := reopened.Clone()
	if err != nil {
		t.Fatal(err)
	}
	defer clone.Close()
	entries, _ := clone.Entries()
	if !slices.ContainsFunc(entries, func(e session.Entry) bool { return e.CustomType == ScheduleEntryType }) {
		t.Fatal("the clone has no schedules entry to ignore")
	}
	if copied, err := LoadSchedules(clone); err != nil || len(copied) != 0 {
		t.Errorf("a clone took over the schedules: %+v, %v", copied, err)
	}
}

// A damaged schedules entry is an error that names what failed; a bad record is left out of a
// restore with the reason.
func TestSchedulesBadRecords(t *testing.T) {
	if _, _, err := DecodeSchedules([]byte(`{"schedules":[{"id":"schedule-1","isolation":"chroot"}]}`)); err == nil {
		t.Error("an unknown isolation was read")
	}
	if _, _, err := DecodeSchedules([]byte(`{"schedules":7}`)); err == nil {
		t.Error("a number was read as the list")
	}
	r := newScheduleRig(t, Options{})
	problems := r.m.RestoreSchedules([]Scheduled{
		{ID: "schedule-1", When: "in 5m", Spec: Spec{Prompt: "x"}},                             // no next run
		{ID: "schedule-2", When: "every 5s", Next: now, Spec: Spec{Prompt: "x"}},               // too often
		{ID: "schedule-3", When: "in 5m", Next: now.Add(time.Minute), Spec: Spec{Prompt: "x"}}, // fine
		{ID: "schedule-3", When: "in 5m", Next: now.Add(time.Minute), Spec: Spec{Prompt: "x"}}, // twice
	}, nil)
	if len(problems) != 3 || len(r.m.Schedules()) != 1 {
		t.Errorf("problems %v, kept %+v", problems, r.m.Schedules())
	}
}

func FuzzDecodeSchedules(f *testing.F) {
	f.Add([]byte(`{"schedules":[{"id":"schedule-1","schedule":"every 1h","next":"2026-12-01T10:00:00Z","prompt":"x","isolation":"worktree"}]}`))
	f.Add([]byte(`{}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		_, list, err := DecodeSchedules(raw)
		for _, s := range list {
			if err == nil && (!s.Spec.Background || s.Spec.MaxTurns < 0) {
				t.Fatalf("%q read as %+v", raw, s)
			}
		}
	})
}

// A schedule made before any session was attached (a script's, as it loads) is not dropped
// by the first session's schedules: it joins them, under a fresh id when its own is taken,
// and is saved there.
func TestScheduleMadeBeforeTheSessionJoinsIt(t *testing.T) {
	clock := NewManualClock(now)
	m := New(Options{Types: Builtins(), Scheduling: true, Clock: clock,
		Factory: func(context.Context, Launch) (Child, error) { return &doneChild{}, nil }})
	defer m.Close()
	if _, err := m.Schedule(Spec{Prompt: "early"}, "in 5m"); err != nil {
		t.Fatal(err)
	}
	var saved []Scheduled
	problems := m.RestoreSchedules([]Scheduled{{ID: "schedule-1", When: "every 1h", Next: now.Add(time.Hour), Spec: Spec{Prompt: "kept"}}},
		func(l []Scheduled) error { saved = l; return nil })
	list := m.Schedules()
	if len(problems) != 0 || len(list) != 2 || list[0].Spec.Prompt != "kept" || list[1].Spec.Prompt != "early" || list[1].ID != "schedule-2" {
		t.Fatalf("problems %v, schedules %+v", problems, list)
	}
	if len(saved) != 2 || clock.Pending() != 2 {
		t.Errorf("saved %+v, %d timers", saved, clock.Pending())
	}
}

// After the machine slept through a run's time, the run starts within a minute of waking,
// not as late as it slept: the timer looks at the wall clock every minute.
func TestScheduleRunsSoonAfterTheMachineSlept(t *testing.T) {
	r := newScheduleRig(t, Options{})
	if _, err := r.m.Schedule(Spec{Prompt: "x"}, "at 13:00"); err != nil { // three hours on
		t.Fatal(err)
	}
	r.clock.Jump(3*time.Hour + 10*time.Minute) // asleep until 13:10
	if r.noticeCount() != 0 || r.clock.Pending() != 1 {
		t.Fatalf("ran while asleep: %d notices", r.noticeCount())
	}
	r.clock.Advance(timerStep)
	testwait.Until(t, "the run, a minute after waking", func() bool { return r.noticeCount() == 1 })
}

// A session holds at most MaxSchedules: one more is refused with what to do.
func TestScheduleCountIsCapped(t *testing.T) {
	r := newScheduleRig(t, Options{})
	for i := range MaxSchedules {
		if _, err := r.m.Schedule(Spec{Prompt: "x"}, "every 1h"); err != nil {
			t.Fatalf("schedule %d: %v", i+1, err)
		}
	}
	if _, err := r.m.Schedule(Spec{Prompt: "x"}, "in 1m"); err == nil || !strings.Contains(err.Error(), "cancel one first") {
		t.Errorf("schedule %d: %v", MaxSchedules+1, err)
	}
	if len(r.m.Schedules()) != MaxSchedules {
		t.Errorf("%d schedules kept", len(r.m.Schedules()))
	}
}
