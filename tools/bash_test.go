//go:build unix

package tools

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"pi/internal/proc"
	"pi/internal/testwait"
)

func TestBash(t *testing.T) {
	tests := []struct {
		name    string
		command string
		timeout any
		want    string // the whole text, or a prefix when it ends in "…"
		isError bool
	}{
		{"success", "echo hello", nil, "hello\n", false},
		{"no output", "true", nil, "(no output)", false},
		{"merged in order", "echo a; echo b >&2; echo c", nil, "a\nb\nc\n", false},
		{"exit code", "echo oops; exit 3", nil, "oops\n\nCommand exited with code 3", true},
		{"exit code, no output", "exit 7", nil, "Command exited with code 7", true},
		{"killed by a signal", "kill -9 $$", nil, "Command was killed by a signal: killed", true},
		{"runs in cwd", "cat marker.txt", nil, "here", false},
		{"binary made valid UTF-8", `printf 'ok \377\376 end'`, nil, "ok \uFFFD end", false},
		{"no stdin", "cat; echo done", nil, "done\n", false},
		{"timeout", "echo started; sleep 30", 0.3, "started\n\nCommand timed out after 0.3 seconds", true},
		{"integer timeout", "sleep 30", 1, "Command timed out after 1 seconds", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := testEnv(t)
			writeFiles(t, env.Cwd, map[string]string{"marker.txt": "here"})
			args := map[string]any{"command": tc.command}
			if tc.timeout != nil {
				args["timeout"] = tc.timeout
			}
			start := time.Now()
			res := callTool(t, env, "bash", args)
			if got := resultText(res); got != tc.want || res.IsError != tc.isError {
				t.Fatalf("got %q (error %v), want %q (error %v)", got, res.IsError, tc.want, tc.isError)
			}
			if time.Since(start) > 10*time.Second {
				t.Fatalf("took %v", time.Since(start))
			}
		})
	}
}

func TestBashDefaultTimeoutFromEnv(t *testing.T) {
	env := testEnv(t)
	env.BashTimeout = 200 * time.Millisecond
	res := callTool(t, env, "bash", map[string]any{"command": "sleep 20"})
	if !res.IsError || !strings.Contains(resultText(res), "timed out after 0.2 seconds") {
		t.Fatalf("got %q", resultText(res))
	}
}

// A background process that keeps stdout open must not keep the call waiting: the call ends
// when the shell does.
func TestBashBackgroundChildDoesNotHang(t *testing.T) {
	env := testEnv(t)
	start := time.Now()
	res := callTool(t, env, "bash", map[string]any{"command": "sleep 100 & echo $!"})
	if d := time.Since(start); d > 3*time.Second {
		t.Fatalf("call took %v", d)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(resultText(res)))
	if err != nil {
		t.Fatalf("output %q: %v", resultText(res), err)
	}
	syscall.Kill(pid, syscall.SIGKILL)
}

func processAlive(pid int) bool {
	// a zombie still answers kill(0); read its state instead
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	fields := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+1:]))
	return len(fields) > 0 && fields[0] != "Z"
}

// Abort kills the whole process group, including a child that ignores SIGTERM. The child
// writes its pid only once its trap is set, so the abort meets a child that ignores TERM.
func TestBashAbortKillsGroup(t *testing.T) {
	env := testEnv(t)
	pidFile := filepath.Join(env.Cwd, "child.pid")
	cmd := `bash -c 'trap "" TERM; echo $$ > child.pid.tmp; mv child.pid.tmp child.pid; while true; do sleep 0.05; done' & wait`
	tool, _ := New("bash", env)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		testwait.Within(testwait.Deadline, func() bool { _, err := os.Stat(pidFile); return err == nil })
		cancel()
	}()
	res, err := tool.Execute(ctx, "c", map[string]any{"command": cmd}, nil)
	if err != nil || !res.IsError || !strings.Contains(resultText(res), "Command aborted") {
		t.Fatalf("got %q, %v", resultText(res), err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(readFileT(t, pidFile)))
	if err != nil {
		t.Fatal(err)
	}
	if !testwait.Within(testwait.Deadline, func() bool { return !processAlive(pid) }) {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Fatalf("child %d survived the abort", pid)
	}
}

