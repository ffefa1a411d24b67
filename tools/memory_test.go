//go:build linux

package tools

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"pi/internal/testwait"
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
// inMemoryChild holds, with env added, and returns its peak resident memory and the growth
// of that over its baseline, as the child reported them (see reportMemory). It kills the child once its
// resident memory passes capKB, so that a regression cannot take the machine down, and fails
// the test then.
func memoryOfChild(t *testing.T, capKB int, env ...string) (peak, growth int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+t.Name()+"$", "-test.v")
	cmd.Env = append(append(os.Environ(), memoryChildEnv+"="+t.Name()), env...)
	out, _ := testwait.RunCapped(t, cmd, capKB)
	return peakReported(t, out)
}

func peakReported(t *testing.T, out string) (peak, growth int) {
	t.Helper()
	m := regexp.MustCompile(`peak RSS (\d+) kB, baseline (\d+) kB`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no figure in the child's output:\n%s", out)
	}
	peak, _ = strconv.Atoi(m[1])
	base, _ := strconv.Atoi(m[2])
	t.Logf("peak RSS %d kB, %d kB before the measured work", peak, base)
	return peak, peak - base
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
	if _, growth := memoryOfChild(t, 1<<20, "PI_MEMORY_DIR="+dir); growth > limit {
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

// grepMemoryLine makes up 8 MB of TestGrepMemory's big text file, ahead of a 1 MB line.
const (
	grepMemoryLine  = "a line of text that does not match\n"
	grepMemoryLines = 8 << 20 / len(grepMemoryLine)
)

// grep streams files a block at a time and skips binary ones after their first block: model
// weights in a project must not be read whole (two 3 GB files took 6.3 GB).
func TestGrepMemory(t *testing.T) {
	if inMemoryChild(t) {
		grepMemoryChild(t, os.Getenv("PI_MEMORY_DIR"))
		return
	}
	if testing.Short() {
		t.Skip("writes 9 MB")
	}
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"weights/a.bin": "", "weights/b.bin": "", // sparse below: NUL throughout
		"text-then-hole.bin": strings.Repeat(grepMemoryLine, 30000),
		"big.txt": strings.Repeat(grepMemoryLine, grepMemoryLines) + strings.Repeat("x", 1<<20) +
			"\nneedle at the end\n",
		"small.go": "package small\n// needle here\n",
	})
	for _, name := range []string{"weights/a.bin", "weights/b.bin", "text-then-hole.bin"} {
		if err := os.Truncate(filepath.Join(dir, name), 3<<30); err != nil {
			t.Fatal(err)
		}
	}
	limit := 100 << 10
	peak, growth := memoryOfChild(t, 512<<10, "PI_MEMORY_DIR="+dir)
	if !raceEnabled && peak > limit || growth > limit { // the race detector's own memory aside
		t.Fatalf("peak RSS %d kB (%d kB growth), want at most %d kB", peak, growth, limit)
	}
}

func grepMemoryChild(t *testing.T, dir string) {
	env, err := NewEnv(dir)
	if err != nil {
		t.Fatal(err)
	}
	base := peakRSS(t)
	res := callTool(t, env, "grep", map[string]any{"pattern": "needle", "context": 1.0})
	want := fmt.Sprintf("big.txt-%d- %s... [truncated]\nbig.txt:%d: needle at the end\n"+
		"small.go-1- package small\nsmall.go:2: // needle here",
		grepMemoryLines+1, strings.Repeat("x", GrepMaxLineLength), grepMemoryLines+2)
	if text := resultText(res); res.IsError || !strings.HasPrefix(text, want) {
		t.Fatalf("got %q, want it to start %q", text, want)
	}
	reportMemory(t, base)
}
