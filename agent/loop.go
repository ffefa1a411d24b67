package agent

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"pi/provider"
	"pi/tools"
)

// QueueMode says how many queued messages one poll of a queue delivers.
type QueueMode string

const (
	OneAtATime QueueMode = "one-at-a-time" // each queued message gets its own model turn
	AllAtOnce  QueueMode = "all"           // one turn sees every queued message
)

// Errors the Agent returns when asked to do something its state does not allow.
var (
	ErrBusy            = errors.New("the agent is already working on a prompt; use steer or follow-up to queue a message")
	ErrNothingToResume = errors.New("cannot continue: the conversation ends with an assistant reply and nothing is queued")
	ErrEmptyContext    = errors.New("cannot continue: the conversation is empty")
)

// Hooks let main (and through it the Lua runtime) take part in a run. Every hook is optional
// and receives the run's context, which Abort cancels.
type Hooks struct {
	// BeforeToolCall runs after validation. It may change call.Args in place (the tool then
	// runs with them, unvalidated) or block the call.
	BeforeToolCall func(ctx context.Context, call *ToolCall) (ToolCallDecision, error)
	// Redact rewrites every tool result, partial ones too, before anything else sees it (the
	// after-hook, events, the transcript), and once more after AfterToolCall: pi keeps key
	// values out of the conversation with it.
	Redact func(tools.Result) tools.Result
	// AfterToolCall runs before tool_execution_end and may replace parts of the result.
	AfterToolCall func(ctx context.Context, call *ToolCall, result tools.Result) (ResultOverride, error)
	// TransformContext rewrites the messages before each model call (pruning, injection).
	TransformContext func(ctx context.Context, msgs []provider.Message) ([]provider.Message, error)
	// ConvertToLLM turns agent messages into what the provider is sent; the default keeps
	// user, assistant and toolResult messages. It is not called while every message already
	// has one of those roles.
	ConvertToLLM func(msgs []provider.Message) []provider.Message
	// PrepareNextTurn runs before each model call; compaction hangs here.
	PrepareNextTurn func(ctx context.Context, a *Agent) error
	// ShouldStopAfterTurn ends the run after a turn when it returns true.
	ShouldStopAfterTurn func(ctx context.Context, assistant *provider.Message, results []provider.Message) bool
	// MessageEnd sees each finished message before the transcript takes it and message_end
	// reports it, and may replace it (pi's message_end result): a replacement of another role
	// is ignored. An assistant message's replacement is the one whose tool calls run.
	MessageEnd func(ctx context.Context, m provider.Message) (provider.Message, bool)
	// FinishTurn is asked when the run would end (a turn without tool calls, nothing queued)
	// and may continue it instead, with messages for the next model call; it is asked at most
	// MaxFinishContinues times a run, and ShouldStopAfterTurn still bounds every turn.
	FinishTurn func(ctx context.Context, assistant *provider.Message) (TurnFinish, error)
	// PrepareRequest sees each model call as it is about to go out and may change it for that
	// call only (another model and provider, other messages); the transcript stays as it is.
	PrepareRequest func(ctx context.Context, out *Outgoing) error
}

// TurnFinish is what FinishTurn decided: Continue the run, with Messages (none: a user
// message "Continue.") added before the next model call.
type TurnFinish struct {
	Continue bool
	Messages []provider.Message
}

// Outgoing is one model call before it is made: the provider it goes to and the request.
type Outgoing struct {
	Provider provider.Provider
	Request  *provider.Request
}

// MaxFinishContinues bounds how often FinishTurn may continue one run, so that a hook that
// always continues cannot keep the agent going forever.
const MaxFinishContinues = 50

// ToolCall is a call the model made, as hooks see it.
type ToolCall struct {
	ID        string
	Name      string
	Args      map[string]any
	Assistant *provider.Message
	ReadOnly  bool // the tool's Info says it changes nothing
}

// ToolCallDecision is what BeforeToolCall decided.
type ToolCallDecision struct {
	Block  bool
	Reason string
}

// ResultOverride replaces the fields that are set; nil fields keep the tool's value.
type ResultOverride struct {
	Content   []provider.Block
	Details   any
	IsError   *bool
	Terminate *bool
	Usage     *provider.Usage
}

