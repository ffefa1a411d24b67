package lua

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	lua "github.com/yuin/gopher-lua"

	"pi/internal/proc"
	"pi/provider"
	"pi/tools"
)

// Default deadlines. Hooks sit on the agent's hot path, so they get little time; tools and
// commands do real work.
const (
	DefaultHookTimeout    = 5 * time.Second
	DefaultToolTimeout    = 10 * time.Minute
	DefaultCommandTimeout = 10 * time.Minute
)

// ErrClosed is returned by calls made after Close.
var ErrClosed = errors.New("lua runtime closed")

// Options configure a Runtime.
type Options struct {
	PiHome string // $PI_HOME (default ~/.pi is main's business)
	Cwd    string // the project directory; pi.cwd() and relative paths start here
	// Trust loads the project's .pi/init.lua for this run whatever trust.json says (--trust).
	Trust bool
	// AskTrust, when set (interactive mode), is asked once for an undecided project; the answer
	// is saved in $PI_HOME/trust.json. Print, JSON and RPC modes leave it nil.
	AskTrust func(ctx context.Context, dir string) (bool, error)
	// Disabled names bundled scripts (without .lua, e.g. "skills") not to load.
	Disabled []string
	// NoProject skips the project script and every package, the user's too (tests,
	// --no-extensions).
	NoProject bool
	// Environ is the environment pi.exec's commands get (pi's without the key variables); nil
	// means this process's.
	Environ func() []string

	// Packages are the folders of the user's packages and ProjectPackages the project's (which
	// load only when the project is trusted), in load order: each one's init.lua, then its
	// lua/*.lua, after the user's and the project's own scripts.
	Packages, ProjectPackages []string
	// Extensions are scripts to load after the others for this run (-e FILE).
	Extensions []string
	// Flags are the command line's flags pi does not know, for pi.flag (SplitFlags).
	Flags Flags

	HookTimeout    time.Duration // per handler; 0: DefaultHookTimeout
	ToolTimeout    time.Duration // Lua tools without their own timeout; 0: DefaultToolTimeout
	CommandTimeout time.Duration // 0: DefaultCommandTimeout
	// MemoryLimit is how many bytes Go's heap may grow past its size at New while Lua code
	// runs; a call that goes over is stopped. 0: DefaultMemoryLimit.
	MemoryLimit int64
	// Confine, when set, confines the commands pi.exec starts (the OS sandbox).
	Confine proc.Confiner
	// HTTPAllowed, when set, says whether pi.http may reach a host (the sandbox may deny the
	// network); nil allows every host.
	HTTPAllowed func(host string) error
	// Loaded, when set, replaces reading scripts from disk: a script's source is what Loaded
	// gives for its path, and a path it gives none for is not loaded. A child session under
	// the OS sandbox loads its parent's scripts so (Runtime.Sources): scripts run unconfined
	// in pi, and the confined commands may have rewritten the files since the parent read them.
	Loaded func(path string) (src string, ok bool)

	Host Host
}

// Notice is a message for the user: a script that failed to load, a hook that failed or timed
// out, a warning from a bundled script, or pi.notify.
type Notice struct {
	Level   string // info, warning, error
	Message string
}

// Runtime is the Lua side of pi. All methods are safe for concurrent use.
type Runtime struct {
	opts Options

	mu          sync.Mutex // guards the fields below and queue
	queue       []*task
	tools       []tools.Tool
	cmds        []Command
	shortcuts   []Shortcut
	providers   []provider.Definition // pi.register_provider (provider.go)
	packages    []string              // the package folders loaded, for pi.package_dirs
	sources     map[string]string     // the scripts read from disk at the last load, by path
	themes      []string              // theme folders resources_discover added
	stringFlags []string              // the flags registered with type "string", sorted
	nextTurn    []provider.Message    // pi.send_message's custom messages for the next prompt
	screen      []screenSlot          // the scripts' statuses, widgets and title (ui.go)
	events      map[string]int        // handler count per event, so callers skip work nobody listens to
	sleepEvents map[string]bool       // events that wake a sleeping script (true: every one; false: writing tool calls)
	guards      int                   // guard tool_call handlers, which fail closed
	notices     []Notice
	async       int             // observe-only tasks not finished yet
	idle        []chan struct{} // Flush waiters, closed when async reaches 0
	closed      bool
	runKill     context.CancelCauseFunc // stops the call the owner is running, nil between calls

	memBase  uint64      // the heap at New, what MemoryLimit adds to (set before any call)
	memTimer *time.Timer // samples the heap while a call runs (checkMemory)
	// collecting is set while a collection checkMemory started runs; lastTotal is the total
	// heap it saw last.
	collecting atomic.Bool
	lastTotal  atomic.Uint64

	signal chan struct{} // a task was queued
	wake   chan wakeup   // an awaited operation finished
	quit   chan struct{}
	done   chan struct{} // the owner goroutine has exited
	ready  chan struct{} // closed when the scripts New found are loaded
}

