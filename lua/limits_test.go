package lua

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"pi/internal/testwait"
	"pi/tools"
)

// Hostile scripts run in a child process (this test binary again, told which case by
// hostileEnv) that the parent watches and kills when its resident memory passes a cap, so a
// limit that stops working fails the test instead of taking the machine down.
const hostileEnv = "PI_LUA_HOSTILE_CASE"

// memoryEnv sets Options.MemoryLimit in MiB for every case (the cases use 64 MiB, or their
// own), to measure the default: PI_LUA_TEST_MEMORY_MIB=512 go test ./lua/ -run Hostile -v.
// Only the cap on the child's memory is checked then; the times and messages are logged.
const memoryEnv = "PI_LUA_TEST_MEMORY_MIB"

// testMemoryLimit is the limit memoryEnv asks for, 0 when unset.
func testMemoryLimit() int64 {
	mib, _ := strconv.ParseInt(os.Getenv(memoryEnv), 10, 64)
	return mib << 20
}

// hostileCase is one script that tries to take pi down, how the child drives it, and how it
// must end: with want in the error, within the CPU time given, and pi going on afterwards.
type hostileCase struct {
	name   string
	script string // the project's .pi/init.lua
	// do: load (the error is a load notice), tool (run the tool "bad"), hook (a tool_call
	// hook), close (Close while the tool "bad" runs), cancel (cancel the tool's context),
	// cancel-load (cancel New's context while the script loads), close-load.
	do   string
	want string
	// within bounds the child's CPU time (all its threads) from the start of the action (New,
	// Close, the cancel) to its end: the interpreter's work until a limit stopped it. CPU time,
	// unlike wall time, does not stretch when a loaded machine runs the child less often.
	within time.Duration
	memory int64 // Options.MemoryLimit; 0: 64 MiB
}

// running is what a stop case's script says before its endless loop, and stopWithin how much
// CPU time it may burn after the stop: the endless loop keeps a core busy until it stops.
const (
	running    = `pi.notify("RUNNING") `
	stopWithin = 3 * time.Second
)

const recurse = `local function f() local co = coroutine.create(f); coroutine.resume(co) end
`

