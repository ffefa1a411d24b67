//go:build unix

package proc

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"
)

func TestRunShellEnds(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name       string
		command    string
		timeout    time.Duration
		abortAfter time.Duration
		env        []string
		tail       string
		code       int // -1: ExitCode nil
		signal     string
		timedOut   bool
		aborted    bool
	}{
		{name: "success", command: "echo hello", tail: "hello\n"},
		{name: "exit code", command: "echo oops; exit 3", tail: "oops\n", code: 3},
		{name: "merged in order", command: "echo a; echo b >&2; echo c", tail: "a\nb\nc\n"},
		{name: "no stdin", command: "cat; echo done", tail: "done\n"},
		{name: "dir and env", command: `echo "$PI_X"; pwd`, env: []string{"PI_X=42"}, tail: "42\n" + dir + "\n"},
		{name: "killed by a signal", command: "echo bye; kill -9 $$", tail: "bye\n", code: -1, signal: "killed"},
		{name: "timeout", command: "echo started; sleep 30", timeout: grandchildTimeout, // time to print "started" under load
			tail: "started\n", code: -1, signal: "killed", timedOut: true},
		{name: "abort", command: "echo started; sleep 30", timeout: 10 * time.Second, abortAfter: grandchildTimeout,
			tail: "started\n", code: -1, signal: "killed", aborted: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tc.abortAfter > 0 {
				time.AfterFunc(tc.abortAfter, cancel)
			}
			spec := specOf(tc.command)
			spec.Dir, spec.Env, spec.Timeout = dir, tc.env, tc.timeout
			start := time.Now()
			out, err := RunShell(ctx, spec)
			if err != nil {
				t.Fatal(err)
			}
			if d := time.Since(start); d > 10*time.Second { // the command sleeps 30 s
				t.Fatalf("took %v", d)
			}
			code := -1
			if out.ExitCode != nil {
				code = *out.ExitCode
			}
			if out.Tail != tc.tail || code != tc.code || out.Signal != tc.signal ||
				out.TimedOut != tc.timedOut || out.Aborted != tc.aborted {
				t.Fatalf("got tail %q code %d signal %q timedOut %v aborted %v, want %q %d %q %v %v",
					out.Tail, code, out.Signal, out.TimedOut, out.Aborted,
					tc.tail, tc.code, tc.signal, tc.timedOut, tc.aborted)
			}
		})
	}
}

func TestRunShellErrors(t *testing.T) {
	tests := []struct {
		name string
		spec ShellSpec
		want string
	}{
		{"no limits", ShellSpec{Command: "true"}, `running "true": MaxBytes and MaxLines must be positive, got 0 and 0`},
		{"no such shell", ShellSpec{Shell: "/nonexistent/sh", Command: "true", MaxBytes: 1, MaxLines: 1},
			"starting /nonexistent/sh: "},
		{"no such directory", ShellSpec{Shell: "sh", Command: "true", Dir: "/nonexistent", MaxBytes: 1, MaxLines: 1},
			"starting sh: "},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := RunShell(context.Background(), tc.spec)
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error starting %q", err, tc.want)
			}
		})
	}
}

// A ctx that ended before the start is an abort, not a failure to run.
func TestRunShellCancelledBeforeStart(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	out, err := RunShell(ctx, specOf("echo never"))
	if err != nil || !out.Aborted || out.TimedOut || out.ExitCode != nil || out.Tail != "" {
		t.Fatalf("got %+v, %v", out, err)
	}
}

