package live

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"pi/internal/testwait"
	"pi/provider"
	"pi/provider/faux"
	"pi/session"
	"pi/subagent"
)

// scheduleHome is a pi home whose pi.toml turns on the Agent tools and their schedules.
func scheduleHome(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "pi.toml"), []byte("[subagents]\nenabled = true\nscheduling = true\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return home
}

func scheduledSession(t *testing.T, p *faux.Provider, home, cwd string, clock subagent.Clock, choice session.Choice) *Session {
	t.Helper()
	h, err := New(context.Background(), Options{PiHome: home, Cwd: cwd, Provider: p, Clock: clock,
		ProviderModel: provider.Model{ID: "faux-1", Provider: "faux", API: "faux"}, Session: choice})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func scheduleCall(when string) faux.Step {
	return faux.Blocks(faux.Call("s1", "Agent", map[string]any{"prompt": "look at the sky", "description": "sky check", "schedule": when}))
}

// fireAndSettle moves the clock past the schedule's time and waits for its child and the
// parent's turn on the child's notice; it returns the parent's last request's text.
func fireAndSettle(t *testing.T, h *Session, p *faux.Provider, clock *subagent.ManualClock, by time.Duration) string {
	t.Helper()
	clock.Advance(by)
	testwait.Until(t, "the scheduled child", func() bool { return len(h.Children().List()) == 1 })
	ctx, cancel := context.WithTimeout(context.Background(), testwait.Deadline)
	defer cancel()
	h.Settle(ctx, true)
	reqs := p.Requests()
	var texts []string
	for _, m := range reqs[len(reqs)-1].Messages {
		texts = append(texts, m.TextContent())
	}
	return strings.Join(texts, " | ")
}

// An Agent call with schedule "in 10m" starts nothing then; when the (test) clock reaches
// its time the child runs in the background and its notice reaches the session, which
// answers it as it answers a background child's.
func TestScheduledSubagentRunsOnTheClock(t *testing.T) {
	p := faux.New(scheduleCall("in 10m"), faux.Text("scheduled"), faux.Text("the sky is blue"), faux.Text("noted the sky"))
	clock := subagent.NewManualClock(time.Date(2026, 12, 1, 10, 0, 0, 0, time.Local))
	h := scheduledSession(t, p, scheduleHome(t), t.TempDir(), clock, session.Choice{Dir: t.TempDir()})
	defer h.Close()
	if err := h.Send(context.Background(), Input{Text: "check the sky in ten minutes", Source: SourceRPC}); err != nil {
		t.Fatal(err)
	}
	if !offersSchedule(p.Requests()[0]) {
		t.Error("the Agent tool has no schedule parameter with scheduling on")
	}
	if tool := p.Requests()[1].Messages; !strings.Contains(tool[len(tool)-1].TextContent(), "schedule_id: schedule-1") {
		t.Fatalf("the Agent call's result: %q", tool[len(tool)-1].TextContent())
	}
	list := h.Children().Schedules()
	if len(list) != 1 || list[0].When != "in 10m" || !list[0].Next.Equal(clock.Now().Add(10*time.Minute)) || len(h.Children().List()) != 0 {
		t.Fatalf("schedules %+v, children %+v", list, h.Children().List())
	}
	seen := fireAndSettle(t, h, p, clock, 10*time.Minute)
	if !strings.Contains(seen, "started by schedule-1") || !strings.Contains(seen, "is done") {
		t.Errorf("the parent's request after the run: %q", seen)
	}
	if r := h.Children().List()[0]; r.Answer != "the sky is blue" || r.Schedule != "schedule-1" {
		t.Errorf("the child: %+v", r)
	}
	if len(h.Children().Schedules()) != 0 {
		t.Errorf("a run-once schedule is still listed: %+v", h.Children().Schedules())
	}
}

// A schedule is kept in the session file: the session closed (a served session's restart)
// and opened again has it, with the same next time, and it runs then; its run is recorded
// as done in the file, so a third opening has nothing left to run.
func TestScheduledSubagentSurvivesReopeningTheSession(t *testing.T) {
	home, cwd, dir := scheduleHome(t), t.TempDir(), t.TempDir()
	clock := subagent.NewManualClock(time.Date(2026, 12, 1, 10, 0, 0, 0, time.Local))
	first := faux.New(scheduleCall("at 10:30"), faux.Text("scheduled"))
	h := scheduledSession(t, first, home, cwd, clock, session.Choice{Dir: dir})
	if err := h.Send(context.Background(), Input{Text: "check the sky at half past", Source: SourceRPC}); err != nil {
		t.Fatal(err)
	}
	path, want := h.State().SessionFile, h.Children().Schedules()
	h.Close()
	if path == "" || len(want) != 1 {
		t.Fatalf("session file %q, schedules %+v", path, want)
	}

	clock.Advance(5 * time.Minute) // the restart took a while
	second := faux.New(faux.Text("the sky is grey"), faux.Text("noted the sky"))
	h = scheduledSession(t, second, home, cwd, clock, session.Choice{Dir: dir, Ref: path})
	got := h.Children().Schedules()
	if len(got) != 1 || got[0].ID != want[0].ID || !got[0].Next.Equal(want[0].Next) || got[0].Spec.Prompt != "look at the sky" {
		t.Fatalf("after reopening: %+v, want %+v", got, want)
	}
	seen := fireAndSettle(t, h, second, clock, 25*time.Minute)
	if !strings.Contains(seen, "started by schedule-1") {
		t.Errorf("the parent's request after the run: %q", seen)
	}
	h.Close()

	third := faux.New()
	h = scheduledSession(t, third, home, cwd, clock, session.Choice{Dir: dir, Ref: path})
	defer h.Close()
	if left := h.Children().Schedules(); len(left) != 0 {
		t.Errorf("a schedule that has run came back: %+v", left)
	}
}

// Without [subagents] scheduling the Agent tool has no schedule parameter, and a call that
// passes one anyway is refused with what turns it on.
func TestScheduleNeedsSchedulingOn(t *testing.T) {
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "pi.toml"), []byte("[subagents]\nenabled = true\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := faux.New(scheduleCall("in 10m"), faux.Text("ok"))
	h := scheduledSession(t, p, home, t.TempDir(), subagent.NewManualClock(time.Now()), session.Choice{InMemory: true})
	defer h.Close()
	if err := h.Send(context.Background(), Input{Text: "later", Source: SourceRPC}); err != nil {
		t.Fatal(err)
	}
	reqs := p.Requests()
	if offersSchedule(reqs[0]) {
		t.Error("the Agent tool offers schedule with scheduling off")
	}
	msgs := reqs[1].Messages
	if res := msgs[len(msgs)-1].TextContent(); !strings.Contains(res, "scheduling = true") {
		t.Errorf("the refused call's result: %q", res)
	}
}

func offersSchedule(req *provider.Request) bool {
	for _, tool := range req.Tools {
		if tool.Name == "Agent" {
			return strings.Contains(string(tool.Parameters), `"schedule"`)
		}
	}
	return false
}

// get_subagent_result reports a schedule by its id; /agents lists the schedules with their
// next time; /agents cancel drops one, in the file too; a wrong id gets an error notice.
func TestAgentsCommandListsAndCancelsSchedules(t *testing.T) {
	p := faux.New(scheduleCall("every 1h"), faux.Blocks(faux.Call("g1", "get_subagent_result", map[string]any{"agent_id": "schedule-1"})),
		faux.Text("scheduled"))
	clock := subagent.NewManualClock(time.Date(2026, 12, 1, 10, 0, 0, 0, time.Local))
	h := scheduledSession(t, p, scheduleHome(t), t.TempDir(), clock, session.Choice{Dir: t.TempDir()})
	defer h.Close()
	var ui notifyLog
	h.SetUI(&ui)
	for _, text := range []string{"check the sky every hour", "/agents list"} {
		if err := h.Send(context.Background(), Input{Text: text, Source: SourceRPC}); err != nil {
			t.Fatal(err)
		}
	}
	msgs := p.Requests()[2].Messages
	if got := msgs[len(msgs)-1].TextContent(); !strings.Contains(got, "schedule: every 1h\nnext run: ") || !strings.Contains(got, "(in 1h)") {
		t.Errorf("get_subagent_result of the schedule: %q", got)
	}
	ui.waitForPart(t, "schedule-1 every 1h · general-purpose · sky check · next 2026-12-01 11:00 (in 1h)")
	for _, text := range []string{"/agents cancel schedule-1", "/agents cancel schedule-9"} {
		if err := h.Send(context.Background(), Input{Text: text, Source: SourceRPC}); err != nil {
			t.Fatal(err)
		}
	}
	ui.waitForPart(t, "cancelled schedule-1")
	ui.waitForPart(t, `no schedule "schedule-9" in this session`)
	if left := h.Children().Schedules(); len(left) != 0 {
		t.Errorf("after cancel: %+v", left)
	}
	if kept, err := subagent.LoadSchedules(h.rec.session()); err != nil || len(kept) != 0 {
		t.Errorf("the session file keeps %+v (%v) after cancel", kept, err)
	}
}

func (n *notifyLog) waitForPart(t *testing.T, text string) {
	t.Helper()
	testwait.Until(t, "a notice with "+text, func() bool {
		n.mu.Lock()
		defer n.mu.Unlock()
		return slices.ContainsFunc(n.notices, func(s string) bool { return strings.Contains(s, text) })
	})
}

// Schedules belong to their session file: a new session has none (the old ones wait), and
// switching back to the first sets them again.
func TestSchedulesFollowTheSessionSwitch(t *testing.T) {
	p := faux.New(scheduleCall("in 1h"), faux.Text("scheduled"))
	clock := subagent.NewManualClock(time.Date(2026, 12, 1, 10, 0, 0, 0, time.Local))
	h := scheduledSession(t, p, scheduleHome(t), t.TempDir(), clock, session.Choice{Dir: t.TempDir()})
	defer h.Close()
	if err := h.Send(context.Background(), Input{Text: "check the sky in an hour", Source: SourceRPC}); err != nil {
		t.Fatal(err)
	}
	first := h.State().SessionFile
	if err := h.NewSession(""); err != nil {
		t.Fatal(err)
	}
	if got := h.Children().Schedules(); len(got) != 0 || clock.Pending() != 0 {
		t.Fatalf("a new session has schedules %+v (%d timers)", got, clock.Pending())
	}
	if err := h.SwitchSession(context.Background(), first); err != nil {
		t.Fatal(err)
	}
	if got := h.Children().Schedules(); len(got) != 1 || got[0].ID != "schedule-1" || clock.Pending() != 1 {
		t.Errorf("back in the first session: %+v (%d timers)", got, clock.Pending())
	}
}
