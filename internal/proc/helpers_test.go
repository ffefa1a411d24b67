//go:build unix

package proc

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"pi/internal/testwait"
)

// specOf is a ShellSpec with small limits, so that spilling starts early.
func specOf(command string) ShellSpec {
	return ShellSpec{Shell: "sh", Command: command, MaxBytes: 1000, MaxLines: 20}
}

// processAlive reports whether pid runs. A zombie still answers kill(0), and PID 1 in a
// container may never reap one, so the state in /proc decides where there is one.
func processAlive(pid int) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		if _, err := os.Stat("/proc/self/stat"); err == nil {
			return false // /proc works and has no such process
		}
		return syscall.Kill(pid, 0) == nil
	}
	fields := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+1:]))
	return len(fields) > 0 && fields[0] != "Z"
}

// waitForPid waits until a command has written a pid to path and returns it.
func waitForPid(t *testing.T, path string) int {
	t.Helper()
	var data []byte
	testwait.Until(t, "a pid in "+path, func() bool {
		var err error
		data, err = os.ReadFile(path)
		return err == nil && strings.HasSuffix(string(data), "\n")
	})
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatalf("pid file %s holds %q: %v", path, data, err)
	}
	return pid
}

// assertGone fails when pid is still alive after testwait's deadline, and kills it then.
func assertGone(t *testing.T, pid int) {
	t.Helper()
	if !testwait.Within(testwait.Deadline, func() bool { return !processAlive(pid) }) {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Fatalf("process %d survived", pid)
	}
}

// pidFile is a path in a fresh directory for a command to write a pid to.
func pidFile(t *testing.T) string { return filepath.Join(t.TempDir(), "child.pid") }

// spillDir is a SpillDir in a fresh temporary directory, closed when the test ends.
func spillDir(t *testing.T) *SpillDir {
	d := NewSpillDir(t.TempDir())
	t.Cleanup(func() { d.Close() })
	return d
}
