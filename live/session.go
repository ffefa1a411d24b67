package live

// session.go is the Session and its front door, Send; a run, its queues, Abort and Quiesce.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"pi/agent"
	"pi/config"
	"pi/images"
	"pi/prompt"
	"pi/provider"
	"pi/session"
)

// evQueueUpdate is the event a session emits when a steering or follow-up queue changed; the
// front ends show or send the queues.
const EvQueueUpdate = "queue_update"

// Input sources, as the scripts' input hooks see them.
const (
	SourceInteractive = "interactive"
	SourceRPC         = "rpc"
	SourceExtension   = "extension"
)

// delivery says what becomes of an input that arrives while the agent works.
type Delivery string

const (
	DeliverPrompt   Delivery = ""         // start a run; refused while one is going
	DeliverSteer    Delivery = "steer"    // while a run goes: after its tool calls
	DeliverFollowUp Delivery = "followUp" // while a run goes: when it would stop
)

// Input is one message for the agent, from any front end.
type Input struct {
	Text    string
	Images  []provider.Block
	Source  string // sourceInteractive, sourceRPC or sourceExtension
	Deliver Delivery
	// Queue puts the message in its queue even while the agent is idle (RPC steer and
	// follow_up, the terminal UI's second and later command-line prompts).
	Queue bool
	// CustomType, when set, makes the text pi's custom message of that type instead of the
	// user's: the session's own word (a background child's notice), which front ends show as
	// a notice and the model reads as user input.
	CustomType string
	// Accepted, when set, is called once the input has been taken on (a run reserved, a
	// message queued, a script command started), before the work itself: a front end that
	// answers at once (RPC) waits for this or for Send's error.
	Accepted func()
}

// message is the message the agent gets for text, leading with the context block when it
// opens the conversation: the user's, or the custom message CustomType names.
func (in *Input) message(text string, opens bool, cwd string, now time.Time) provider.Message {
	m := prompt.FirstUserMessage(text, in.Images, opens, cwd, now)
	if in.CustomType == "" {
		return m
	}
	return session.CustomMessage(in.CustomType, m.Content, true, now)
}

func (in *Input) accepted() {
	if in.Accepted != nil {
		in.Accepted()
		in.Accepted = nil
	}
}

// Session is one live session: the agent, its recorder, the settings, the scripts' view of
// the session and the work in flight.
type Session struct {
	agent     *agent.Agent
	cfg       *config.Config // shared, never changed
	cwd       string
	piHome    string
	stderr    io.Writer
	rec       *recorder
	settings  *settings
	scripts   *scripts
	work      *workRegistry
	compactor *compactor
	// scriptSends are the scripts' messages still on their way through Send.
	scriptSends sendsInFlight
	shell       *userShell
	// runEnding is set when the run emits agent_end, and cleared when the next one begins.
	runEnding atomic.Bool
	// start is the model the session started with: why none could be set up, or why pi
	// picked the one it did (startmodel.go).
	start startModel
	// store keeps the session files when pi.toml's [session] names one (nil: the JSONL files);
	// it is closed with the session.
	store session.Store
	// warm is the warm-up of the server's cache in flight (prewarm.go); warmOn says the session
	// sends one at all (Options.Prewarm).
	warm   warmer
	warmOn bool
	// budget follows the server's cache and speed for the next request's cost (budget.go).
	budget budget
	// life ends at close; work the scripts start in the background runs within it.
	life    context.Context
	endLife context.CancelFunc
	closing sync.Once
}

// Send takes one input through the front door: a script command runs at once (even while the
// agent works); otherwise the scripts' input hooks (skills, templates, user hooks) may
// rewrite or consume it, and it becomes a prompt or, while a run goes, joins the queue its
// Deliver names. Send returns when the input has been dealt with: a command has run (with the
// messages it sent), a message is queued, a prompt's run has ended.
func (h *Session) Send(ctx context.Context, in Input) error {
	if in.Source != SourceExtension {
		if cmd, args, ok := h.scripts.command(in.Text); ok {
			in.accepted()
			if err := cmd.Run(ctx, args); err != nil {
				return fmt.Errorf("/%s: %w", cmd.Name, err)
			}
			h.scriptSends.wait(ctx) // what the command sent is part of what it did
			return nil
		}
	}
	m := h.agent.Model() // every image, whoever sends it, is fitted or left out with a note
	in.Images = images.ForModel(in.Images, m.AcceptsImages(), m.ID)
	if in.Queue {
		return h.enqueue(ctx, in)
	}
	runCtx, end, err := h.beginRun(ctx)
	var busy *busyError
	if errors.As(err, &busy) && in.Deliver != DeliverPrompt {
		return h.enqueue(ctx, in)
	}
	if err != nil {
		return err
	}
	defer h.endRun(runCtx, end)
	in.accepted()
	text, handled := h.scripts.expandInput(runCtx, in.Text, in.Images, in.Source)
	if handled {
		return nil
	}
	added := h.scripts.prepareRun(runCtx, text, in.Images)
	h.shell.flush()
	opens := len(h.agent.MessagesView()) == 0
	user := in.message(text, opens, h.cwd, time.Now())
	msgs := append([]provider.Message{user}, h.scripts.rt.TakeNextTurn()...)
	h.waitWarm(runCtx)
	return h.run(runCtx, append(msgs, added...)...)
}

// run is a prompt's run on the agent; when the model refuses the context as too long, the
// conversation is compacted and the run continues once.
func (h *Session) run(ctx context.Context, msgs ...provider.Message) error {
	if err := h.agent.Prompt(ctx, msgs...); err != nil {
		return err
	}
	return h.compactor.recoverOverflow(ctx)
}