// State is a snapshot of what the agent holds.
type State struct {
	SystemPrompt     string
	Model            provider.Model
	Thinking         string
	Tools            []tools.Tool
	Messages         []provider.Message
	IsStreaming      bool
	StreamingMessage *provider.Message
	PendingToolCalls map[string]bool
	ErrorMessage     string
}

// Agent runs conversations: it owns the transcript, calls the provider, runs tools and
// tells subscribers what happened. All methods are safe for concurrent use; one run goes at
// a time.
type Agent struct {
	provider provider.Provider
	hooks    Hooks

	mu           sync.Mutex
	state        State
	steerQueue   []provider.Message
	followQueue  []provider.Message
	steerMode    QueueMode
	followMode   QueueMode
	cancel       context.CancelFunc
	done         chan struct{}
	subscribers  []subscriber
	nextSubID    int
	schemas      map[tools.Tool]*tools.Schema
	toolDefs     []provider.ToolDef
	toolDefsFrom []tools.Tool
	sessionID    string
	// argumentRetryTimeout bounds a constrained retry of a call's arguments (argretry.go).
	argumentRetryTimeout time.Duration
	// declared names the tools the conversation was last offered (declareToolChanges); nil
	// before the first model call of a new conversation. A compaction, a shell command's output
	// joining and a move to another session or branch keep it: what this agent offered last is
	// what it knows of.
	declared []string
	// foreign counts transcript messages a model does not take (custom roles), so that the
	// common case of none needs no scan of a long transcript per request.
	foreign int

	emitMu sync.Mutex // serialises delivery to subscribers across tool goroutines
}

type subscriber struct {
	id int
	fn func(ctx context.Context, ev Event)
}

// Config is how an Agent starts.
type Config struct {
	Provider     provider.Provider
	Model        provider.Model
	Thinking     string
	SystemPrompt string
	Tools        []tools.Tool
	Messages     []provider.Message
	Hooks        Hooks
	SteeringMode QueueMode
	FollowUpMode QueueMode
	SessionID    string
	// ArgumentRetryTimeout bounds a constrained retry of a call's arguments; 0 means
	// DefaultArgumentRetryTimeout.
	ArgumentRetryTimeout time.Duration
}

// NewAgent returns an idle agent.
func New(cfg Config) *Agent {
	a := &Agent{
		provider:   cfg.Provider,
		hooks:      cfg.Hooks,
		steerMode:  cfg.SteeringMode.OrDefault(),
		followMode: cfg.FollowUpMode.OrDefault(),
		schemas:    map[tools.Tool]*tools.Schema{},
		sessionID:  cfg.SessionID,

		argumentRetryTimeout: cfg.ArgumentRetryTimeout,
	}
	a.state = State{SystemPrompt: cfg.SystemPrompt, Model: cfg.Model, Thinking: cfg.Thinking,
		Tools: append([]tools.Tool(nil), cfg.Tools...), PendingToolCalls: map[string]bool{}}
	a.ReplaceMessages(cfg.Messages)
	return a
}

// OrDefault is m, or OneAtATime when m is unset.
func (m QueueMode) OrDefault() QueueMode {
	if m == "" {
		return OneAtATime
	}
	return m
}

// Abort cancels the current run: the provider stream, every running tool and every hook.
func (a *Agent) Abort() {
	a.mu.Lock()
	cancel := a.cancel
	a.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// WaitIdle blocks until the current run, if any, has ended.
func (a *Agent) WaitIdle() {
	a.mu.Lock()
	done := a.done
	a.mu.Unlock()
	if done != nil {
		<-done
	}
}

// Prompt adds the messages to the transcript and runs until the agent stops. It refuses while
// another run is going.
func (a *Agent) Prompt(ctx context.Context, msgs ...provider.Message) error {
	ctx, err := a.begin(ctx)
	if err != nil {
		return err
	}
	defer a.finish()
	a.run(ctx, msgs, true)
	return nil
}

// Continue runs from the current transcript without a new prompt. From an assistant tail it
// delivers queued steering (else follow-up) messages, and refuses when there are none.
func (a *Agent) Continue(ctx context.Context) error {
	ctx, err := a.begin(ctx)
	if err != nil {
		return err
	}
	defer a.finish()
	a.mu.Lock()
	n := len(a.state.Messages)
	var last provider.Role
	if n > 0 {
		last = a.state.Messages[n-1].Role
	}
	a.mu.Unlock()
	if n == 0 {
		return ErrEmptyContext
	}
	if last != provider.RoleAssistant {
		a.run(ctx, nil, true)
		return nil
	}
	pending := a.pollQueue(&a.steerQueue, a.steerMode)
	if len(pending) == 0 {
		pending = a.pollQueue(&a.followQueue, a.followMode)
	}
	if len(pending) == 0 {
		return ErrNothingToResume
	}
	a.run(ctx, pending, false)
	return nil
}

func (a *Agent) begin(ctx context.Context) (context.Context, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.cancel != nil {
		return nil, ErrBusy
	}
	ctx, cancel := context.WithCancel(ctx)
	a.cancel, a.done = cancel, make(chan struct{})
	a.state.ErrorMessage = ""
	return ctx, nil
}

func (a *Agent) finish() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.cancel()
	close(a.done)
	a.cancel, a.done = nil, nil
	a.state.IsStreaming, a.state.StreamingMessage = false, nil
}

