//go:build unix

package lua

import (
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"pi/internal/cputime"
	"pi/internal/testwait"
)

// runSpawn is a tool that spawns a process with opts (a Lua table's body), collects what its
// callbacks see, and returns it as "out|err|code|signal" once on_exit has run.
const runSpawn = `
pi.register_tool{name = "run", execute = function(args)
  local out, err, f = {}, {}, pi.future()
  local opts = pi.json_decode(args.opts)
  opts.on_stdout = function(s) out[#out + 1] = s end
  opts.on_stderr = function(s) err[#err + 1] = s end
  opts.on_exit = function(code, sig) f:resolve({code = code, sig = sig or ""}) end
  local h = assert(pi.spawn(opts))
  if args.stdin then assert(h:write(args.stdin)) h:close_stdin() end
  local e = assert(f:wait(10))
  return table.concat(out, ",") .. "|" .. table.concat(err, ",") .. "|" .. e.code .. "|" .. e.sig
end}`

func TestSpawnModes(t *testing.T) {
	tests := []struct {
		name, opts, stdin, want string
	}{
		{"lines", `{"cmd":"printf","args":["a\nb\r\nc"]}`, "", "a,b,c||0|"},
		{"chunks", `{"cmd":"sh","args":["-c","printf 'a\\nb'"],"lines":false}`, "", "a\nb||0|"},
		{"stderr and exit code", `{"cmd":"sh","args":["-c","echo out; echo err >&2; exit 3"]}`, "", "out|err|3|"},
		{"stdin", `{"cmd":"cat"}`, "one\ntwo\n", "one,two||0|"},
		{"env and cwd", `{"cmd":"sh","args":["-c","echo $PI_SPAWN_X; pwd"],"env":{"PI_SPAWN_X":"42"},"cwd":"/"}`, "", "42,/||0|"},
		{"signal", `{"cmd":"sh","args":["-c","kill -TERM $$"]}`, "", "||-1|terminated"},
		{"empty output", `{"cmd":"true"}`, "", "||0|"},
	}
	e := newEnv(t)
	r := e.start(t, runSpawn)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args := map[string]any{"opts": tc.opts}
			if tc.stdin != "" {
				args["stdin"] = tc.stdin
			}
			res := execTool(t, r, "run", args)
			if got := text(res); got != tc.want || res.IsError {
				t.Errorf("got %q (error %v), want %q", got, res.IsError, tc.want)
			}
		})
	}
	e.noErrors(t)
}

// A spawned process gets the environment pi.exec gets (without the key variables), with the
// script's env table laid over it.
func TestSpawnGetsTheScrubbedEnvironment(t *testing.T) {
	t.Setenv("PI_SPAWN_SECRET_KEY", "hunter2")
	e := newEnv(t)
	e.opts.Environ = func() []string { return []string{"PATH=" + os.Getenv("PATH"), "PI_SPAWN_KEPT=yes"} }
	r := e.start(t, runSpawn)
	opts := `{"cmd":"sh","args":["-c","echo ${PI_SPAWN_SECRET_KEY:-none} $PI_SPAWN_KEPT $PI_SPAWN_X"],"env":{"PI_SPAWN_X":"1"}}`
	if got := text(execTool(t, r, "run", map[string]any{"opts": opts})); got != "none yes 1||0|" {
		t.Errorf("the spawned process saw %q, want the scrubbed environment and the script's variable", got)
	}
}

func TestSpawnFailures(t *testing.T) {
	e := newEnv(t)
	r := e.start(t, `
pi.register_tool{name = "missing", execute = function()
  local h, err = pi.spawn{cmd = "/nonexistent/program"} return tostring(h) .. " " .. err end}
pi.register_tool{name = "pcall_wait", execute = function()
  local ok, err = pcall(function() return pi.future():wait(1) end) return tostring(ok) .. " " .. err end}
pi.register_tool{name = "timeout", execute = function()
  local v, err = pi.future():wait(0.1) return tostring(v) .. " " .. err end}
pi.register_tool{name = "kill", execute = function()
  local f = pi.future()
  local h = pi.spawn{cmd = "sleep", args = {"100"}, on_exit = function(c, s) f:resolve(s) end}
  local before = h:running()
  h:kill("KILL")
  local sig = f:wait(5)
  return tostring(before) .. " " .. tostring(h:running()) .. " " .. sig .. " " .. tostring(h:write("x"))
end}`)
	tests := []struct{ tool, want string }{
		{"missing", "nil pi.spawn: starting /nonexistent/program"},
		{"pcall_wait", "false"},
		{"timeout", "nil timeout"},
		{"kill", "true false killed nil"},
	}
	for _, tc := range tests {
		if got := text(execTool(t, r, tc.tool, nil)); !strings.HasPrefix(got, tc.want) {
			t.Errorf("%s: got %q, want it to start with %q", tc.tool, got, tc.want)
		}
	}
}