func TestBashStreamsUpdates(t *testing.T) {
	env := testEnv(t)
	tool, _ := New("bash", env)
	var mu sync.Mutex
	var times []time.Time
	var last string
	onUpdate := func(r Result) {
		mu.Lock()
		defer mu.Unlock()
		times = append(times, time.Now())
		last = resultText(r)
	}
	res, err := tool.Execute(context.Background(), "c",
		map[string]any{"command": "for i in 1 2 3 4 5 6 7 8; do echo $i; sleep 0.08; done"}, onUpdate)
	if err != nil || res.IsError {
		t.Fatalf("%q %v", resultText(res), err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(times) < 2 {
		t.Fatalf("%d updates, want several", len(times))
	}
	for i := 1; i < len(times); i++ {
		if gap := times[i].Sub(times[i-1]); gap < proc.UpdateInterval-10*time.Millisecond {
			t.Fatalf("updates %v apart, want at least %v", gap, proc.UpdateInterval)
		}
	}
	if !strings.HasPrefix(last, "1\n2\n") {
		t.Fatalf("last update %q", last)
	}
}

func TestBashTruncatesTailAndSpills(t *testing.T) {
	tests := []struct {
		name    string
		command string
		notice  *regexp.Regexp
		tail    string
		full    int // bytes of the spilled file
	}{
		{"lines", "seq 1 5000", regexp.MustCompile(`\[Lines 3001-5000 of 5000 shown\. Full output: (\S+)\]$`), "4999\n5000", 23893},
		{"bytes", "for i in $(seq 1 1000); do printf '%099d\\n' $i; done", regexp.MustCompile(`\[Lines 489-1000 of 1000 shown \(50\.0KB limit\)\. Full output: (\S+)\]$`), "01000", 100000},
		{"one long line", "head -c 200000 /dev/zero | tr '\\0' 'z'", regexp.MustCompile(`\[Last 50\.0KB of line 1 shown \(the line is longer\)\. Full output: (\S+)\]$`), "zzz", 200000},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := testEnv(t)
			res := callTool(t, env, "bash", map[string]any{"command": tc.command})
			text := resultText(res)
			m := tc.notice.FindStringSubmatch(text)
			if res.IsError || m == nil {
				t.Fatalf("text ends %q", clip(text))
			}
			body := strings.TrimSuffix(text, "\n\n"+m[0])
			if !strings.HasSuffix(body, tc.tail) || len(body) > DefaultMaxBytes {
				t.Fatalf("body ends %q (%d bytes)", clip(body), len(body))
			}
			d, ok := res.Details.(BashDetails)
			if !ok || d.FullOutputPath != m[1] || d.Truncation == nil || !d.Truncation.Truncated {
				t.Fatalf("details %+v", res.Details)
			}
			if fi, err := os.Stat(m[1]); err != nil || fi.Size() != int64(tc.full) {
				t.Fatalf("full output file: %v %v, want %d bytes", fi, err, tc.full)
			}
		})
	}
}

