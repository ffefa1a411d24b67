package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"pi/agent"
	"pi/config"
	"pi/internal/testwait"
	"pi/provider"
	"pi/provider/faux"
	"pi/session"
	"pi/tools"
	"pi/tui"

	"github.com/gdamore/tcell/v2"
)

// TestWorkRegistryExclusion checks which kinds of work may run together: one of each kind,
// and one transcript owner at a time; a shell command runs beside a run.
func TestWorkRegistryExclusion(t *testing.T) {
	tests := []struct {
		running, want workKind
		allowed       bool
	}{
		{workRun, workRun, false},
		{workRun, workCompaction, false},
		{workCompaction, workRun, false},
		{workRun, workBranchSummary, false},
		{workSession, workRun, false},
		{workRun, workBash, true},
		{workBash, workRun, true},
		{workBash, workBash, false},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s then %s", tt.running, tt.want), func(t *testing.T) {
			w := newWorkRegistry()
			_, end, err := w.begin(context.Background(), tt.running)
			if err != nil {
				t.Fatal(err)
			}
			defer end()
			_, end2, err := w.begin(context.Background(), tt.want)
			if (err == nil) != tt.allowed {
				t.Fatalf("begin %s while %s runs: %v, want allowed=%v", tt.want, tt.running, err, tt.allowed)
			}
			if err == nil {
				end2()
			}
		})
	}
}

// TestWorkRegistryAbortAndStop checks that cancel reaches every context the registry handed
// out, and that stop returns only once the work has ended.
func TestWorkRegistryAbortAndStop(t *testing.T) {
	w := newWorkRegistry()
	var ended sync.WaitGroup
	finished := make(chan workKind, 2)
	for _, k := range []workKind{workRun, workBash} {
		ctx, end, err := w.begin(context.Background(), k)
		if err != nil {
			t.Fatal(err)
		}
		ended.Add(1)
		go func() {
			defer ended.Done()
			<-ctx.Done()
			time.Sleep(20 * time.Millisecond) // winding down takes a moment
			finished <- k
			end()
		}()
	}
	w.stop()
	if len(finished) != 2 || w.running(workRun) || w.running(workBash) {
		t.Fatalf("stop returned with %d of 2 finished", len(finished))
	}
	ended.Wait()
	if _, end, err := w.begin(context.Background(), workRun); err != nil {
		t.Fatalf("after stop a run cannot begin: %v", err)
	} else {
		end()
	}
}