func hostileCases() []hostileCase {
	tool := func(body string) string {
		return `pi.register_tool{name = "bad", description = "d", execute = function() ` + body + ` end}`
	}
	hook := func(body string) string { return `pi.on("tool_call", function() ` + body + ` end)` }
	return []hostileCase{
		{"coroutine recursion while loading", recurse + ` f()`, "load", "coroutines nested deeper than 200", 3 * time.Second, 0},
		{"coroutine.wrap recursion in a tool", tool(`local function f() coroutine.wrap(f)() end f()`), "tool", "coroutines nested deeper than 200", 3 * time.Second, 0},
		{"coroutine recursion in a hook, under pcall in a loop", recurse + hook(`while true do pcall(f) end`), "hook", "coroutines nested deeper than 200", 3 * time.Second, 0},
		// gopher-lua would run the two coroutines into each other until Go's stack overflows.
		{"resuming the coroutine that resumes this one", tool(`local outer
			outer = coroutine.create(function()
				local inner = coroutine.create(function() return coroutine.resume(outer) end)
				local _, ok, msg = coroutine.resume(inner)
				coroutine.yield(tostring(ok) .. " " .. msg)
			end)
			local _, r = coroutine.resume(outer) return r`), "tool", "false cannot resume non-suspended coroutine", 3 * time.Second, 0},
		{"coroutines kept alive", `local t = {} for i = 1, 1e6 do t[i] = coroutine.create(print) end`, "load", "more than 10000 coroutines alive", 10 * time.Second, 512 << 20},
		{"string.rep into a table in a tool", tool(`local t = {} while true do t[#t+1] = string.rep("x", 1048576) end`), "tool", "out of memory for scripts", 15 * time.Second, 0},
		{"a global table that grows forever in a hook", hook(`t = t or {} while true do t[#t+1] = {} end`), "hook", "out of memory for scripts", 15 * time.Second, 0},
		{"a string that doubles while loading", `local s = "x" while true do s = s .. s end`, "load", "out of memory for scripts", 15 * time.Second, 0},
		{"table.concat of one big string many times", tool(`local s, t = string.rep("x", 1048576), {} for i = 1, 1000 do t[i] = s end return table.concat(t)`), "tool", "table.concat: a result of", 3 * time.Second, 0},
		{"pi.read_file of /dev/zero", tool(`return select(2, pi.read_file("/dev/zero"))`), "tool", "character device, not a regular file", 5 * time.Second, 512 << 20},
		{"string.gsub over a 60 MB string", tool(`local s = string.rep("a", 60 * 1048576) local r, n = s:gsub("a", "b") return #r .. " " .. n`), "tool", "out of memory for scripts", 15 * time.Second, 0},
		{"a pattern that backtracks without end, in a hook", hook(`string.find(string.rep("a", 100000), string.rep(".-", 5) .. "b")`), "hook", "timed out after 30s", 45 * time.Second, 0},
		{"string.format with a width of 100 MB", tool(`return select(2, pcall(string.format, "%99999999s", "x"))`), "tool", "width or precision too long", 3 * time.Second, 0},
		// The stop cases say "running" before their endless loop: the stop waits for it.
		{"Close during an endless tool", tool(running + `while true do end`), "close", "", stopWithin, 0},
		{"Close during coroutine churn in a tool", tool(running + `while true do pcall(coroutine.wrap(function() local t = {} for i = 1, 1e4 do t[i] = {} end end)) end`), "close", "", stopWithin, 0},
		{"Close while a script loads forever", running + `while true do end`, "close-load", "", stopWithin, 0},
		{"a cancelled context stops an endless tool", tool(running + `while true do end`), "cancel", "", stopWithin, 0},
		{"a cancelled context stops loading", running + `while true do end`, "cancel-load", "", stopWithin, 0},
	}
}

// hostileResult is what the child reports.
type hostileResult struct {
	Text    string        // the error: notices, or the tool's result
	Elapsed time.Duration // the action, or from Close or the cancel to the end: logged only
	CPU     time.Duration // the child's CPU time over the same span
	After   string        // the healthy tool's result afterwards ("" after Close)
}

// stopwatch measures a span in wall time and in this process's CPU time.
type stopwatch struct {
	wall time.Time
	cpu  time.Duration
}

func startStopwatch() stopwatch { return stopwatch{wall: time.Now(), cpu: processCPU()} }

// stop fills in res's Elapsed and CPU.
func (w stopwatch) stop(res hostileResult) hostileResult {
	res.Elapsed, res.CPU = time.Since(w.wall), processCPU()-w.cpu
	return res
}

// processCPU is the user and system time of every thread of this process.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func TestHostileScripts(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a child process per case")
	}
	rssCap := max(int64(1<<30), 6*testMemoryLimit()) // s = s .. s is caught a doubling or two late
	if raceEnabled() {
		rssCap *= 2 // the race detector's shadow memory comes on top of the heap
	}
	for _, c := range hostileCases() {
		t.Run(c.name, func(t *testing.T) {
			res, peak := runHostileChild(t, c.name, rssCap)
			t.Logf("%s: stopped in %v (CPU %v), peak RSS %d MiB: %s", c.do, res.Elapsed.Round(time.Millisecond),
				res.CPU.Round(time.Millisecond), peak>>20, res.Text)
			if testMemoryLimit() > 0 {
				return // measuring another limit: the cap on the child's memory is the test
			}
			if !strings.Contains(res.Text, c.want) {
				t.Errorf("the error %q does not say %q", res.Text, c.want)
			}
			if res.CPU > c.within {
				t.Errorf("took %v of CPU time, want at most %v", res.CPU, c.within)
			}
			if !strings.HasPrefix(c.do, "close") && !strings.HasPrefix(c.do, "cancel") && res.After != "fine" {
				t.Errorf("pi did not carry on: the healthy tool gave %q", res.After)
			}
		})
	}
}

