//go:build linux

package tools

import (
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// memoryChildEnv names the test a child process runs for memoryOfChild.
const memoryChildEnv = "PI_MEMORY_CHILD"

// inMemoryChild reports whether this process is the child a memory test started for itself.
func inMemoryChild(t *testing.T) bool { return os.Getenv(memoryChildEnv) == t.Name() }

// reportMemory prints what memoryOfChild reads: the peak resident memory so far and base, the
// peak before the measured work. The child calls it when its work is done.
func reportMemory(t *testing.T, base int) {
	fmt.Printf("peak RSS %d kB, baseline %d kB\n", peakRSS(t), base)
}

// memoryOfChild runs the calling test again in a child process (this test binary), where
// inMemoryChild holds, with env added, and returns the growth of its peak resident memory over
// its baseline as the child reported them (see reportMemory). It kills the child once its
// resident memory passes capKB, so that a regression cannot take the machine down, and fails
// the test then.
func memoryOfChild(t *testing.T, capKB int, env ...string) int {
	t.Helper()
	var out strings.Builder
	cmd := exec.Command(os.Args[0], "-test.run=^"+t.Name()+"$", "-test.v")
	cmd.Env = append(append(os.Environ(), memoryChildEnv+"="+t.Name()), env...)
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting the child: %v", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case err := <-exited:
			if err != nil {
				t.Fatalf("child: %v\n%s", err, out.String())
			}
			return growthReported(t, out.String())
		case <-tick.C:
			if rss := residentKB(cmd.Process.Pid); rss > capKB {
				cmd.Process.Kill()
				<-exited
				t.Fatalf("child killed at %d kB resident, over the %d kB cap\n%s", rss, capKB, out.String())
			}
		}
	}
}

func growthReported(t *testing.T, out string) int {
	t.Helper()
	m := regexp.MustCompile(`peak RSS (\d+) kB, baseline (\d+) kB`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no figure in the child's output:\n%s", out)
	}
	peak, _ := strconv.Atoi(m[1])
	base, _ := strconv.Atoi(m[2])
	t.Logf("peak RSS %d kB, %d kB before the measured work", peak, base)
	return peak - base
}

// residentKB is the resident memory of process pid (VmRSS), 0 once it is gone.
func residentKB(pid int) int {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	m := regexp.MustCompile(`VmRSS:\s+(\d+) kB`).FindSubmatch(data)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(string(m[1]))
	return n
}

// An edit whose oldText has no exact match in a big file falls back to the fuzzy match, which
// must not hold a map of the whole file (it kept 16 bytes a byte: 24 GB for a 1 GB file).
func TestEditFuzzyMemory(t *testing.T) {
	const size = 8 << 20
	if inMemoryChild(t) {
		editFuzzyMemoryChild(t, os.Getenv("PI_MEMORY_DIR"))
		return
	}
	if testing.Short() {
		t.Skip("writes 8 MB")
	}
	dir := t.TempDir()
	line := "the quick brown fox jumps over the lazy dog  \n"
	writeFiles(t, dir, map[string]string{"big.txt": strings.Repeat(line, size/len(line))})
	// The file is held whole twice (read, and as a string); the fuzzy match adds a window
	// of its own, where its map of the whole file took 55 times the file.
	limit := 8 * size >> 10
	if raceEnabled { // the race detector's shadow memory doubles what the work touches
		limit *= 2
	}
	if growth := memoryOfChild(t, 1<<20, "PI_MEMORY_DIR="+dir); growth > limit {
		t.Fatalf("peak RSS grew %d kB, want at most %d kB", growth, limit)
	}
}

func editFuzzyMemoryChild(t *testing.T, dir string) {
	env, err := NewEnv(dir)
	if err != nil {
		t.Fatal(err)
	}
	base := peakRSS(t)
	res := callTool(t, env, "edit", map[string]any{"path": "big.txt", "oldText": "say(‘nowhere’)", "newText": "x"})
	if !res.IsError || !strings.Contains(resultText(res), "not found") {
		t.Fatalf("missing text: %q", resultText(res))
	}
	reportMemory(t, base)
}