func TestRunShellSpills(t *testing.T) {
	tests := []struct {
		name    string
		command string
		total   int
		lines   int
		spilled bool
	}{
		{"within the limits", "seq 1 20", 51, 20, false},
		{"one line too many", "seq 1 21", 54, 21, true},
		{"no final newline", "printf 'a\\nb'", 3, 2, false},
		{"over the bytes", "head -c 1001 /dev/zero | tr '\\0' z", 1001, 1, true},
		{"far over the lines", "seq 1 100000", 588895, 100000, true},
		{"binary", "head -c 300000 /dev/urandom", 300000, -1, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			spec := specOf(tc.command)
			spec.Spill = spillDir(t)
			out, err := RunShell(context.Background(), spec)
			if err != nil || out.ExitCode == nil || *out.ExitCode != 0 {
				t.Fatalf("got %+v, %v", out, err)
			}
			if out.TotalBytes != tc.total || (tc.lines >= 0 && out.TotalLines != tc.lines) {
				t.Fatalf("total %d bytes %d lines, want %d and %d", out.TotalBytes, out.TotalLines, tc.total, tc.lines)
			}
			if len(out.Tail) > 4*spec.MaxBytes || (out.TotalBytes <= 4*spec.MaxBytes) != (len(out.Tail) == out.TotalBytes) {
				t.Fatalf("tail of %d bytes of %d, limit %d", len(out.Tail), out.TotalBytes, spec.MaxBytes)
			}
			if (out.FullOutputPath != "") != tc.spilled || out.SpillErr != nil {
				t.Fatalf("full output %q (%v), want spilled %v", out.FullOutputPath, out.SpillErr, tc.spilled)
			}
			if !tc.spilled {
				return
			}
			full, err := os.ReadFile(out.FullOutputPath)
			if err != nil || len(full) != tc.total || !bytes.HasSuffix(full, []byte(out.Tail)) {
				t.Fatalf("full output: %d bytes, %v; want %d ending in the tail", len(full), err, tc.total)
			}
		})
	}
}

// A spill file that cannot be made costs the full copy, never the command.
func TestRunShellSpillFails(t *testing.T) {
	spec := specOf("seq 1 100")
	spec.Spill = NewSpillDir("/nonexistent")
	out, err := RunShell(context.Background(), spec)
	if err != nil || out.ExitCode == nil || *out.ExitCode != 0 || out.TotalLines != 100 {
		t.Fatalf("got %+v, %v", out, err)
	}
	if out.FullOutputPath != "" || out.SpillErr == nil || !strings.Contains(out.SpillErr.Error(), "/nonexistent") {
		t.Fatalf("full output %q, error %v", out.FullOutputPath, out.SpillErr)
	}
}

// 200 MB pass through with the tail in bounded memory and the spill file held to its cap.
func TestRunShellMemoryBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 200 MB")
	}
	const total = 200_000_000
	var mu sync.Mutex
	var peak uint64
	sample := func(Output) {
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		mu.Lock()
		peak = max(peak, m.HeapInuse)
		mu.Unlock()
	}
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	spec := ShellSpec{Shell: "sh", Command: "yes 'a line of output that repeats' | head -c " + strconv.Itoa(total),
		Spill: spillDir(t), MaxBytes: 50 * 1024, MaxLines: 2000, OnUpdate: sample}
	start := time.Now()
	out, err := RunShell(context.Background(), spec)
	if err != nil || out.TotalBytes != total || out.FullOutputPath == "" {
		t.Fatalf("got %d bytes, %q, %v", out.TotalBytes, out.FullOutputPath, err)
	}
	sample(out)
	fi, err := os.Stat(out.FullOutputPath)
	if err != nil || fi.Size() <= MaxSpillBytes || fi.Size() > MaxSpillBytes+4*int64(spec.MaxBytes)+100 {
		t.Fatalf("full output: %v %v, want the %d bytes of the head, a tail and a notice", fi, err, MaxSpillBytes)
	}
	growth := int64(peak) - int64(before.HeapInuse)
	t.Logf("200 MB in %v: tail %d bytes, peak heap growth %d kB", time.Since(start), len(out.Tail), growth/1024)
	if len(out.Tail) > 4*spec.MaxBytes || growth > 32<<20 {
		t.Fatalf("tail %d bytes, heap growth %d kB", len(out.Tail), growth/1024)
	}
}