// TestBashMemory runs 100 MB of output through bash in a child process (this test binary again)
// and checks the child's peak resident memory, which the parent cannot see in its own.
func TestBashMemory(t *testing.T) {
	if os.Getenv("PI_BASH_MEMORY_CHILD") == "1" {
		bashMemoryChild(t)
		return
	}
	if testing.Short() {
		t.Skip("writes 100 MB")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestBashMemory$", "-test.v")
	cmd.Env = append(os.Environ(), "PI_BASH_MEMORY_CHILD=1", "TMPDIR="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	m := regexp.MustCompile(`peak RSS (\d+) kB, baseline (\d+) kB`).FindSubmatch(out)
	if m == nil {
		t.Fatalf("no figure in child output:\n%s", out)
	}
	peak, _ := strconv.Atoi(string(m[1]))
	base, _ := strconv.Atoi(string(m[2]))
	t.Logf("100 MB of bash output: peak RSS %d kB (%d kB before the call)", peak, base)
	limit := 30 * 1024
	if raceEnabled { // the race detector's shadow memory is not ours: hold the growth to the limit
		peak -= base
	}
	if peak > limit {
		t.Fatalf("peak RSS %d kB, want under %d kB", peak, limit)
	}
}

func bashMemoryChild(t *testing.T) {
	base := peakRSS(t)
	env := testEnv(t)
	res := callTool(t, env, "bash", map[string]any{"command": "yes 'a line of output that repeats' | head -c 100000000"})
	d, _ := res.Details.(BashDetails)
	if res.IsError || d.Truncation == nil || d.Truncation.TotalBytes != 100_000_000 {
		t.Fatalf("result %q %+v", clip(resultText(res)), res.Details)
	}
	fmt.Printf("peak RSS %d kB, baseline %d kB\n", peakRSS(t), base)
}

// peakRSS reads VmHWM, the high-water mark of resident memory, from /proc.
func peakRSS(t *testing.T) int {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skip("no /proc: cannot measure memory")
	}
	m := regexp.MustCompile(`VmHWM:\s+(\d+) kB`).FindSubmatch(data)
	if m == nil {
		t.Fatal("no VmHWM in /proc/self/status")
	}
	n, _ := strconv.Atoi(string(m[1]))
	return n
}

// A command that prints without end (3 s of yes wrote 3.9 GB) leaves a spill file held to the
// first 64 MiB of its output and a tail, in a folder of the process's own that Close removes.
func TestBashSpillFileCapped(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 64 MB")
	}
	env := testEnv(t)
	const total = 80_000_000
	res := callTool(t, env, "bash", map[string]any{"command": fmt.Sprintf("yes | head -c %d", total)})
	d, _ := res.Details.(BashDetails)
	fi, err := os.Stat(d.FullOutputPath)
	if res.IsError || err != nil {
		t.Fatalf("result %q, spill file %q: %v", clip(resultText(res)), d.FullOutputPath, err)
	}
	if max := int64(64<<20 + 4*DefaultMaxBytes + 100); fi.Size() > max || fi.Size() < 64<<20 {
		t.Fatalf("spill file of %d bytes, want the 64 MiB head and a tail, at most %d", fi.Size(), max)
	}
	dir := filepath.Dir(d.FullOutputPath)
	if want := fmt.Sprintf("pi-%d-", os.Getpid()); dir != env.Spill.Path() || !strings.HasPrefix(filepath.Base(dir), want) {
		t.Fatalf("spill file in %s, want the Env's folder %s named %s*", dir, env.Spill.Path(), want)
	}
	f, err := os.Open(d.FullOutputPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Seek(64<<20, 0); err != nil {
		t.Fatal(err)
	}
	rest, _ := io.ReadAll(f)
	m := regexp.MustCompile(`^\[\.\.\. (\d+) bytes of output left out \.\.\.\]\n((?:y\n)+)$`).FindSubmatch(rest)
	if m == nil {
		t.Fatalf("after the head: %.80q, want a notice and lines of y", rest)
	}
	if dropped, _ := strconv.Atoi(string(m[1])); 64<<20+dropped+len(m[2]) != total {
		t.Fatalf("head %d, %d bytes left out, tail %d: not the %d of the output", 64<<20, dropped, len(m[2]), total)
	}
	if err := env.Close(); err != nil || exists(dir) {
		t.Fatalf("Close: %v; %s exists afterwards: %v", err, dir, exists(dir))
	}
}