// TestHarnessesSideBySide runs two harnesses at once, with different models and sessions:
// each transcript and session file holds only its own conversation (run with -race).
func TestHarnessesSideBySide(t *testing.T) {
	dir := t.TempDir()
	newOne := func(name string) *harness {
		steps := make([]faux.Step, 0, 20)
		for i := range 20 {
			steps = append(steps, faux.Text(fmt.Sprintf("%s answer %d", name, i)))
		}
		model := provider.Model{ID: name, Provider: "faux", API: "faux", ContextWindow: 128000}
		return newTestHarness(t, parts{cfg: &config.Config{}, cwd: dir, piHome: filepath.Join(dir, name),
			provider: faux.New(steps...), model: model, scripts: &scripts{noTools: true, builtins: []tools.Tool{}}},
			session.Create(filepath.Join(dir, name), dir))
	}
	hs := []*harness{newOne("alpha"), newOne("beta")}
	var wg sync.WaitGroup
	for _, h := range hs {
		wg.Go(func() {
			for i := range 20 {
				if err := h.Send(context.Background(), Input{Text: fmt.Sprintf("q%d", i), Source: sourceRPC}); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	for _, h := range hs {
		name := h.agent.Model().ID
		msgs := h.agent.MessagesView()
		if len(msgs) != 40 {
			t.Fatalf("%s holds %d messages, want 40", name, len(msgs))
		}
		for _, m := range msgs {
			if m.Role == provider.RoleAssistant && (m.Model != name || !strings.HasPrefix(m.TextContent(), name)) {
				t.Fatalf("%s holds a reply of another harness: %s %q", name, m.Model, m.TextContent())
			}
		}
		entries := entriesOfType(t, h.rec.session(), session.TypeMessage)
		if len(entries) != 40 {
			t.Fatalf("%s's session holds %d messages, want 40", name, len(entries))
		}
	}
}

// TestSendWhileBusy checks the front door's choice for input that arrives during a run: a
// prompt is refused, a steer or follow-up joins its queue, and every queued message reaches
// the model in the same run.
func TestSendWhileBusy(t *testing.T) {
	release, calling := make(chan struct{}), make(chan struct{})
	h := newOpsApp(t, fauxModel(false),
		faux.Reply(func(*provider.Request) provider.Message { close(calling); <-release; return faux.Text("first") }),
		faux.Text("after steer"), faux.Text("after follow-up"))
	done := make(chan error, 1)
	accepted := make(chan struct{})
	go func() {
		done <- h.Send(context.Background(), Input{Text: "start", Accepted: func() { close(accepted) }})
	}()
	<-accepted
	var busy *busyError
	if err := h.Send(context.Background(), Input{Text: "again"}); !errors.As(err, &busy) {
		t.Fatalf("a prompt during a run: %v, want a busy error", err)
	}
	<-calling // queued while the model answers, not before the loop's first look at the queues
	for _, in := range []Input{{Text: "steered", Deliver: deliverSteer}, {Text: "followed", Deliver: deliverFollowUp}} {
		if err := h.Send(context.Background(), in); err != nil {
			t.Fatal(err)
		}
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got := transcriptOf(h); !strings.Contains(got, "assistant:first | user:steered | assistant:after steer | user:followed | assistant:after follow-up") {
		t.Fatalf("transcript:\n%s", got)
	}
}

// Input that arrives right after agent_end, while the run still tidies up (a !cmd joining, an
// automatic compaction), is neither refused nor left waiting for the next prompt: a prompt
// waits for the run and runs (beginRun; an RPC client that sent its next prompt on agent_end
// was refused now and then), and a follow-up queued the way RPC follow_up and a subagent's
// notice queue it starts a run of its own (endRun).
func TestInputRightAfterAgentEnd(t *testing.T) {
	for _, in := range []Input{{Text: "later"}, {Text: "later", Deliver: deliverFollowUp, Queue: true}} {
		h := newOpsApp(t, fauxModel(false), faux.Text("first"), faux.Text("second"))
		ended := make(chan struct{})
		h.agent.Subscribe(func(_ context.Context, ev agent.Event) {
			if ev.Type == agent.EvAgentEnd && h.runEnding.Load() {
				select {
				case <-ended:
				default:
					close(ended)
					time.Sleep(200 * time.Millisecond) // the run is still registered meanwhile
				}
			}
		})
		done := make(chan error, 1)
		go func() { done <- h.Send(context.Background(), Input{Text: "one"}) }()
		<-ended
		if !h.Busy() || h.Streaming() {
			t.Errorf("after agent_end, while the run tidies up: Busy %v, Streaming (RPC's isStreaming) %v; want true, false", h.Busy(), h.Streaming())
		}
		if err := h.Send(context.Background(), in); err != nil {
			t.Fatalf("%+v right after agent_end: %v", in, err)
		}
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		ok := fdWaitUntil(5*time.Second, func() bool {
			return strings.Contains(transcriptOf(h), "assistant:first | user:later | assistant:second")
		})
		if !ok {
			t.Fatalf("%+v was not sent; transcript:\n%s", in, transcriptOf(h))
		}
	}
}

// TestEscapeAbortsManualCompaction presses Escape while /compact waits for its summary: the
// UI is idle again at once and no compaction is recorded.
func TestEscapeAbortsManualCompaction(t *testing.T) {
	a, _ := treeApp(t)
	slow := faux.New(faux.Text(strings.Repeat("a slow summary ", 400)))
	slow.ChunkDelay = 10 * time.Millisecond
	a.agent.SetProvider(slow, fauxModel(false))
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	ic := &interactive{h: a, ctx: ctx, cancel: cancel, uiReady: make(chan struct{})}
	screen := &screenLog{}
	ic.ui = tui.NewApp(screen, 120, 40, ic.callbacks(), tui.Options{ManualFrames: true})
	done := make(chan struct{})
	go func() {
		defer close(done)
		ic.command("compact", "")
	}()
	screen.waitFor(t, ic.ui, "Compacting")
	start := time.Now()
	press(ic.ui, tcell.KeyEscape)
	select {
	case <-done:
	case <-time.After(testwait.Deadline):
		t.Fatalf("/compact still running %v after Escape", testwait.Deadline)
	}
	if d := time.Since(start); d > 3*time.Second { // a summary the model never ends would hold it for good
		t.Errorf("Escape took %s to stop /compact", d)
	}
	if n := len(entriesOfType(t, a.rec.session(), session.TypeCompaction)); n != 0 || a.work.running(workCompaction) {
		t.Fatalf("after Escape: %d compaction entries, still running %v", n, a.work.running(workCompaction))
	}
}

// TestRPCBashBackToBack sends two bash commands without waiting: the first runs, the second
// is refused, ten times out of ten.
func TestRPCBashBackToBack(t *testing.T) {
	a := newOpsApp(t, fauxModel(false))
	c, _, stop := startInProcess(t, context.Background(), a)
	defer stop()
	for round := range 10 {
		from := c.mark()
		first, second := fmt.Sprintf("first-%d", round), fmt.Sprintf("second-%d", round)
		c.sendRaw(`{"type":"bash","id":"` + first + `","command":"sleep 0.05; echo one"}` + "\n" +
			`{"type":"bash","id":"` + second + `","command":"echo two"}` + "\n")
		r1 := c.await(from, first, func(l rpcLine) bool { return l["id"] == first })
		r2 := c.await(from, second, func(l rpcLine) bool { return l["id"] == second })
		if r1["success"] != true || r1.data()["output"] != "one\n" || r2["success"] != false {
			t.Fatalf("round %d: first %v, second %v", round, r1, r2)
		}
	}
}

// TestRPCBoundsWhatItHoldsAndEchoes: an over-long command line is dropped with an error and
// the session goes on; a response echoes at most a bounded id and command name.
func TestRPCBoundsWhatItHoldsAndEchoes(t *testing.T) {
	a := newOpsApp(t, fauxModel(false))
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	s := newRPCServer(a, outW, io.Discard)
	s.maxLine = 4096
	done := make(chan struct{})
	go func() { s.serve(context.Background(), inR); outW.Close(); close(done) }()
	c := newRPCClient(t, inW, outR)
	defer func() { inW.Close(); c.drain(); <-done }()

	from := c.mark()
	c.sendRaw(`{"type":"get_state","pad":"` + strings.Repeat("x", 10000) + `"}` + "\n")
	if r := c.await(from, "the dropped line's error", func(l rpcLine) bool { return l["command"] == "parse" }); !strings.Contains(fmt.Sprint(r["error"]), "longer than 4096 bytes") {
		t.Fatalf("over-long line: %v", r)
	}
	if r := c.call(map[string]any{"type": "get_state"}); r["success"] != true {
		t.Fatalf("after a dropped line get_state fails: %v", r)
	}
	long := strings.Repeat("y", 3000)
	r := c.call(map[string]any{"type": long})
	if cmd := fmt.Sprint(r["command"]); len(cmd) > maxEchoedName+len("…") || len(fmt.Sprint(r["error"])) > 200 {
		t.Fatalf("unknown command echoed %d bytes of name, %d of error", len(cmd), len(fmt.Sprint(r["error"])))
	}
	from = c.mark()
	c.sendRaw(`{"type":"get_state","id":"` + strings.Repeat("i", 2000) + `"}` + "\n")
	r = c.await(from, "the long id's response", func(l rpcLine) bool { return l["type"] == "response" })
	if r["id"] != nil || !strings.Contains(fmt.Sprint(r["error"]), "ids of up to") {
		t.Fatalf("a 2000-byte id: %v", r)
	}
}

// TestMessagesQueuedDuringCompactionAreSent: a steer that arrives while /compact works is
// queued, and sent once the compaction is done.
func TestMessagesQueuedDuringCompactionAreSent(t *testing.T) {
	a, _ := treeApp(t)
	release := make(chan struct{})
	p := faux.New(
		faux.Reply(func(*provider.Request) provider.Message { <-release; return faux.Text("## Goal\nsummary") }),
		faux.Reply(func(*provider.Request) provider.Message { return faux.Text("## Goal\nsummary") }),
		faux.Text("answer to the steer"))
	a.agent.SetProvider(p, fauxModel(false))
	done := make(chan error, 1)
	go func() { _, err := a.Compact(context.Background(), ""); done <- err }()
	waitFor(t, "the compaction running", func() bool { return a.work.running(workCompaction) })
	if err := a.Send(context.Background(), Input{Text: "while compacting", Deliver: deliverSteer}); err != nil {
		t.Fatal(err)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if !testwait.Within(testwait.Deadline, func() bool { return strings.HasSuffix(transcriptOf(a), "assistant:answer to the steer") }) {
		t.Fatalf("the queued steer was not sent after the compaction:\n%s", transcriptOf(a))
	}
}