func TestRunShellUpdates(t *testing.T) {
	tests := []struct {
		name       string
		command    string
		minUpdates int
		maxUpdates int
	}{
		{"steady output", "for i in 1 2 3 4 5 6 7 8; do echo $i; sleep 0.08; done", 3, 8},
		{"silence", "sleep 0.5", 0, 0},
		{"one burst", "echo once; sleep 0.5", 1, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var times []time.Time
			var tails []string
			spec := specOf(tc.command)
			spec.OnUpdate = func(o Output) { times, tails = append(times, time.Now()), append(tails, o.Tail) }
			out, err := RunShell(context.Background(), spec)
			if err != nil || out.ExitCode == nil || *out.ExitCode != 0 {
				t.Fatalf("got %+v, %v", out, err)
			}
			if len(times) < tc.minUpdates || len(times) > tc.maxUpdates {
				t.Fatalf("%d updates, want %d to %d", len(times), tc.minUpdates, tc.maxUpdates)
			}
			for i := 1; i < len(times); i++ {
				if gap := times[i].Sub(times[i-1]); gap < UpdateInterval-10*time.Millisecond {
					t.Fatalf("updates %v apart, want at least %v", gap, UpdateInterval)
				}
				if !strings.HasPrefix(tails[i], tails[i-1]) || tails[i] == tails[i-1] {
					t.Fatalf("update %d is %q after %q", i, tails[i], tails[i-1])
				}
			}
		})
	}
}

// Binary output comes back byte for byte: making it valid UTF-8 is for whoever shows it.
func TestRunShellKeepsBinaryBytes(t *testing.T) {
	out, err := RunShell(context.Background(), specOf(`printf 'ok \377\376 end'`))
	if err != nil || out.Tail != "ok \xff\xfe end" || utf8.ValidString(out.Tail) {
		t.Fatalf("got %q, %v", out.Tail, err)
	}
}

// The spill file keeps the output's head up to SpillHead bytes, then the tail held in memory
// (from a line start) after a line saying how many bytes were left out between them.
func TestRunShellSpillCapped(t *testing.T) {
	seq := func(from, to int) string {
		var b strings.Builder
		for i := from; i <= to; i++ {
			b.WriteString(strconv.Itoa(i) + "\n")
		}
		return b.String()
	}
	notice := regexp.MustCompile(`(?s)^(.*)\[\.\.\. (\d+) bytes of output left out \.\.\.\]\n(.*)$`)
	tests := []struct {
		name    string
		command string
		full    string // the whole output
		head    int
		cut     bool // some of the output is left out
	}{
		{"under the cap", "seq 1 2000", seq(1, 2000), 10_000, false},
		{"tail reaches back to the head", "seq 1 2000", seq(1, 2000), 8_000, false},
		{"over the cap", "seq 1 200000", seq(1, 200000), 10_000, true},
		{"head ends at a line break", "seq 1 200000", seq(1, 200000), 10_003, true},
		{"head ends inside a line", "seq 1 200000", seq(1, 200000), 10_004, true},
		{"one long line", "head -c 100000 /dev/zero | tr '\\0' z", strings.Repeat("z", 100_000), 1_000, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			spec := ShellSpec{Shell: "sh", Command: tc.command, Spill: spillDir(t), SpillHead: tc.head,
				MaxBytes: 1000, MaxLines: 20}
			out, err := RunShell(context.Background(), spec)
			if err != nil || out.TotalBytes != len(tc.full) || out.SpillErr != nil {
				t.Fatalf("got %d bytes, %v, %v", out.TotalBytes, out.SpillErr, err)
			}
			data, err := os.ReadFile(out.FullOutputPath)
			if err != nil {
				t.Fatal(err)
			}
			m := notice.FindStringSubmatch(string(data))
			if !tc.cut {
				if m != nil || string(data) != tc.full {
					t.Fatalf("spill file of %d bytes, want the whole %d", len(data), len(tc.full))
				}
				return
			}
			if m == nil {
				t.Fatalf("no notice in the spill file of %d bytes: %.100q", len(data), data)
			}
			head, tail := tc.full[:tc.head], m[3]
			dropped, _ := strconv.Atoi(m[2])
			if sep := "\n"; strings.HasSuffix(head, "\n") && m[1] != head || !strings.HasSuffix(head, "\n") && m[1] != head+sep {
				t.Fatalf("the file starts %d bytes ending %q before the notice, want the %d of the head and a line break", len(m[1]), m[1][max(len(m[1])-10, 0):], len(head))
			}
			multiline := strings.Count(tc.full, "\n") > 1
			if !strings.HasSuffix(tc.full, tail) || len(head)+dropped+len(tail) != len(tc.full) ||
				len(tail) < 2*spec.MaxBytes-20 || len(tail) > 4*spec.MaxBytes || multiline && tc.full[dropped+len(head)-1] != '\n' {
				t.Fatalf("head %d bytes, %d left out, tail %d bytes (%.20q...); output %d bytes", len(head), dropped, len(tail), tail, len(tc.full))
			}
		})
	}
}

