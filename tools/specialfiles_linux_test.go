//go:build linux

package tools

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// specialFileCases are files that report a size of 0 or block on open: each tool that reads
// a file must answer about them promptly with a clear error, within bounded memory.
var specialFileCases = []struct {
	tool string
	args map[string]any
	want string // in the error
}{
	{"read", map[string]any{"path": "fifo"}, "named pipe (FIFO), not a regular file"},
	{"read", map[string]any{"path": "/dev/zero"}, "character device, not a regular file"},
	{"read", map[string]any{"path": "/dev/urandom"}, "character device, not a regular file"},
	{"read", map[string]any{"path": "/proc/self/pagemap"}, "holds more than 16.0 MiB"},
	{"edit", map[string]any{"path": "fifo", "oldText": "a", "newText": "b"}, "named pipe (FIFO), not a regular file"},
	{"edit", map[string]any{"path": "/dev/zero", "oldText": "a", "newText": "b"}, "character device, not a regular file"},
	{"write", map[string]any{"path": "fifo", "content": "x"}, "named pipe (FIFO), not a regular file"},
}

// read, edit and write of a pipe, a device or an endless /proc file: before, read and edit of
// a pipe blocked forever and read of /dev/zero took pi's memory until it died.
func TestToolsRefuseSpecialFiles(t *testing.T) {
	if inMemoryChild(t) {
		specialFilesChild(t, os.Getenv("PI_MEMORY_DIR"))
		return
	}
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("needle\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	limit := 100 << 10 // 16 MiB of pagemap at most, and the test binary
	if raceEnabled {
		limit *= 2
	}
	if _, growth := memoryOfChild(t, 1<<20, "PI_MEMORY_DIR="+dir); growth > limit {
		t.Fatalf("peak RSS grew %d kB, want at most %d kB", growth, limit)
	}
}

func specialFilesChild(t *testing.T, dir string) {
	env, err := NewEnv(dir)
	if err != nil {
		t.Fatal(err)
	}
	base := peakRSS(t)
	for _, tc := range specialFileCases {
		res := callWithin(t, env, tc.tool, tc.args)
		if text := resultText(res); !res.IsError || !strings.Contains(text, tc.want) {
			t.Errorf("%s %v = %q (error %v), want an error saying %q", tc.tool, tc.args, text, res.IsError, tc.want)
		}
	}
	if fi, err := os.Lstat(filepath.Join(dir, "fifo")); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("write replaced the pipe: %v, %v", fi, err)
	}
	// grep passes over a pipe in the tree, and over one named as its path.
	if res := callWithin(t, env, "grep", map[string]any{"pattern": "needle"}); res.IsError || !strings.Contains(resultText(res), "a.txt:1: needle") {
		t.Errorf("grep in a tree with a pipe = %q", resultText(res))
	}
	callWithin(t, env, "grep", map[string]any{"pattern": "needle", "path": "fifo"})
	if _, _, err := Attachments([]string{"fifo"}, dir); err == nil || !strings.Contains(err.Error(), "named pipe") {
		t.Errorf("@fifo = %v, want a refusal naming the pipe", err)
	}
	reportMemory(t, base)
}

// callWithin is callTool that fails the test when the tool has not answered in a generous
// time, instead of hanging the test binary.
func callWithin(t *testing.T, env *Env, name string, args map[string]any) Result {
	t.Helper()
	done := make(chan Result, 1)
	go func() { done <- callTool(t, env, name, args) }()
	select {
	case res := <-done:
		return res
	case <-time.After(20 * time.Second):
		t.Fatalf("%s %v still running after 20s", name, args)
		return Result{}
	}
}
