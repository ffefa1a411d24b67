package live

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
	"pi/internal/pitest"
	"pi/internal/testwait"
	"pi/provider"
	"pi/provider/faux"
	"pi/session"
	"pi/tools"
)

// newOpsApp wires a harness as setup does, around a scripted model and a session file in a
// temporary directory, without scripts.
func newOpsApp(t *testing.T, model provider.Model, steps ...faux.Step) *Session {
	t.Helper()
	dir := t.TempDir()
	env, err := tools.NewEnv(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { env.Close() })
	bash, _ := tools.New("bash", env)
	return newTestHarness(t, parts{cfg: &config.Config{}, cwd: dir, piHome: filepath.Join(dir, "home"),
		provider: faux.New(steps...), model: model, scripts: &scripts{allowlist: []string{"bash"}, builtins: []tools.Tool{bash}},
		spill: env.Spill}, session.Create(filepath.Join(dir, "sessions"), dir))
}

// newTestHarness assembles a harness from p and attaches s; it is closed when the test ends.
func newTestHarness(t *testing.T, p parts, s *session.Session) *Session {
	t.Helper()
	if p.stderr == nil {
		p.stderr = io.Discard
	}
	h := newSession(p)
	h.assemble(p)
	h.agent.SetSystemPrompt("agent") // the scripted models tell summary requests by this
	if err := h.attachSession(s, restore{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.close)
	return h
}

func promptText(t *testing.T, a *Session, text string) {
	t.Helper()
	if err := a.run(context.Background(), provider.UserText(text, time.Now().UnixMilli())); err != nil {
		t.Fatal(err)
	}
}

// TestHarnessesSideBySide runs two harnesses at once, with different models and sessions:
// each transcript and session file holds only its own conversation (run with -race).
func TestHarnessesSideBySide(t *testing.T) {
	dir := t.TempDir()
	newOne := func(name string) *Session {
		steps := make([]faux.Step, 0, 20)
		for i := range 20 {
			steps = append(steps, faux.Text(fmt.Sprintf("%s answer %d", name, i)))
		}
		model := provider.Model{ID: name, Provider: "faux", API: "faux", ContextWindow: 128000}
		return newTestHarness(t, parts{cfg: &config.Config{}, cwd: dir, piHome: filepath.Join(dir, name),
			provider: faux.New(steps...), model: model, scripts: &scripts{noTools: true, builtins: []tools.Tool{}}},
			session.Create(filepath.Join(dir, name), dir))
	}
	hs := []*Session{newOne("alpha"), newOne("beta")}
	var wg sync.WaitGroup
	for _, h := range hs {
		wg.Go(func() {
			for i := range 20 {
				if err := h.Send(context.Background(), Input{Text: fmt.Sprintf("q%d", i), Source: SourceRPC}); err != nil {
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
		entries := pitest.EntriesOfType(t, h.rec.session(), session.TypeMessage)
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
	h := newOpsApp(t, pitest.FauxModel(false),
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
	for _, in := range []Input{{Text: "steered", Deliver: DeliverSteer}, {Text: "followed", Deliver: DeliverFollowUp}} {
		if err := h.Send(context.Background(), in); err != nil {
			t.Fatal(err)
		}
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got := pitest.Transcript(h.agent.MessagesView()); !strings.Contains(got, "assistant:first | user:steered | assistant:after steer | user:followed | assistant:after follow-up") {
		t.Fatalf("transcript:\n%s", got)
	}
}

// Input that arrives right after agent_end, while the run still tidies up (a !cmd joining, an
// automatic compaction), is neither refused nor left waiting for the next prompt: a prompt
// waits for the run and runs (beginRun; an RPC client that sent its next prompt on agent_end
// was refused now and then), and a follow-up queued the way RPC follow_up and a subagent's
// notice queue it starts a run of its own (endRun).
func TestInputRightAfterAgentEnd(t *testing.T) {
	for _, in := range []Input{{Text: "later"}, {Text: "later", Deliver: DeliverFollowUp, Queue: true}} {
		h := newOpsApp(t, pitest.FauxModel(false), faux.Text("first"), faux.Text("second"))
		ended, checked := make(chan struct{}), make(chan struct{})
		h.agent.Subscribe(func(_ context.Context, ev agent.Event) {
			if ev.Type == agent.EvAgentEnd && h.runEnding.Load() {
				select {
				case <-ended:
				default:
					close(ended)
					<-checked // the run stays registered until the test has looked
					// A moment more for the Send below to arrive while the run tidies up; one
					// that comes later still passes, it only tests less.
					time.Sleep(200 * time.Millisecond)
				}
			}
		})
		done := make(chan error, 1)
		go func() { done <- h.Send(context.Background(), Input{Text: "one"}) }()
		<-ended
		if !h.Busy() || h.Streaming() {
			t.Errorf("after agent_end, while the run tidies up: Busy %v, Streaming (RPC's isStreaming) %v; want true, false", h.Busy(), h.Streaming())
		}
		close(checked)
		if err := h.Send(context.Background(), in); err != nil {
			t.Fatalf("%+v right after agent_end: %v", in, err)
		}
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		ok := testwait.Within(5*time.Second, func() bool {
			return strings.Contains(pitest.Transcript(h.agent.MessagesView()), "assistant:first | user:later | assistant:second")
		})
		if !ok {
			t.Fatalf("%+v was not sent; transcript:\n%s", in, pitest.Transcript(h.agent.MessagesView()))
		}
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
	a.agent.SetProvider(p, pitest.FauxModel(false))
	done := make(chan error, 1)
	go func() { _, err := a.Compact(context.Background(), ""); done <- err }()
	testwait.Until(t, "the compaction running", func() bool { return a.work.running(workCompaction) })
	if err := a.Send(context.Background(), Input{Text: "while compacting", Deliver: DeliverSteer}); err != nil {
		t.Fatal(err)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if !testwait.Within(testwait.Deadline, func() bool {
		return strings.HasSuffix(pitest.Transcript(a.agent.MessagesView()), "assistant:answer to the steer")
	}) {
		t.Fatalf("the queued steer was not sent after the compaction:\n%s", pitest.Transcript(a.agent.MessagesView()))
	}
}
