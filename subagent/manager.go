// Package subagent owns the children a session starts with the Agent tool: the agent types
// (built in, $PI_HOME/agents/*.md, the project's .pi/agents/*.md), the registry of children
// with their status and results, the queue that keeps at most N background children running,
// steering, aborts, resumption, the schedules of deferred calls (on an injected Clock, kept in
// the session file as a custom entry), and worktree isolation through the git command (run
// through internal/gitsafe, so that a repository the child's commands changed runs nothing as pi).
//
// It does not build sessions: the host's Factory turns a Launch into a running Child (main
// builds one more harness in the same process). Of this module it imports provider (a
// child's messages, for its answer and tokens), agent (a child's events, which it passes to
// the parent's agent as subagent_event), session (inherit_context writes the child's first
// session file and compacts it) and internal/gitsafe.
package subagent

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"

	"pi/provider"
)

// Status is where a child is in its life.
type Status string

const (
	Queued  Status = "queued"
	Running Status = "running"
	Done    Status = "done"
	Failed  Status = "failed"
	Aborted Status = "aborted"
)

// DefaultMaxConcurrent is how many background children run at once unless pi.toml says: one
// local model server serves few requests in parallel.
const DefaultMaxConcurrent = 2

// Spec is one Agent call.
type Spec struct {
	Prompt, Description, Type string
	Model, Thinking           string
	MaxTurns                  int
	Background                bool
	Resume                    string // an agent id of this session to continue (a session file is taken as SessionFile)
	SessionFile               string // the file the child runs in, new or existing: in SessionsDir or the project
	Isolated, InheritContext  bool
	Worktree                  bool // isolation = "worktree"
}

// Launch is what the host needs to build one child.
type Launch struct {
	ID                       string
	Type                     Type
	Prompt                   string
	Model, Thinking          string // the call's, else the type's; "" is the parent's
	MaxTurns                 int
	Cwd                      string
	SessionFile              string // continue this file; "" starts a new one
	Isolated, InheritContext bool
	Progress                 func(Progress)
}

// Progress is what a running child reports as it goes.
type Progress struct {
	Turns, Tokens int
	Tool          string // the tool it runs now, or ""
}

// Outcome is how a child's run ended.
type Outcome struct {
	Answer        string
	Turns, Tokens int
	SessionFile   string
	MaxTurnsHit   bool
	Note          string // something the parent should know, such as how inherit_context went
}

// Child is one child session the host built. Run blocks until the child stops (ctx ending
// aborts it); Steer queues a message for it while it runs; Messages is its transcript so far
// (safe to call while it runs).
type Child interface {
	Run(ctx context.Context) (Outcome, error)
	Steer(text string) error
	Messages() []provider.Message
	Close()
}

// Factory builds a child for a launch.
type Factory func(ctx context.Context, l Launch) (Child, error)

// Options configure a Manager.
type Options struct {
	Factory       Factory
	Types         []Type
	Cwd           string
	SessionsDir   string // the parent's sessions folder: a SessionFile may be there, or in Cwd
	MaxConcurrent int    // background children running at once; 0 is DefaultMaxConcurrent
	// Tree is the limits and the count this session shares with its whole tree (nil: a new
	// tree with the defaults); Depth is this session's place in it, 0 at the top.
	Tree  *Tree
	Depth int
	// Finished is called when a background child ends and nobody has fetched its result yet.
	Finished func(Result)
	// Changed is called when a child's status or progress changes.
	Changed func(Result)
	// Scheduling lets Schedule defer calls ([subagents] scheduling); Clock is the time they
	// run on (nil: the real one); ScheduleFailed is called when a schedule's run could not
	// start (a limit reached), on a goroutine of its own.
	Scheduling     bool
	Clock          Clock
	ScheduleFailed func(Scheduled)
}

// Result is a child as the tools report it.
type Result struct {
	ID, Type, Description string
	Status                Status
	Background            bool
	Answer                string
	Turns, Tokens         int
	Tool                  string
	SessionFile           string
	MaxTurnsHit           bool
	Branch, Worktree      string
	Files                 []string // changed in the worktree
	Error                 string
	Note                  string
	Schedule              string // the schedule that started it, or ""
}

type entry struct {
	res     Result
	spec    Spec
	typ     Type
	child   Child
	cancel  context.CancelFunc
	start   chan struct{} // closed when the queue lets a background child run
	done    chan struct{}
	tick    chan struct{} // closed, and replaced, at each change of res
	fetched bool
	steers  []string           // sent before the child was built; delivered once it is
	msgs    []provider.Message // the transcript, kept once the child has closed
}