// New builds a runtime and starts loading the scripts: bundled ones, $PI_HOME/init.lua, then the
// project's .pi/init.lua if the directory is trusted (Options.AskTrust is asked before New
// returns). The scripts are compiled and run on other goroutines while the caller goes on; see
// Ready. Scripts that fail to load become notices; when ctx ends (SIGTERM) the loading stops.
// The error is for a runtime that cannot start.
func New(ctx context.Context, opts Options) (*Runtime, error) {
	if opts.HookTimeout <= 0 {
		opts.HookTimeout = DefaultHookTimeout
	}
	if opts.ToolTimeout <= 0 {
		opts.ToolTimeout = DefaultToolTimeout
	}
	if opts.CommandTimeout <= 0 {
		opts.CommandTimeout = DefaultCommandTimeout
	}
	if opts.MemoryLimit <= 0 {
		opts.MemoryLimit = DefaultMemoryLimit
	}
	r := &Runtime{opts: opts, events: map[string]int{}, signal: make(chan struct{}, 1),
		wake: make(chan wakeup, 16), quit: make(chan struct{}), done: make(chan struct{}),
		ready: make(chan struct{})}
	r.memTimer = time.AfterFunc(time.Hour, r.checkMemory)
	r.memTimer.Stop()
	scripts := r.collectScripts(ctx)
	compiled := compileAll(scripts)
	go func() {
		r.memBase, _ = heapBytes() // the first sample costs 70 µs: not on New's path
		r.own(newVM(r))
	}()
	// Loading is the first task, so every later call runs after it; New does not wait for it,
	// letting main go on with its own start-up (provider discovery, session loading) meanwhile.
	t := r.loadTask(ctx, scripts, compiled)
	t.loaded = r.ready
	if err := r.enqueue(t); err != nil {
		return nil, err
	}
	return r, nil
}

// Ready waits until the scripts New found have been loaded. Tools, Commands, HasHandlers and
// Notices wait for it themselves; hooks queue behind the loading anyway.
func (r *Runtime) Ready(ctx context.Context) error {
	select {
	case <-r.ready:
		return nil
	case <-r.quit:
		return ErrClosed
	case <-ctx.Done():
		return fmt.Errorf("waiting for Lua scripts to load: %w", ctx.Err())
	}
}

// waitReady is Ready without a deadline: loading is bounded by the per-script deadlines.
func (r *Runtime) waitReady() {
	select {
	case <-r.ready:
	case <-r.quit:
	}
}

// Reload builds a fresh Lua state and loads every script again (/reload). Work still waiting
// in the old state ends with an error.
func (r *Runtime) Reload(ctx context.Context) error {
	r.waitReady()
	scripts := r.collectScripts(ctx)
	compiled := compileAll(scripts)
	t := &task{ctx: ctx, timeout: r.opts.HookTimeout, done: make(chan struct{}), reload: true}
	if err := r.submit(ctx, t); err != nil {
		return err
	}
	if err := r.submit(ctx, r.loadTask(ctx, scripts, compiled)); err != nil {
		return err
	}
	r.DiscoverResources(ctx, "reload")
	return nil
}

// closeWait bounds Close: a library call that does not return (gsub on a huge string) is left
// behind after it.
const closeWait = time.Second

