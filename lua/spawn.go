package lua

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"

	lua "github.com/yuin/gopher-lua"

	"pi/internal/proc"
)

// Bounds of pi.spawn. A child's output reaches Lua one batch at a time: the reader waits for
// the callbacks of a batch to finish before it reads on (a flooding child blocks on its full
// pipe instead of growing pi's memory), so a process holds at most a read buffer and one line
// per stream.
const (
	spawnChunkBytes   = 64 << 10 // one read; a chunk callback gets at most this much
	spawnMaxLineBytes = 1 << 20  // a longer line reaches on_stdout in pieces of this size
	spawnStdinBacklog = 8 << 20  // bytes written but not yet taken by the child
	spawnErrorNotices = 5        // failing callbacks reported per process; the rest are counted
)

// spawned is one process pi.spawn started. The owner goroutine touches the Lua side; the
// reader, writer and waiter goroutines only the pipes and the atomics.
type spawned struct {
	v        *vm
	run      *proc.Running
	name     string // the command, for messages
	script   string
	lines    bool
	onStdout *lua.LFunction
	onStderr *lua.LFunction
	onExit   *lua.LFunction

	stdin       chan []byte  // to the writer goroutine; closed by close_stdin
	stdinClosed bool         // owner only
	backlog     atomic.Int64 // bytes in stdin not yet written
	running     atomic.Bool
	failures    int // owner only: callbacks that raised
}

// spawn is pi.spawn{cmd, args?, cwd?, env?, on_stdout?, on_stderr?, on_exit?, lines? = true}.
func (v *vm) spawn(L *lua.LState) int {
	def := L.CheckTable(1)
	cmd := optString(L, def, "cmd")
	if cmd == "" {
		L.ArgError(1, "cmd: the program to run is required")
	}
	args, err := stringList("args", def.RawGetString("args"))
	if err != nil {
		L.ArgError(1, err.Error())
	}
	base := os.Environ()
	if v.r.opts.Environ != nil {
		base = v.r.opts.Environ() // without the key variables (see Safety)
	}
	env, err := spawnEnv(def.RawGetString("env"), base)
	if err != nil {
		L.ArgError(1, err.Error())
	}
	s := &spawned{v: v, name: cmd, script: v.script, lines: def.RawGetString("lines") != lua.LFalse,
		onStdout: optFunction(L, def, "on_stdout"), onStderr: optFunction(L, def, "on_stderr"),
		onExit: optFunction(L, def, "on_exit"), stdin: make(chan []byte, 1024)}
	s.run, err = proc.Start(v.ctx, proc.StartSpec{Name: cmd, Args: args, Dir: v.path(optString(L, def, "cwd")), Env: env,
		Confine: v.r.opts.Confine})
	if err != nil {
		return v.ok(L, fmt.Errorf("pi.spawn: %w", err))
	}
	s.running.Store(true)
	v.procs[s] = struct{}{}
	go s.writeStdin()
	go s.watch()
	L.Push(s.handle(L))
	return 1
}

// spawnEnv lays a {NAME = value} table over base (pi's environment without the key
// variables); nil keeps base as it is.
func spawnEnv(x lua.LValue, base []string) ([]string, error) {
	t, ok := x.(*lua.LTable)
	if x == lua.LNil {
		return base, nil
	}
	if !ok {
		return nil, fmt.Errorf("env: want a table of NAME = value, got %s", x.Type())
	}
	set := map[string]string{}
	var bad error
	t.ForEach(func(k, val lua.LValue) {
		ks, kok := k.(lua.LString)
		if !kok || val.Type() == lua.LTTable || val.Type() == lua.LTFunction {
			bad = fmt.Errorf("env: want NAME = string, got %s = %s", k.Type(), val.Type())
			return
		}
		set[string(ks)] = val.String()
	})
	if bad != nil {
		return nil, bad
	}
	env := make([]string, 0, len(base)+len(set))
	for _, kv := range base {
		name, _, _ := strings.Cut(kv, "=")
		if _, overridden := set[name]; !overridden {
			env = append(env, kv)
		}
	}
	names := make([]string, 0, len(set))
	for k := range set {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		env = append(env, k+"="+set[k])
	}
	return env, nil
}