// Manager is the registry of one session's children.
type Manager struct {
	opts    Options
	life    context.Context
	end     context.CancelFunc
	mu      sync.Mutex
	entries map[string]*entry
	order   []string
	running int
	queue   []*entry
	serial  int
	watch   map[int]func(Result)
	watchN  int
	viewer  func(ctx context.Context, id string) error
	sched   schedules
}

// New makes a manager; Close ends its children.
func New(opts Options) *Manager {
	if opts.MaxConcurrent <= 0 {
		opts.MaxConcurrent = DefaultMaxConcurrent
	}
	if opts.Tree == nil {
		opts.Tree = NewTree(0, 0)
	}
	m := &Manager{opts: opts, entries: map[string]*entry{}}
	m.life, m.end = context.WithCancel(context.Background())
	return m
}

// Tree is the tree of sessions this one belongs to, with its limits.
func (m *Manager) Tree() *Tree { return m.opts.Tree }

// Types lists the agent types.
func (m *Manager) Types() []Type { return slices.Clone(m.opts.Types) }

// Close aborts every child, sets off no more schedules, and waits for none.
func (m *Manager) Close() {
	m.end()
	m.stopSchedules()
}

// Start begins a child and returns its id. A foreground child runs under ctx (the tool
// call's: aborting the parent aborts it) and skips the queue; a background child runs until
// it ends or is aborted, when the queue lets it.
func (m *Manager) Start(ctx context.Context, s Spec) (string, error) { return m.start(ctx, s, "") }

// start is Start for a schedule's run (from: its id) or an Agent call (from: "").
func (m *Manager) start(ctx context.Context, s Spec, from string) (string, error) {
	if strings.TrimSpace(s.Prompt) == "" {
		return "", errors.New("prompt is empty")
	}
	file, typeName, err := m.resumed(s.Resume)
	if err == nil && s.SessionFile != "" {
		file, err = m.sessionFile(s.SessionFile)
	}
	if err != nil {
		return "", err
	}
	typ, err := m.typeNamed(cmpOr(s.Type, typeName, "general-purpose"))
	if err != nil {
		return "", err
	}
	if err := m.opts.Tree.reserve(m.opts.Depth); err != nil {
		return "", err
	}
	m.mu.Lock()
	m.serial++
	e := &entry{spec: s, typ: typ, start: make(chan struct{}), done: make(chan struct{}), tick: make(chan struct{}),
		res: Result{ID: fmt.Sprintf("agent-%d", m.serial), Type: typ.Name, Description: s.Description,
			Status: Queued, Background: s.Background, SessionFile: file, Schedule: from}}
	m.entries[e.res.ID], m.order = e, append(m.order, e.res.ID)
	base := ctx
	if s.Background {
		base = m.life
		m.queue = append(m.queue, e)
	} else {
		close(e.start)
	}
	var runCtx context.Context
	runCtx, e.cancel = context.WithCancel(base)
	m.dispatch()
	m.mu.Unlock()
	go m.run(runCtx, e)
	return e.res.ID, nil
}

// resumed finds what Spec.Resume names: a child of this session, or a session file.
func (m *Manager) resumed(ref string) (file, typeName string, err error) {
	if ref == "" {
		return "", "", nil
	}
	m.mu.Lock()
	e, ok := m.entries[ref]
	m.mu.Unlock()
	if ok {
		if e.res.SessionFile == "" {
			return "", "", fmt.Errorf("resume %s: it has no session file yet", ref)
		}
		return e.res.SessionFile, e.typ.Name, nil
	}
	if _, err := os.Stat(ref); err != nil {
		return "", "", fmt.Errorf("resume %q: neither an agent id of this session nor a session file: %w", ref, err)
	}
	file, err = m.sessionFile(ref)
	return file, "", err
}

func (m *Manager) typeNamed(name string) (Type, error) {
	var names []string
	for _, t := range m.opts.Types {
		if t.Name == name {
			return t, nil
		}
		names = append(names, t.Name)
	}
	return Type{}, fmt.Errorf("no agent type %q; the types are %s", name, strings.Join(names, ", "))
}

// dispatch lets queued children start while there is room. Called with mu held.
func (m *Manager) dispatch() {
	for len(m.queue) > 0 && m.running < m.opts.MaxConcurrent {
		e := m.queue[0]
		m.queue = m.queue[1:]
		m.running++
		close(e.start)
	}
}