func (a *Agent) emit(ctx context.Context, ev Event) {
	a.mu.Lock()
	subs := a.subscribers
	a.mu.Unlock()
	if len(subs) == 0 {
		return
	}
	a.emitMu.Lock()
	defer a.emitMu.Unlock()
	for _, s := range subs {
		s.fn(ctx, ev)
	}
}

func (a *Agent) appendMessage(m provider.Message) {
	a.mu.Lock()
	a.state.Messages = append(a.state.Messages, m)
	if !isLLMRole(m.Role) {
		a.foreign++
	}
	a.mu.Unlock()
}

func isLLMRole(r provider.Role) bool {
	return r == provider.RoleUser || r == provider.RoleAssistant || r == provider.RoleToolResult
}

// pollQueue takes one message or all of them from q, by mode.
func (a *Agent) pollQueue(q *[]provider.Message, mode QueueMode) []provider.Message {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(*q) == 0 {
		return nil
	}
	if mode == AllAtOnce {
		out := *q
		*q = nil
		return out
	}
	out := []provider.Message{(*q)[0]}
	*q = (*q)[1:]
	return out
}

// run is the two nested loops: the inner one runs turns while there are tool calls or
// pending messages; the outer one picks up follow-ups when the agent would stop.
// pollSteeringFirst is false when pending came from a queue already (Continue).
func (a *Agent) run(ctx context.Context, pending []provider.Message, pollSteeringFirst bool) {
	var created []provider.Message
	a.emit(ctx, Event{Type: EvAgentStart})
	a.emit(ctx, Event{Type: EvTurnStart})
	if pollSteeringFirst {
		pending = append(pending, a.pollQueue(&a.steerQueue, a.steerMode)...)
	}
	first, continues := true, 0
	for {
		more := true
		for more || len(pending) > 0 {
			if !first {
				a.emit(ctx, Event{Type: EvTurnStart})
			}
			first = false
			if len(pending) > 0 { // a change of tools is declared before the new messages, as pi does
				if d := a.declareToolChanges(ctx); d != nil {
					created = append(created, *d)
				}
			}
			for i := range pending {
				m := pending[i]
				a.emit(ctx, Event{Type: EvMessageStart, Message: &m})
				a.endMessage(ctx, &m)
				created = append(created, m)
			}
			pending = nil
			var stop bool
			var newMsgs []provider.Message
			more, stop, newMsgs = a.turn(ctx)
			created = append(created, newMsgs...)
			if stop {
				a.emit(ctx, Event{Type: EvAgentEnd, Messages: created})
				return
			}
			pending = a.pollQueue(&a.steerQueue, a.steerMode)
		}
		pending = a.pollQueue(&a.followQueue, a.followMode)
		if len(pending) == 0 && continues < MaxFinishContinues {
			pending, continues = a.finishTurn(ctx, created), continues+1
		}
		if len(pending) == 0 {
			break
		}
	}
	a.emit(ctx, Event{Type: EvAgentEnd, Messages: created})
}