func optFunction(L *lua.LState, t *lua.LTable, key string) *lua.LFunction {
	switch x := t.RawGetString(key).(type) {
	case *lua.LNilType:
		return nil
	case *lua.LFunction:
		return x
	default:
		L.RaiseError("field %q: want a function, got %s", key, x.Type())
		return nil
	}
}

// handle builds the table a script holds: write, close_stdin, kill, running, pid. Methods
// work with a colon (h:write(s)) and with a dot (h.write(s)).
func (s *spawned) handle(L *lua.LState) *lua.LTable {
	h := L.NewTable()
	h.RawSetString("pid", lua.LNumber(s.run.Pid))
	method := func(name string, fn func(L *lua.LState, base int) int) {
		h.RawSetString(name, L.NewFunction(func(L *lua.LState) int {
			base := 1
			if L.Get(1) == h {
				base = 2
			}
			return fn(L, base)
		}))
	}
	method("write", s.write)
	method("close_stdin", func(L *lua.LState, _ int) int {
		s.closeStdin()
		return 0
	})
	method("kill", s.kill)
	method("running", func(L *lua.LState, _ int) int {
		L.Push(lua.LBool(s.running.Load()))
		return 1
	})
	return h
}

// closeStdin ends the writer goroutine once it has written what is queued. Owner only.
func (s *spawned) closeStdin() {
	if !s.stdinClosed {
		s.stdinClosed = true
		close(s.stdin)
	}
}

// write queues data for the child's stdin and returns at once: a child that does not read
// must not stop the Lua goroutine. The backlog is bounded; past it write fails.
func (s *spawned) write(L *lua.LState, base int) int {
	data := L.CheckString(base)
	switch {
	case s.stdinClosed:
		return s.v.ok(L, errors.New("stdin is closed"))
	case !s.running.Load():
		return s.v.ok(L, errors.New("the process has exited"))
	case s.backlog.Load()+int64(len(data)) > spawnStdinBacklog:
		return s.v.ok(L, fmt.Errorf("the process has not read the last %d MiB written to it yet", spawnStdinBacklog>>20))
	}
	select {
	case s.stdin <- []byte(data):
		s.backlog.Add(int64(len(data)))
		return s.v.ok(L, nil)
	default:
		return s.v.ok(L, errors.New("too many writes waiting for the process"))
	}
}

func (s *spawned) kill(L *lua.LState, base int) int {
	sig, err := signalOf(L.Get(base))
	if err != nil {
		L.ArgError(base, err.Error())
	}
	if err := s.run.Signal(sig); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return s.v.ok(L, err)
	}
	return s.v.ok(L, nil)
}

// signalOf reads a signal name ("TERM", "SIGKILL") or number; nil is TERM.
func signalOf(x lua.LValue) (syscall.Signal, error) {
	switch x := x.(type) {
	case *lua.LNilType:
		return syscall.SIGTERM, nil
	case lua.LNumber:
		return syscall.Signal(int(x)), nil
	case lua.LString:
		name := strings.TrimPrefix(strings.ToUpper(string(x)), "SIG")
		for _, s := range []struct {
			name string
			sig  syscall.Signal
		}{{"TERM", syscall.SIGTERM}, {"KILL", syscall.SIGKILL}, {"INT", syscall.SIGINT}, {"HUP", syscall.SIGHUP}, {"QUIT", syscall.SIGQUIT}} {
			if s.name == name {
				return s.sig, nil
			}
		}
		if n, err := strconv.Atoi(name); err == nil {
			return syscall.Signal(n), nil
		}
	}
	return 0, fmt.Errorf("signal: want TERM, KILL, INT, HUP, QUIT or a number, got %s", x.String())
}

// writeStdin feeds the child's stdin until close_stdin, then closes it. After the child is
// gone writes fail and the rest is dropped.
func (s *spawned) writeStdin() {
	broken := false
	for b := range s.stdin {
		if !broken {
			_, err := s.run.Stdin.Write(b)
			broken = err != nil
		}
		s.backlog.Add(-int64(len(b)))
	}
	s.run.Stdin.Close()
}