func (m *Manager) run(ctx context.Context, e *entry) {
	defer e.cancel()
	select {
	case <-e.start:
	case <-ctx.Done():
		m.finish(e, Outcome{}, context.Cause(ctx), ctx)
		return
	}
	m.update(e, func(r *Result) { r.Status = Running })
	var wt *worktree
	l := m.launch(e)
	out, err := func() (Outcome, error) {
		if e.spec.Worktree {
			var err error
			if wt, err = addWorktree(ctx, m.opts.Cwd, e.res.ID); err != nil {
				return Outcome{}, err
			}
			l.Cwd = wt.cwd
			m.update(e, func(r *Result) { r.Branch, r.Worktree = wt.branch, wt.dir })
		}
		return m.runChild(ctx, e, l)
	}()
	if wt != nil {
		files, kept, werr := wt.finish(context.WithoutCancel(ctx), e.res.ID+": "+e.spec.Description)
		m.update(e, func(r *Result) {
			r.Files = files
			if !kept {
				r.Worktree, r.Branch = "", ""
			}
		})
		err = errors.Join(err, werr)
	}
	m.finish(e, out, err, ctx)
}

// runChild builds the child, hands it the steers that came before it, and runs it; its
// transcript is kept for Transcript once it has closed.
func (m *Manager) runChild(ctx context.Context, e *entry, l Launch) (Outcome, error) {
	child, err := m.opts.Factory(ctx, l)
	if err != nil {
		return Outcome{}, err
	}
	defer func() {
		msgs := child.Messages()
		m.mu.Lock()
		e.msgs = msgs
		m.mu.Unlock()
		child.Close()
	}()
	m.mu.Lock()
	e.child = child
	steers := e.steers
	e.steers = nil
	m.mu.Unlock()
	for _, text := range steers {
		if err := child.Steer(text); err != nil {
			return Outcome{}, err
		}
	}
	return child.Run(ctx)
}

func (m *Manager) launch(e *entry) Launch {
	s := e.spec
	l := Launch{ID: e.res.ID, Type: e.typ, Prompt: s.Prompt, Model: cmpOr(s.Model, e.typ.Model),
		Thinking: cmpOr(s.Thinking, e.typ.Thinking), MaxTurns: s.MaxTurns, Cwd: m.opts.Cwd,
		SessionFile: e.res.SessionFile, Isolated: s.Isolated, InheritContext: s.InheritContext}
	if l.MaxTurns == 0 {
		l.MaxTurns = e.typ.MaxTurns
	}
	l.Progress = func(p Progress) {
		m.update(e, func(r *Result) { r.Turns, r.Tokens, r.Tool = p.Turns, p.Tokens, p.Tool })
	}
	return l
}

func (m *Manager) finish(e *entry, out Outcome, err error, ctx context.Context) {
	m.mu.Lock()
	r := &e.res
	r.Answer, r.Turns, r.Tokens, r.MaxTurnsHit, r.Tool, r.Note = out.Answer, out.Turns, out.Tokens, out.MaxTurnsHit, "", out.Note
	if out.SessionFile != "" {
		r.SessionFile = out.SessionFile
	}
	switch {
	case ctx.Err() != nil:
		r.Status, r.Error = Aborted, "aborted"
	case err != nil:
		r.Status, r.Error = Failed, err.Error()
	default:
		r.Status = Done
	}
	if i := slices.Index(m.queue, e); i >= 0 {
		m.queue = slices.Delete(m.queue, i, i+1)
	} else if e.res.Background {
		m.running--
	}
	m.dispatch()
	if e.res.Schedule != "" {
		m.opts.Tree.release()
	}
	res, notify := *r, e.res.Background && !e.fetched
	res.Files = slices.Clone(r.Files)
	m.mu.Unlock()
	m.changed(res)
	if notify && m.opts.Finished != nil {
		m.opts.Finished(res)
	}
	close(e.done) // after the notice: Wait's callers find it on its way
}

// Wait waits until no background child is queued or running (those started meanwhile
// included), or ctx ends; it reports whether there was any to wait for. A nil Manager has
// none.
func (m *Manager) Wait(ctx context.Context) (waited bool) {
	for m != nil && ctx.Err() == nil {
		var pending *entry
		m.mu.Lock()
		for _, id := range m.order {
			if e := m.entries[id]; e.res.Background && !isClosed(e.done) {
				pending = e
				break
			}
		}
		m.mu.Unlock()
		if pending == nil {
			return waited
		}
		waited = true
		select {
		case <-pending.done:
		case <-ctx.Done():
		}
	}
	return waited
}

