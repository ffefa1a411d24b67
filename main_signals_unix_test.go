//go:build unix

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestBinarySignalsEndTheRunAndItsTools sends SIGHUP and SIGTERM to pi -p while the bash tool
// runs a command with a background child: pi exits within its grace period and the child's
// whole process group is gone.
func TestBinarySignalsEndTheRunAndItsTools(t *testing.T) {
	bin := buildPi(t)
	for _, sig := range []syscall.Signal{syscall.SIGHUP, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			pidFile := filepath.Join(dir, "child.pid")
			script := filepath.Join(dir, "script.json")
			call := map[string]any{"type": "toolCall", "id": "c1", "name": "bash",
				"arguments": map[string]any{"command": "sleep 300 & echo $! > " + pidFile + "; wait"}}
			data, _ := json.Marshal([]any{map[string]any{"content": []any{call}}, map[string]any{"content": []any{
				map[string]any{"type": "text", "text": "done"}}}})
			os.WriteFile(script, data, 0o644)
			cmd := exec.Command(bin, "--no-session", "--faux-script", script, "-p", "go")
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "PI_HOME="+filepath.Join(dir, ".pihome"))
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			var child int
			for end := time.Now().Add(10 * time.Second); child == 0 && time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
				b, _ := os.ReadFile(pidFile)
				child, _ = strconv.Atoi(strings.TrimSpace(string(b)))
			}
			if child == 0 {
				cmd.Process.Kill()
				t.Fatal("the bash tool never started its child")
			}
			start := time.Now()
			cmd.Process.Signal(sig)
			cmd.Wait()
			if d := time.Since(start); d > exitGrace+time.Second {
				t.Errorf("pi took %s to exit after %s", d, sig)
			} else {
				t.Logf("pi exited %s after %s", d, sig)
			}
			for end := time.Now().Add(2 * time.Second); alive(child); time.Sleep(20 * time.Millisecond) {
				if time.Now().After(end) {
					syscall.Kill(child, syscall.SIGKILL)
					t.Fatalf("the tool's child %d outlived pi after %s", child, sig)
				}
			}
		})
	}
}

// alive reports whether pid runs; a zombie (killed, not yet reaped by init) does not.
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true // no /proc (macOS): the signal check is all there is
	}
	_, rest, _ := strings.Cut(string(stat), ") ")
	return !strings.HasPrefix(rest, "Z")
}