// watch reads both streams to their end, waits for the process, then calls on_exit. Every
// output callback runs before on_exit.
func (s *spawned) watch() {
	done := make(chan struct{}, 2)
	go func() { s.read(s.run.Stdout, s.onStdout, "on_stdout"); done <- struct{}{} }()
	go func() { s.read(s.run.Stderr, s.onStderr, "on_stderr"); done <- struct{}{} }()
	<-done
	<-done
	exit, err := s.run.Wait()
	s.running.Store(false)
	code := lua.LValue(lua.LNumber(exit.Code))
	sig := lua.LValue(lua.LNil)
	if exit.Signal != "" {
		sig = lua.LString(exit.Signal)
	}
	if err != nil {
		sig = lua.LString(err.Error())
	}
	var calls [][]lua.LValue
	if s.onExit != nil {
		calls = [][]lua.LValue{{code, sig}}
	}
	s.deliver("on_exit", s.onExit, calls, true)
}

// read passes a stream to fn in chunks or lines, one batch at a time. Without a callback the
// stream is read and dropped, so the child never blocks on it.
func (s *spawned) read(r io.Reader, fn *lua.LFunction, what string) {
	buf := make([]byte, spawnChunkBytes)
	var line []byte
	for {
		n, err := r.Read(buf)
		if n > 0 && fn != nil {
			var batch [][]lua.LValue
			if s.lines {
				batch, line = splitLines(line, buf[:n])
			} else {
				batch = [][]lua.LValue{{lua.LString(buf[:n])}}
			}
			if !s.deliver(what, fn, batch, false) {
				io.Copy(io.Discard, r) // the state is gone: drain until the kill ends the pipe
				return
			}
		}
		if err != nil {
			break
		}
	}
	if len(line) > 0 && fn != nil {
		s.deliver(what, fn, [][]lua.LValue{{lua.LString(line)}}, false)
	}
}

// splitLines appends data to the partial line and returns the complete lines (without their
// newline, and without a \r before it) and the new partial line. A partial line longer than
// spawnMaxLineBytes is passed on in pieces of that size.
func splitLines(partial, data []byte) ([][]lua.LValue, []byte) {
	var out [][]lua.LValue
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			partial = append(partial, data...)
			break
		}
		l := append(partial, data[:i]...)
		out = append(out, []lua.LValue{lua.LString(bytes.TrimSuffix(l, []byte{'\r'}))})
		partial, data = partial[:0], data[i+1:]
	}
	for len(partial) >= spawnMaxLineBytes {
		out = append(out, []lua.LValue{lua.LString(partial[:spawnMaxLineBytes])})
		partial = append(partial[:0], partial[spawnMaxLineBytes:]...)
	}
	return out, partial
}

// deliver runs fn for each argument list of calls and waits for it: the backpressure that
// bounds a process's memory. last removes the process from its state's list. It reports false
// when the state the process belongs to is gone.
func (s *spawned) deliver(what string, fn *lua.LFunction, calls [][]lua.LValue, last bool) bool {
	var after func(v *vm)
	if last {
		after = func(v *vm) {
			delete(v.procs, s)
			s.closeStdin()
		}
	}
	return s.v.callback(fn, calls, func(err error) { s.failed(what, err) }, after)
}

// failed reports a callback that raised, a few times per process.
func (s *spawned) failed(what string, err error) {
	if s.v.ctx.Err() != nil {
		return
	}
	s.failures++
	who := s.name
	if s.script != "" {
		who += " (" + filepath.Base(s.script) + ")"
	}
	switch {
	case s.failures < spawnErrorNotices:
		s.v.r.notify("error", "lua: pi.spawn %s callback of %s failed: %s", what, who, cleanError(err))
	case s.failures == spawnErrorNotices:
		s.v.r.notify("error", "lua: pi.spawn %s callback of %s failed again: %s; further failures are not shown", what, who, cleanError(err))
	}
}

// killAll kills every process the state started, at once and synchronously (pi may exit right
// after), before the state closes.
func (v *vm) killAll() {
	for s := range v.procs {
		_ = s.run.Signal(syscall.SIGKILL)
		s.closeStdin()
	}
	v.stop()
}