// TestHostileChild is the child's side: it runs the case named in hostileEnv and prints the
// result as one JSON line.
func TestHostileChild(t *testing.T) {
	name := os.Getenv(hostileEnv)
	if name == "" {
		t.Skip("only as a child of TestHostileScripts")
	}
	for _, c := range hostileCases() {
		if c.name == name {
			res := runHostile(t, c)
			data, _ := json.Marshal(res)
			fmt.Printf("HOSTILE-RESULT %s\n", data)
			return
		}
	}
	t.Fatalf("no case %q", name)
}

func runHostile(t *testing.T, c hostileCase) hostileResult {
	e := newEnv(t)
	e.opts.HookTimeout = 30 * time.Second // the limits must stop these, not the deadline
	e.opts.ToolTimeout = 30 * time.Second
	e.opts.MemoryLimit = 64 << 20
	if c.memory > 0 {
		e.opts.MemoryLimit = c.memory
	}
	if n := testMemoryLimit(); n > 0 {
		e.opts.MemoryLimit = n
	}
	if strings.HasSuffix(c.do, "-load") || c.do == "load" {
		e.opts.HookTimeout = 5 * time.Second // loading has its documented deadline
	}
	writeFile(t, e.home+"/init.lua", `pi.register_tool{name = "ok", description = "d", execute = function() return "fine" end}`)
	e.write(t, ".pi/init.lua", c.script)
	if strings.HasSuffix(c.do, "-load") {
		return hostileLoad(t, e, c)
	}
	watch := startStopwatch()
	r, err := New(context.Background(), e.opts)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := r.Ready(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	var res hostileResult
	if c.do != "load" {
		watch = startStopwatch()
	}
	switch c.do {
	case "load":
		res.Text = noticeText(e)
	case "tool":
		res.Text = text(runTool(t, r, "bad", context.Background()))
	case "hook":
		r.ToolCall(context.Background(), "bash", "1", map[string]any{"command": "ls"})
		res.Text = noticeText(e)
	case "close", "cancel":
		return hostileStop(t, e, r, c)
	}
	res = watch.stop(res)
	res.After = text(runTool(t, r, "ok", context.Background()))
	return res
}

// hostileStop starts the tool "bad" and, once it has run a while, closes the runtime or
// cancels the tool's context; Elapsed and CPU are what the tool took to stop after that. A
// tool that never stops is left to the parent's guard, and its CPU time shows it.
func hostileStop(t *testing.T, e *env, r *Runtime, c hostileCase) hostileResult {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan tools.Result, 1)
	go func() { done <- runTool(t, r, "bad", ctx) }()
	waitRunning(t, e)
	watch := startStopwatch()
	if c.do == "close" {
		r.Close()
	} else {
		cancel()
	}
	return watch.stop(hostileResult{Text: text(<-done)})
}

// hostileLoad starts a runtime whose script never finishes loading and closes it, or cancels
// New's context, after a while; Elapsed and CPU are what it took until Ready returned after that.
func hostileLoad(t *testing.T, e *env, c hostileCase) hostileResult {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r, err := New(ctx, e.opts)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	waitRunning(t, e)
	watch := startStopwatch()
	if c.do == "close-load" {
		r.Close()
	} else {
		cancel()
	}
	r.Ready(context.Background())
	return watch.stop(hostileResult{Text: noticeText(e)})
}

// waitRunning waits until a stop case's script has said it runs its endless loop.
func waitRunning(t *testing.T, e *env) {
	t.Helper()
	testwait.Until(t, "the script's RUNNING notice", func() bool { _, ok := e.noticeContaining("RUNNING"); return ok })
}