// Close stops the script running now, whatever it does, ends the calls waiting, and stops the
// owner goroutine. It returns within about a second: a library call that does not return
// (string.gsub on a huge string) is left to end by itself, the state then closes. Calls after
// Close fail with ErrClosed.
func (r *Runtime) Close() {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return
	}
	r.closed = true
	kill := r.runKill
	r.mu.Unlock()
	if kill != nil {
		kill(ErrClosed)
	}
	close(r.quit)
	wait := time.NewTimer(closeWait)
	defer wait.Stop()
	select {
	case <-r.done:
	case <-wait.C:
	}
}

// setRunning records the call the owner is resuming (kill, nil when it stops) so that Close
// and the heap check can stop it, and arms the heap check while it runs.
func (r *Runtime) setRunning(kill context.CancelCauseFunc) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.runKill = kill
	if kill == nil {
		r.memTimer.Stop()
		return
	}
	if r.closed {
		kill(ErrClosed)
	}
	r.memTimer.Reset(memCheckEvery)
}

// Tools returns the tools scripts registered, in registration order. A Lua tool named like a
// built-in replaces it: see MergeTools. The list changes when a script registers a tool later
// (from a command or a handler) and on Reload, so hosts ask again before each run.
func (r *Runtime) Tools() []tools.Tool {
	r.waitReady()
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]tools.Tool(nil), r.tools...)
}

// Commands returns the slash commands scripts registered, sorted by name.
func (r *Runtime) Commands() []Command {
	r.waitReady()
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Command(nil), r.cmds...)
}

// HasHandlers reports whether any script listens to event, so a host can skip building a
// payload nobody reads (message_update fires per token).
// A script sleeping until event fires counts as listening.
func (r *Runtime) HasHandlers(event string) bool {
	return r.listens(event, false)
}

// Notices returns the notices collected since the last call and forgets them. Notices also go
// to Host.Notify as they happen, when it is set.
func (r *Runtime) Notices() []Notice {
	r.waitReady()
	r.mu.Lock()
	defer r.mu.Unlock()
	n := r.notices
	r.notices = nil
	return n
}

// notify records a notice and passes it to the host. Safe from any goroutine.
func (r *Runtime) notify(level, format string, args ...any) {
	n := Notice{Level: level, Message: fmt.Sprintf(format, args...)}
	r.mu.Lock()
	if len(r.notices) < 1000 { // a script notifying in a loop must not eat memory
		r.notices = append(r.notices, n)
	}
	r.mu.Unlock()
	if r.opts.Host.Notify != nil {
		r.opts.Host.Notify(n.Message, n.Level)
	}
}

// Flush waits until every observe-only event queued by Emit has been handled (session
// shutdown, tests).
func (r *Runtime) Flush(ctx context.Context) error {
	r.mu.Lock()
	if r.async == 0 {
		r.mu.Unlock()
		return nil
	}
	ch := make(chan struct{})
	r.idle = append(r.idle, ch)
	r.mu.Unlock()
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("waiting for Lua event handlers: %w", ctx.Err())
	case <-r.done:
		return ErrClosed
	}
}

// enqueue hands a task to the owner goroutine without ever blocking, so the owner itself (a
// tool's ctx.update reaching a subscriber that calls Emit) can queue work.
func (r *Runtime) enqueue(t *task) error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return ErrClosed
	}
	if t.async {
		r.async++
	}
	r.queue = append(r.queue, t)
	r.mu.Unlock()
	select {
	case r.signal <- struct{}{}:
	default:
	}
	return nil
}

// submit queues t and waits for it to finish. The owner always finishes a task (deadlines
// bound every step), so waiting on done cannot hang past the task's deadline. When ctx ends
// while t is still queued (behind a handler stuck until its deadline), t is taken back and
// submit returns at once: an abort must not wait for someone else's script.
func (r *Runtime) submit(ctx context.Context, t *task) error {
	if err := r.enqueue(t); err != nil {
		return err
	}
	select {
	case <-t.done:
		return nil
	case <-r.done:
		return ErrClosed
	case <-ctx.Done():
		if r.unqueue(t) {
			return fmt.Errorf("waiting for the Lua runtime: %w", ctx.Err())
		}
	}
	select { // the owner has t: it ends soon, its context being done
	case <-t.done:
		return nil
	case <-r.done:
		return ErrClosed
	}
}