// beginRun reserves the run. A run that has emitted agent_end is only tidying up (a !cmd's
// output joining, an automatic compaction): a prompt sent right after that waits for it
// instead of being refused as if the agent were still working.
func (h *Session) beginRun(ctx context.Context) (context.Context, func(), error) {
	runCtx, end, err := h.work.begin(ctx, workRun)
	var busy *busyError
	if errors.As(err, &busy) && busy.running == workRun && h.runEnding.Load() {
		if err := h.work.wait(ctx, workRun); err != nil {
			return nil, nil, err
		}
		runCtx, end, err = h.work.begin(ctx, workRun)
	}
	if err == nil {
		h.runEnding.Store(false)
	}
	return runCtx, end, err
}

// enqueue puts an input in the steering or follow-up queue, after the input hooks.
func (h *Session) enqueue(ctx context.Context, in Input) error {
	if strings.TrimSpace(in.Text) == "" && len(in.Images) == 0 {
		return errors.New("the message is empty")
	}
	in.accepted()
	text, handled := h.scripts.expandInput(ctx, in.Text, in.Images, in.Source)
	if handled {
		return nil
	}
	msg := in.message(text, false, h.cwd, time.Now())
	if in.Deliver == DeliverFollowUp {
		h.agent.FollowUp(msg)
	} else {
		h.agent.Steer(msg)
	}
	h.queueChanged()
	return nil
}

// queueChanged tells the subscribers that a queue changed outside the loop.
func (h *Session) queueChanged() { h.agent.Emit(agent.Event{Type: EvQueueUpdate}) }

// ClearQueues takes every queued message back (the terminal UI puts them in the editor).
func (h *Session) ClearQueues() []provider.Message {
	out := h.agent.ClearQueues()
	if len(out) > 0 {
		h.queueChanged()
	}
	return out
}

// Busy reports whether a run is in flight.
func (h *Session) Busy() bool { return h.work.running(workRun) }

// Streaming is what RPC's isStreaming reports: a run that has not yet emitted agent_end (a
// prompt sent while the run tidies up after it waits for the run, so a client may send one).
func (h *Session) Streaming() bool { return h.Busy() && !h.runEnding.Load() }

// Abort cancels everything in flight: the run, a compaction, the user's shell command and a
// branch summary. It does not wait; Quiesce does.
func (h *Session) Abort() {
	h.work.cancel()
	h.agent.Abort()
}

// Quiesce stops everything that may write to the session and waits until it has.
func (h *Session) Quiesce() {
	h.Abort()
	h.work.stop()
	h.agent.WaitIdle()
}

// Finish waits until the work in flight has ended by itself: the run with the turns its queues
// and the scripts start, a compaction, the user's shell command, a branch summary, the
// background children and the turns their notices start. It returns early, with an error,
// when ctx is done; a front end whose input ended calls it before Quiesce.
func (h *Session) Finish(ctx context.Context) error {
	for {
		h.Settle(ctx, true)
		waited, err := h.work.waitAll(ctx)
		if err != nil || !waited {
			return err
		}
	}
}

// Compact summarises the conversation at the user's request, with optional instructions on
// what the summary should keep. A run in progress is stopped first, as in pi; messages queued
// while it worked are sent once it is done.
func (h *Session) Compact(ctx context.Context, instructions string) (*session.Result, error) {
	h.work.stop(workRun)
	res, err := h.compactAlone(ctx, instructions)
	if err == nil {
		h.sendQueued()
		h.prewarm() // unless the queued messages started a run
	}
	return res, err
}

func (h *Session) compactAlone(ctx context.Context, instructions string) (*session.Result, error) {
	ctx, end, err := h.work.begin(ctx, workCompaction)
	if err != nil {
		return nil, err
	}
	defer h.shell.release(end)
	res, err := h.compactor.compact(ctx, session.ReasonManual, instructions, false)
	if err != nil {
		return nil, fmt.Errorf("compacting session %s: %w", h.rec.session().ID(), err)
	}
	return res, nil
}

// endRun gives up the run's slot. A message queued in the instant after the loop last looked
// at its queues would wait for the next prompt, so unless the run was aborted it starts a
// run of its own.
func (h *Session) endRun(ctx context.Context, end func()) {
	aborted := ctx.Err() != nil // before end, which cancels ctx
	h.shell.release(end)
	if !aborted && h.life.Err() == nil {
		h.sendQueued()
	}
}

// sendQueued starts a run for the messages that were queued while nothing could run (a
// compaction): all of them, in order, steering first. A run that is going takes them itself.
func (h *Session) sendQueued() {
	steer, follow := h.agent.QueuedMessages()
	if len(steer)+len(follow) == 0 {
		return
	}
	// The slot is taken before returning, so that Finish never sees a gap between the run
	// that ends and the one that takes its queues; a run already going takes them itself.
	ctx, end, err := h.work.begin(h.life, workRun)
	if err != nil {
		return
	}
	h.runEnding.Store(false)
	go func() {
		defer h.endRun(ctx, end)
		queued := h.agent.ClearQueues()
		h.queueChanged()
		if err := h.agent.Prompt(ctx, queued...); err != nil {
			h.scripts.notify("sending the queued messages: "+err.Error(), "error")
		}
	}()
}

// close ends the session: work in flight is stopped, the spilled command outputs removed, the
// scripts told and closed, the session file closed.
func (h *Session) close() {
	h.closing.Do(func() {
		h.Quiesce()
		h.endLife()
		if sp := h.shell.spill; sp != nil {
			sp.Close() // the full outputs of this session's commands go with it
		}
		h.scripts.close()
		h.rec.close()
		if h.store != nil {
			h.store.Close()
		}
	})
}