func runTool(t *testing.T, r *Runtime, name string, ctx context.Context) tools.Result {
	for _, tool := range r.Tools() {
		if tool.Info().Name == name {
			res, _ := tool.Execute(ctx, "id", map[string]any{}, nil)
			return res
		}
	}
	t.Fatalf("no tool %q", name)
	return tools.Result{}
}

func noticeText(e *env) string {
	var parts []string
	for _, n := range e.notices() {
		parts = append(parts, n.Message)
	}
	return strings.Join(parts, "\n")
}

// The guards on a hostile child, which only catch a limit that stopped working: a child that
// works past childCPULimit, or, working or not, lives past childWallLimit (a wall bound, so
// it is loose enough for a loaded machine).
const (
	childCPULimit  = time.Minute
	childWallLimit = 5 * time.Minute
)

// runHostileChild runs one case in a child process, killing it when its RSS passes rssCap or
// it passes a guard, and returns what it reported and its peak RSS.
func runHostileChild(t *testing.T, name string, rssCap int64) (hostileResult, int64) {
	if runtime.GOOS != "linux" {
		t.Skip("watches the child's memory through /proc")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestHostileChild$", "-test.count=1")
	// The child's temporary files go under the parent's, which go away even when it is killed.
	cmd.Env = append(os.Environ(), hostileEnv+"="+name, "TMPDIR="+t.TempDir())
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(childWallLimit)
	for {
		select {
		case err := <-exited:
			peak := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10
			return parseHostile(t, out.Bytes(), err), peak
		case <-tick.C:
			rss, cpu := residentBytes(cmd.Process.Pid), cpuTime(cmd.Process.Pid)
			if rss > rssCap || cpu > childCPULimit {
				cmd.Process.Kill()
				<-exited
				t.Fatalf("the child's memory reached %d MiB (cap %d MiB) or its CPU time %v (cap %v): the limits did not hold\n%s",
					rss>>20, rssCap>>20, cpu, childCPULimit, tail(out.String()))
			}
		case <-deadline:
			cmd.Process.Kill()
			<-exited
			t.Fatalf("the child ran for %v:\n%s", childWallLimit, tail(out.String()))
		}
	}
}

func parseHostile(t *testing.T, out []byte, err error) hostileResult {
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if line, ok := strings.CutPrefix(sc.Text(), "HOSTILE-RESULT "); ok {
			var res hostileResult
			if err := json.Unmarshal([]byte(line), &res); err != nil {
				t.Fatal(err)
			}
			return res
		}
	}
	t.Fatalf("the child reported nothing (%v):\n%s", err, tail(string(out)))
	return hostileResult{}
}

// residentBytes is a process's resident memory (VmRSS), 0 when it cannot be read.
func residentBytes(pid int) int64 {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// cpuTime is a process's user and system time from /proc/PID/stat, 0 when it cannot be read.
// The kernel counts it in ticks of 1/100 s (USER_HZ) on every Linux pi runs on.
func cpuTime(pid int) time.Duration {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	fields := strings.Fields(string(data[bytes.LastIndexByte(data, ')')+1:]))
	if len(fields) < 13 {
		return 0
	}
	utime, _ := strconv.ParseInt(fields[11], 10, 64)
	stime, _ := strconv.ParseInt(fields[12], 10, 64)
	return time.Duration(utime+stime) * 10 * time.Millisecond
}

func tail(s string) string {
	if len(s) > 4000 {
		return "…" + s[len(s)-4000:]
	}
	return s
}

func raceEnabled() bool {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return false
	}
	for _, s := range info.Settings {
		if s.Key == "-race" && s.Value == "true" {
			return true
		}
	}
	return false
}