// A callback that raises becomes a notice (a few per process, not one per line), and the
// process, its other callbacks and the runtime go on.
func TestSpawnCallbackErrorContained(t *testing.T) {
	e := newEnv(t)
	r := e.start(t, `
pi.register_tool{name = "bad", execute = function()
  local f, n = pi.future(), 0
  pi.spawn{cmd = "seq", args = {"50"},
    on_stdout = function(l) n = n + 1 error("boom " .. l) end,
    on_exit = function(code) f:resolve(code) end}
  return "exit " .. f:wait(10) .. " after " .. n .. " lines"
end}`)
	if got := text(execTool(t, r, "bad", nil)); got != "exit 0 after 50 lines" {
		t.Fatalf("got %q", got)
	}
	var spawnNotices int
	for _, n := range e.notices() {
		if strings.Contains(n.Message, "pi.spawn on_stdout callback of seq") {
			spawnNotices++
		}
	}
	if _, ok := e.noticeContaining("boom 1"); !ok || spawnNotices != spawnErrorNotices {
		t.Errorf("%d notices, want %d starting with boom 1: %v", spawnNotices, spawnErrorNotices, e.notices())
	}
}

// pidOf starts `sleep 1000` from a tool and returns its pid.
const spawnSleeper = `
pi.register_tool{name = "sleeper", execute = function()
  return tostring(pi.spawn{cmd = "sh", args = {"-c", "sleep 1000 & sleep 1000"}}.pid) end}`

func TestSpawnedChildKilled(t *testing.T) {
	tests := []struct {
		name string
		stop func(r *Runtime) error
	}{
		{"reload", func(r *Runtime) error { return r.Reload(ctxT(t)) }},
		{"close", func(r *Runtime) error { r.Close(); return nil }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			r := e.start(t, spawnSleeper)
			pid, err := strconv.Atoi(text(execTool(t, r, "sleeper", nil)))
			if err != nil || !alive(pid) {
				t.Fatalf("pid %d (%v) not running", pid, err)
			}
			if _, err := os.ReadDir("/proc"); err == nil { // the shell has started its background sleep
				testwait.Until(t, "the shell and its background sleep", func() bool { return groupSize(pid) >= 2 })
			}
			if err := tc.stop(r); err != nil {
				t.Fatal(err)
			}
			if !testwait.Within(testwait.Deadline, func() bool { return !groupAlive(pid) }) {
				syscall.Kill(-pid, syscall.SIGKILL)
				t.Fatalf("process group %d outlived %s", pid, tc.name)
			}
		})
	}
}

// A child flooding stdout, with lines and without, is read only as fast as the callbacks
// take it: pi's heap stays small while gigabytes pass.
func TestSpawnFloodBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("floods for seconds")
	}
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(512 << 20)) // a regression must not take the machine down
	tests := []struct {
		name, opts string
		least      int // bytes that must pass in 2 s (short lines cost a call each)
	}{
		{"chunks", `lines = false`, 1 << 20},
		{"short lines", `cmd = "yes"`, 4096}, // 36 KiB under -race
		{"one endless line", `lines = true`, 1 << 20},
	}
	e := newEnv(t)
	r := e.start(t, `
pi.register_tool{name = "flood", execute = function(args)
  local opts = assert(loadstring("return {" .. args.opts .. "}"))()
  opts.cmd = opts.cmd or "cat"
  if opts.cmd == "cat" then opts.args = {"/dev/zero"} end
  local n, f = 0, pi.future()
  opts.on_stdout = function(s) n = n + #s end
  local h = pi.spawn(opts)
  f:wait(2)
  h:kill("KILL")
  return tostring(n)
end}`)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			runtime.GC()
			var before, peak runtime.MemStats
			runtime.ReadMemStats(&before)
			stop, sampled := make(chan struct{}), make(chan struct{})
			go func() {
				defer close(sampled)
				for {
					select {
					case <-stop:
						return
					case <-time.After(50 * time.Millisecond):
						var m runtime.MemStats
						runtime.ReadMemStats(&m)
						if m.HeapInuse > peak.HeapInuse {
							peak = m
						}
					}
				}
			}()
			n, _ := strconv.Atoi(text(execTool(t, r, "flood", map[string]any{"opts": tc.opts})))
			close(stop)
			<-sampled
			grew := int64(peak.HeapInuse) - int64(before.HeapInuse)
			t.Logf("%s: %d KiB passed through on_stdout in 2 s; heap in use grew at most %d MiB", tc.name, n>>10, grew>>20)
			if n < tc.least || grew > 64<<20 {
				t.Errorf("%d bytes delivered, heap grew %d MiB (want over %d delivered, < 64 MiB growth); notices %v", n, grew>>20, tc.least, e.notices())
			}
		})
	}
}