// unqueue takes t out of the queue if the owner has not taken it yet.
func (r *Runtime) unqueue(t *task) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	i := slices.Index(r.queue, t)
	if i < 0 {
		return false
	}
	r.queue = slices.Delete(r.queue, i, i+1)
	return true
}

func (r *Runtime) taskFinished(t *task) {
	close(t.done)
	if t.loaded != nil {
		close(t.loaded)
	}
	if !t.async {
		return
	}
	r.mu.Lock()
	r.async--
	var idle []chan struct{}
	if r.async == 0 {
		idle, r.idle = r.idle, nil
	}
	r.mu.Unlock()
	for _, ch := range idle {
		close(ch)
	}
}

// own is the owner goroutine: the only one that touches a Lua state.
func (r *Runtime) own(v *vm) {
	defer close(r.done)
	for {
		select {
		case <-r.signal:
			t := r.takeTask()
			if t == nil {
				continue
			}
			if t.reload {
				v.close(errors.New("the Lua state was reloaded"))
				v = newVM(r)
				r.taskFinished(t)
				continue
			}
			v.start(t)
		case w := <-r.wake:
			v.resume(w)
		case <-r.quit:
			v.close(ErrClosed)
			for _, t := range r.takeQueue() {
				r.taskFinished(t)
			}
			return
		}
	}
}

// takeTask takes the first task queued, one a turn: the others stay in the queue, where a
// caller whose context ends can take its task back (unqueue), and wakeups get their turn.
func (r *Runtime) takeTask() *task {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.queue) == 0 {
		return nil
	}
	t := r.queue[0]
	r.queue[0] = nil // the array behind the queue must not keep finished tasks
	r.queue = r.queue[1:]
	if len(r.queue) > 0 {
		select {
		case r.signal <- struct{}{}:
		default:
		}
	}
	return t
}

func (r *Runtime) takeQueue() []*task {
	r.mu.Lock()
	defer r.mu.Unlock()
	q := r.queue
	r.queue = nil
	return q
}

// call is one Lua function to run in a fresh coroutine.
type call struct {
	fn   *lua.LFunction
	args []lua.LValue
}

// task is a unit of work for the owner: a sequence of Lua calls, each in its own coroutine
// with its own deadline. next runs on the owner goroutine: first with no results, then with
// the results (or error) of the previous call; it returns the next call or nil when done.
type task struct {
	ctx     context.Context
	timeout time.Duration
	next    func(v *vm, rets []lua.LValue, err error) *call
	done    chan struct{}
	async   bool          // an observe-only event: counted for Flush
	trigger *wakeTrigger  // the event, command or subcommand it delivers: it wakes sleeping scripts
	reload  bool          // replace the state instead of running Lua
	loaded  chan struct{} // closed when the task finishes (the first load)
	// loading scripts: a question to the user counts against the deadline, because the host
	// may not show questions before the scripts are loaded.
	loading bool

	co      *lua.LState             // the coroutine running or suspended
	kill    context.CancelCauseFunc // stops the call with a cause: a limit, Close, the deadline
	timer   *time.Timer             // the call's deadline; stopped while the user is asked
	waiting bool                    // co yielded through await and a wakeup will come
}

// begin gives a call in co its context, which the runtime cancels with a cause: a limit,
// Close, or the call's deadline (a timer rather than a context of its own, which would double
// what a hook pays for contexts).
func (t *task) begin(co *lua.LState) {
	ctx, kill := context.WithCancelCause(t.ctx)
	t.kill = kill
	t.timer = time.AfterFunc(t.timeout, func() { kill(context.DeadlineExceeded) })
	co.SetContext(ctx)
	t.co, t.waiting = co, false
}

// end releases the call's context.
func (t *task) end() {
	t.timer.Stop()
	t.kill(nil)
}

func newTask(ctx context.Context, timeout time.Duration, next func(v *vm, rets []lua.LValue, err error) *call) *task {
	return &task{ctx: ctx, timeout: timeout, next: next, done: make(chan struct{})}
}

// wakeup carries the result of an awaited operation back to the owner; results builds the
// values the yielded Lua call returns, on the owner goroutine.
type wakeup struct {
	t       *task
	co      *lua.LState
	results func(L *lua.LState) []lua.LValue
	refresh bool // give the call a fresh deadline (it waited for the user)
}