// TestCoroutinesAndLoadWithinLimits: what scripts do with coroutines, load and table.concat
// under the limits still works as in Lua 5.1, and a coroutine made in one call runs in a later
// one (it used to keep the first call's context and fail with "context canceled").
func TestCoroutinesAndLoadWithinLimits(t *testing.T) {
	for _, tc := range []struct{ name, load, body, want string }{
		{"generator", "", `local gen = coroutine.wrap(function() for i = 1, 3 do coroutine.yield(i) end end)
			return gen() .. gen() .. gen()`, "123"},
		{"values through resume and yield", "", `local co = coroutine.create(function(a, b) local c = coroutine.yield(a + b) return c * 2 end)
			local _, x = coroutine.resume(co, 1, 2) local _, y = coroutine.resume(co, 10)
			return x .. " " .. y .. " " .. coroutine.status(co)`, "3 20 dead"},
		{"a dead coroutine", "", `local co = coroutine.create(function() end) coroutine.resume(co)
			local ok, err = coroutine.resume(co) return tostring(ok) .. " " .. err`, "false can not resume a dead thread"},
		{"an error through wrap", "", `local ok, err = pcall(coroutine.wrap(function() error("boom", 0) end))
			return tostring(ok) .. " " .. err`, "false boom"},
		{"an error through resume", "", `local ok, err = coroutine.resume(coroutine.create(function() error("boom", 0) end))
			return tostring(ok) .. " " .. err`, "false boom"},
		{"a coroutine made while loading, resumed by a tool", `gen = coroutine.wrap(function() while true do coroutine.yield("again") end end) gen()`,
			`return gen()`, "again"},
		{"150 coroutines deep", "", `local function f(n) if n == 0 then return "deep" end
			local _, r = coroutine.resume(coroutine.create(f), n - 1) return r end
			return f(150)`, "deep"},
		{"loadstring", "", `return tostring(loadstring("return 1 + 1")())`, "2"},
		{"loadstring over the limit", "", `local f, err = loadstring(string.rep(" ", 1048577)) return tostring(f) .. " " .. err`,
			"nil a chunk of 1048577 bytes is over the 1 MiB scripts may compile at once"},
		{"load from a reader", "", `local parts, i = {"return ", "'x'"}, 0
			return load(function() i = i + 1 return parts[i] end)()`, "x"},
		{"load from a reader that never ends", "", `local s = string.rep(" ", 65536)
			local f, err = load(function() return s end) return err`, "a chunk of 1114112 bytes is over the 1 MiB scripts may compile at once"},
		{"table.concat", "", `return table.concat({"a", 1, "b"}, "-") .. table.concat({"a", "b", "c"}, "", 2, 3)`, "a-1-bbc"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			r := e.start(t, tc.load+"\npi.register_tool{name = \"t\", description = \"d\", execute = function() "+tc.body+" end}")
			e.noErrors(t)
			if got := text(runTool(t, r, "t", ctxT(t))); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// TestAbortDoesNotWaitForAnotherScript: a hook or Lua tool whose context ends while it waits
// in the queue behind a stuck observer (an agent_end handler in an endless loop, with its 5 s
// deadline) returns at once. pi's shutdown aborts the run and waits for it, so this wait
// counted against the 2 s pi has to exit on SIGTERM.
func TestAbortDoesNotWaitForAnotherScript(t *testing.T) {
	for _, tc := range []struct {
		name string
		call func(ctx context.Context, r *Runtime)
	}{
		{"a tool_call hook", func(ctx context.Context, r *Runtime) { r.ToolCall(ctx, "bash", "1", map[string]any{}) }},
		{"a Lua tool", func(ctx context.Context, r *Runtime) { runTool(t, r, "t", ctx) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			r := e.start(t, `pi.on("agent_end", function() `+running+`while true do end end)
pi.on("tool_call", function() end)
pi.register_tool{name = "t", description = "d", execute = function() return "x" end}`)
			r.Emit(context.Background(), "agent_end", map[string]any{})
			waitRunning(t, e)
			ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
			defer cancel()
			start := time.Now()
			tc.call(ctx, r)
			if d := time.Since(start); d > stopWithin { // the observer's deadline is 5 s
				t.Errorf("returned after %v, want soon after its context ended at 200ms", d)
			}
		})
	}
}