// finishTurn asks Hooks.FinishTurn whether the run, about to end, goes on; it returns the
// messages to continue with (none: it ends). A failing hook ends the run, as without one.
func (a *Agent) finishTurn(ctx context.Context, created []provider.Message) []provider.Message {
	if a.hooks.FinishTurn == nil || ctx.Err() != nil {
		return nil
	}
	var last *provider.Message
	for i := len(created) - 1; i >= 0 && last == nil; i-- {
		if created[i].Role == provider.RoleAssistant {
			last = &created[i]
		}
	}
	if last == nil {
		return nil
	}
	d, err := a.hooks.FinishTurn(ctx, last)
	if err != nil || !d.Continue {
		return nil
	}
	if len(d.Messages) == 0 {
		return []provider.Message{provider.UserText("Continue.", time.Now().UnixMilli())}
	}
	return d.Messages
}

// turn makes one model call and runs its tool calls. It reports whether the model should be
// called again for tool results, whether the run must stop, and the messages it added.
func (a *Agent) turn(ctx context.Context) (more, stop bool, created []provider.Message) {
	if d := a.declareToolChanges(ctx); d != nil {
		created = append(created, *d)
	}
	if a.hooks.PrepareNextTurn != nil {
		if err := a.hooks.PrepareNextTurn(ctx, a); err != nil {
			more, stop, failed := a.endWithError(ctx, a.failure(err))
			return more, stop, append(created, failed...)
		}
	}
	assistant, sent := a.streamAssistant(ctx)
	created = append(created, assistant)
	if assistant.StopReason == provider.StopError || assistant.StopReason == provider.StopAborted {
		_, stop, _ := a.endWithError(ctx, assistant)
		return false, stop, created
	}
	calls := assistant.ToolCalls()
	var results []provider.Message
	if len(calls) > 0 {
		var terminate bool
		results, terminate = a.executeToolCalls(ctx, &assistant, calls, sent)
		more = !terminate
		created = append(created, results...)
	}
	a.emit(ctx, Event{Type: EvTurnEnd, Message: &assistant, ToolResults: results})
	if ctx.Err() != nil { // aborted while the tools ran: a model call now could only be aborted too
		return false, true, created
	}
	if a.hooks.ShouldStopAfterTurn != nil && a.hooks.ShouldStopAfterTurn(ctx, &assistant, results) {
		return false, true, created
	}
	return more, false, created
}

// endWithError records a failed reply and ends the turn.
func (a *Agent) endWithError(ctx context.Context, failed provider.Message) (bool, bool, []provider.Message) {
	a.mu.Lock()
	a.state.ErrorMessage = failed.ErrorMessage
	if a.state.ErrorMessage == "" {
		a.state.ErrorMessage = string(failed.StopReason)
	}
	a.mu.Unlock()
	a.emit(ctx, Event{Type: EvTurnEnd, Message: &failed})
	return false, true, []provider.Message{failed}
}

// failure turns an error of the loop's own (a failing hook) into an assistant message, as if
// the provider had failed, so the run ends cleanly and the transcript says why.
func (a *Agent) failure(err error) provider.Message {
	a.mu.Lock()
	m := a.state.Model
	a.mu.Unlock()
	msg := provider.Message{Role: provider.RoleAssistant, Content: []provider.Block{}, API: m.API,
		Provider: m.Provider, Model: m.ID, Usage: &provider.Usage{}, StopReason: provider.StopError,
		ErrorMessage: err.Error(), Timestamp: time.Now().UnixMilli()}
	if errors.Is(err, context.Canceled) {
		msg.StopReason = provider.StopAborted
	}
	a.emit(context.Background(), Event{Type: EvMessageStart, Message: &msg})
	a.endMessage(context.Background(), &msg)
	return msg
}

// sentRequest is a model call as it was made: a retry of a call's arguments repeats it.
type sentRequest struct {
	provider provider.Provider
	req      *provider.Request
}