// A SpillDir makes its folder on the first spill, keeps the newest files within its budget, and
// takes everything with it on Close.
func TestSpillDir(t *testing.T) {
	tests := []struct {
		name     string
		maxBytes int64
		commands []string
		kept     []int // which commands' files are left, in order
	}{
		{"nothing spilled, no folder", 1 << 20, []string{"echo hi", "seq 1 20"}, nil},
		{"all within the budget", 1 << 20, []string{"seq 1 1000", "echo hi", "seq 2 1000"}, []int{0, 2}},
		{"the oldest go past the budget", 8000, []string{"seq 1 1000", "seq 2 1000", "seq 3 1000"}, []int{1, 2}},
		{"the newest stays whatever its size", 100, []string{"seq 1 1000", "seq 2 1000"}, []int{1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			parent := t.TempDir()
			d := NewSpillDir(parent)
			d.maxBytes = tc.maxBytes
			var paths []string
			for _, c := range tc.commands {
				spec := specOf(c)
				spec.Spill = d
				out, err := RunShell(context.Background(), spec)
				if err != nil || out.SpillErr != nil {
					t.Fatalf("%s: %v, %v", c, out.SpillErr, err)
				}
				paths = append(paths, out.FullOutputPath)
			}
			var want []string
			for _, k := range tc.kept {
				want = append(want, filepath.Base(paths[k]))
			}
			slices.Sort(want)
			if got := dirNames(t, d.Path()); strings.Join(got, " ") != strings.Join(want, " ") {
				t.Fatalf("folder %q holds %q, want %q", d.Path(), got, want)
			}
			if want != nil && !strings.HasPrefix(d.Path(), filepath.Join(parent, fmt.Sprintf("pi-%d-", os.Getpid()))) {
				t.Fatalf("folder %q, want pi-<pid>-* in %s", d.Path(), parent)
			}
			if err := d.Close(); err != nil || len(dirNames(t, parent)) != 0 {
				t.Fatalf("after Close: %v, %s holds %q", err, parent, dirNames(t, parent))
			}
			spec := specOf("seq 1 100")
			spec.Spill = d
			if out, err := RunShell(context.Background(), spec); err != nil || out.SpillErr == nil || out.FullOutputPath != "" {
				t.Fatalf("spill after Close: %q, %v, %v", out.FullOutputPath, out.SpillErr, err)
			}
		})
	}
}

// dirNames lists dir by name; "" holds nothing.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	if dir == "" {
		return nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// Output past the limits with no SpillDir keeps no file and says why.
func TestRunShellWithoutSpillDir(t *testing.T) {
	out, err := RunShell(context.Background(), specOf("seq 1 100"))
	if err != nil || out.FullOutputPath != "" || out.SpillErr == nil || out.TotalLines != 100 {
		t.Fatalf("got %q, %v, %v", out.FullOutputPath, out.SpillErr, err)
	}
}