func isClosed(ch chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

func (m *Manager) update(e *entry, f func(*Result)) {
	m.mu.Lock()
	f(&e.res)
	close(e.tick)
	e.tick = make(chan struct{})
	res := e.res
	m.mu.Unlock()
	m.changed(res)
}

func (m *Manager) changed(r Result) {
	if m.opts.Changed != nil {
		m.opts.Changed(r)
	}
	m.mu.Lock()
	fns := make([]func(Result), 0, len(m.watch))
	for _, fn := range m.watch {
		fns = append(fns, fn)
	}
	m.mu.Unlock()
	for _, fn := range fns {
		fn(r)
	}
}

// Watch calls fn (on the child's goroutine) whenever a child's status or progress changes,
// until stop is called.
func (m *Manager) Watch(fn func(Result)) (stop func()) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.watch == nil {
		m.watch = map[int]func(Result){}
	}
	m.watchN++
	key := m.watchN
	m.watch[key] = fn
	return func() {
		m.mu.Lock()
		delete(m.watch, key)
		m.mu.Unlock()
	}
}

// Transcript is a child's messages: live while it runs, as it ended afterwards (nil while
// it is queued).
func (m *Manager) Transcript(id string) ([]provider.Message, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.entries[id]
	switch {
	case !ok:
		return nil, fmt.Errorf("no agent %q in this session", id)
	case e.msgs == nil && e.child != nil:
		return e.child.Messages(), nil
	}
	return e.msgs, nil
}

// SetViewer sets how a child's transcript is shown on screen (the terminal UI's viewer),
// or none with nil.
func (m *Manager) SetViewer(view func(ctx context.Context, id string) error) {
	m.mu.Lock()
	m.viewer = view
	m.mu.Unlock()
}

// CanView says whether View has a screen to show a transcript on.
func (m *Manager) CanView() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.viewer != nil
}

// View shows a child's transcript until the user closes it, where there is a screen.
func (m *Manager) View(ctx context.Context, id string) error {
	m.mu.Lock()
	view, ok := m.viewer, m.entries[id] != nil
	m.mu.Unlock()
	switch {
	case !ok:
		return fmt.Errorf("no agent %q in this session", id)
	case view == nil:
		return errors.New("no screen to show a transcript on (the terminal UI has one); the session file holds it")
	}
	return view(ctx, id)
}

// Get reports a child; with wait, it first waits until the child has ended or ctx ends. A
// result fetched after the child ended is not announced to the parent again.
func (m *Manager) Get(ctx context.Context, id string, wait bool) (Result, error) {
	m.mu.Lock()
	e, ok := m.entries[id]
	m.mu.Unlock()
	if !ok {
		return Result{}, fmt.Errorf("no agent %q in this session", id)
	}
	if wait {
		select {
		case <-e.done:
		case <-ctx.Done():
		}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	select {
	case <-e.done:
		e.fetched = true
	default:
	}
	r := e.res
	r.Files = slices.Clone(e.res.Files)
	return r, nil
}

// Next waits for the next change of a child (its status, its progress), its end, or ctx's end.
func (m *Manager) Next(ctx context.Context, id string) error {
	m.mu.Lock()
	e, ok := m.entries[id]
	var tick chan struct{}
	if ok {
		tick = e.tick
	}
	m.mu.Unlock()
	if !ok {
		return fmt.Errorf("no agent %q in this session", id)
	}
	select {
	case <-tick:
	case <-e.done:
	case <-ctx.Done():
	}
	return nil
}

// Steer delivers a message to a running child.
func (m *Manager) Steer(id, text string) error {
	m.mu.Lock()
	e, ok := m.entries[id]
	var child Child
	var status Status
	if ok {
		child, status = e.child, e.res.Status
		if child == nil && (status == Queued || status == Running) {
			e.steers = append(e.steers, text) // it reads them when it starts
			m.mu.Unlock()
			return nil
		}
	}
	m.mu.Unlock()
	switch {
	case !ok:
		return fmt.Errorf("no agent %q in this session", id)
	case status != Running:
		return fmt.Errorf("agent %s is %s, not running", id, status)
	}
	return child.Steer(text)
}

// Abort stops a child (a queued one never starts).
func (m *Manager) Abort(id string) error {
	m.mu.Lock()
	e, ok := m.entries[id]
	m.mu.Unlock()
	if !ok {
		return fmt.Errorf("no agent %q in this session", id)
	}
	e.cancel()
	return nil
}

// List reports every child of the session, oldest first.
func (m *Manager) List() []Result {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]Result, 0, len(m.order))
	for _, id := range m.order {
		out = append(out, m.entries[id].res)
	}
	return out
}

func cmpOr(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}