func alive(pid int) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return syscall.Kill(pid, 0) == nil
	}
	f := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+1:]))
	return len(f) > 0 && f[0] != "Z"
}

// groupAlive reports whether any process of the group pid leads still runs.
func groupAlive(pid int) bool {
	if _, err := os.ReadDir("/proc"); err != nil {
		return syscall.Kill(-pid, 0) == nil
	}
	return groupSize(pid) > 0
}

// groupSize counts the live processes of the group pid leads (0 without /proc).
func groupSize(pid int) int {
	entries, _ := os.ReadDir("/proc")
	n := 0
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if pgid, err := syscall.Getpgid(p); err == nil && pgid == pid && alive(p) {
			n++
		}
	}
	return n
}

// A process that exits leaves nothing behind: its reader, writer and waiter goroutines end
// (an MCP server restarted again and again must not pile them up).
func TestSpawnLeavesNoGoroutines(t *testing.T) {
	e := newEnv(t)
	r := e.start(t, `
pi.register_tool{name = "many", execute = function()
  for i = 1, 200 do
    local f = pi.future()
    pi.spawn{cmd = "true", on_exit = function() f:resolve(true) end}
    f:wait(5)
  end
  return "ok"
end}`)
	execTool(t, r, "many", nil) // warm up: the runtime's own goroutines
	testwait.Until(t, "the warm-up's spawn goroutines to end", func() bool { return spawnGoroutines() == 0 })
	before := runtime.NumGoroutine()
	if got := text(execTool(t, r, "many", nil)); got != "ok" {
		t.Fatal(got)
	}
	testwait.Within(testwait.Deadline, func() bool { return spawnGoroutines() == 0 && runtime.NumGoroutine() <= before+5 })
	if n, left := runtime.NumGoroutine(), spawnGoroutines(); n > before+5 || left > 0 {
		t.Errorf("%d goroutines (%d of them pi.spawn's) after 200 processes exited, %d before", n, left, before)
	}
}

// spawnGoroutines counts the goroutines in pi.spawn's code: the reader, writer and waiter of a
// child still running or just gone.
func spawnGoroutines() int {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			count := 0
			for _, g := range strings.Split(string(buf[:n]), "\n\n") {
				if strings.Contains(g, "pi/lua.(*spawned).") {
					count++
				}
			}
			return count
		}
		buf = make([]byte, 2*len(buf))
	}
}

// Another tool still runs promptly while a child floods a line callback: the callbacks of one
// read go in tasks of a few hundred calls, and other work takes its turn between them. What a
// call waits for is measured in this process's CPU time (the callbacks it waits behind), which
// other people's load on the machine does not stretch as it does wall time.
func TestSpawnFloodDoesNotStarveOthers(t *testing.T) {
	if cputime.Used() == 0 {
		t.Skip("no CPU time on this platform")
	}
	e := newEnv(t)
	r := e.start(t, `
local h
lines = 0
pi.register_tool{name = "flood", execute = function()
  h = pi.spawn{cmd = "yes", on_stdout = function(l) lines = lines + 1 end} return "started" end}
pi.register_tool{name = "stop", execute = function() h:kill("KILL") return "stopped" end}
pi.register_tool{name = "lines", execute = function() return tostring(lines) end}
pi.register_tool{name = "ping", execute = function() return "pong" end}`)
	execTool(t, r, "flood", nil)
	defer execTool(t, r, "stop", nil)
	testwait.Until(t, "the flood's first lines", func() bool { return text(execTool(t, r, "lines", nil)) != "0" })
	waits := make([]time.Duration, 7)
	for i := range waits {
		start := cputime.Used()
		if got := text(execTool(t, r, "ping", nil)); got != "pong" {
			t.Fatal(got)
		}
		waits[i] = cputime.Used() - start
	}
	slices.Sort(waits)
	t.Logf("CPU time spent while each of 7 tool calls waited during the flood: %v", waits)
	// One read of "y\n" as a single task took 200 ms (2 s under -race); the median is what
	// every call pays, the slowest may have met a pause of this test's own thread.
	if median := waits[len(waits)/2]; median > 100*time.Millisecond {
		t.Errorf("a tool call waited %v of CPU time (median) while a child flooded", median)
	}
}