// streamAssistant makes one model call, emitting message events as the reply streams, and
// appends the final reply to the transcript.
func (a *Agent) streamAssistant(ctx context.Context) (provider.Message, sentRequest) {
	req, err := a.buildRequest(ctx)
	if err != nil {
		return a.failure(fmt.Errorf("preparing the model request: %w", err)), sentRequest{}
	}
	started := false
	sent := sentRequest{provider: a.Provider(), req: req}
	if h := a.hooks.PrepareRequest; h != nil {
		out := Outgoing{Provider: sent.provider, Request: req}
		if err := h(ctx, &out); err != nil {
			return a.failure(fmt.Errorf("preparing the model request: %w", err)), sentRequest{}
		}
		sent = sentRequest{provider: out.Provider, req: out.Request}
	}
	final := sent.provider.Stream(ctx, sent.req, func(ev provider.Event) {
		switch ev.Type {
		case provider.EventStart:
			started = true
			a.mu.Lock()
			a.state.IsStreaming, a.state.StreamingMessage = true, ev.Partial
			a.mu.Unlock()
			a.emit(ctx, Event{Type: EvMessageStart, Message: ev.Partial})
		case provider.EventDone, provider.EventError:
		default:
			a.emit(ctx, Event{Type: EvMessageUpdate, Message: ev.Partial, AssistantEvent: &ev})
		}
	})
	a.mu.Lock()
	a.state.IsStreaming, a.state.StreamingMessage = false, nil
	a.mu.Unlock()
	if !started {
		a.emit(ctx, Event{Type: EvMessageStart, Message: &final})
	}
	a.endMessage(ctx, &final)
	return final, sent
}

// endMessage lets Hooks.MessageEnd replace m, appends m to the transcript and emits
// message_end.
func (a *Agent) endMessage(ctx context.Context, m *provider.Message) {
	if h := a.hooks.MessageEnd; h != nil {
		if r, ok := h(ctx, *m); ok && r.Role == m.Role {
			*m = r
		}
	}
	a.appendMessage(*m)
	a.emit(ctx, Event{Type: EvMessageEnd, Message: m})
}

func (a *Agent) buildRequest(ctx context.Context) (*provider.Request, error) {
	req, msgs, foreign := a.requestHead()
	if a.hooks.TransformContext != nil {
		var err error
		if msgs, err = a.hooks.TransformContext(ctx, msgs); err != nil {
			return nil, fmt.Errorf("context hook: %w", err)
		}
	}
	req.Messages = a.convert(msgs, foreign > 0 || a.hooks.TransformContext != nil)
	return req, nil
}

// RequestPrefix is what the next model call starts with: the model, the system prompt, the
// tools and the conversation so far as a call converts it. The context hook is left out: it
// sees the next call's messages. A warm-up of the server's cache sends it.
func (a *Agent) RequestPrefix() *provider.Request {
	req, msgs, foreign := a.requestHead()
	req.Messages = a.convert(msgs, foreign > 0)
	return req
}

// requestHead is a request without its messages, and the transcript it is built from.
func (a *Agent) requestHead() (*provider.Request, []provider.Message, int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	msgs := a.state.Messages[:len(a.state.Messages):len(a.state.Messages)]
	return &provider.Request{Model: a.state.Model, SystemPrompt: a.state.SystemPrompt, Tools: a.toolDefsLocked(),
		Options: provider.Options{Thinking: a.state.Thinking, SessionID: a.sessionID}}, msgs, a.foreign
}

// convert turns msgs into what the provider is sent. With every message already in a model's
// roles (and no context hook) there is nothing to convert; skipping the pass keeps a long
// transcript from costing one per request.
func (a *Agent) convert(msgs []provider.Message, needed bool) []provider.Message {
	switch {
	case !needed:
		return msgs
	case a.hooks.ConvertToLLM != nil:
		return a.hooks.ConvertToLLM(msgs)
	}
	return llmMessages(msgs)
}

// llmMessages keeps the roles a model understands.
func llmMessages(msgs []provider.Message) []provider.Message {
	out := make([]provider.Message, 0, len(msgs))
	for i := range msgs {
		if isLLMRole(msgs[i].Role) {
			out = append(out, msgs[i])
		}
	}
	return out
}

// toolDefsLocked returns the tool definitions, rebuilt only when the active tools change, so
// that requests stay byte-identical and cheap. a.mu must be held.
func (a *Agent) toolDefsLocked() []provider.ToolDef {
	same := len(a.toolDefsFrom) == len(a.state.Tools)
	for i := 0; same && i < len(a.state.Tools); i++ {
		same = a.toolDefsFrom[i] == a.state.Tools[i]
	}
	if !same {
		a.toolDefs = make([]provider.ToolDef, len(a.state.Tools))
		for i, t := range a.state.Tools {
			a.toolDefs[i] = t.Info().Def()
		}
		a.toolDefsFrom = append([]tools.Tool(nil), a.state.Tools...)
	}
	return a.toolDefs
}
