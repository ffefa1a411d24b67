//go:build unix

package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A read of a named pipe blocked pi in open(2), and RPC's abort, which waits for the run to
// stop, then never answered. Now read refuses the pipe at once, and abort answers while a
// bash command waits on the pipe.
func TestRPCAbortAnswersWhileAToolWaitsOnAPipe(t *testing.T) {
	bin := buildPi(t)
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, stop := startPiRPC(t, bin, dir, "rpc_fifo.json")
	from := c.mark()
	c.mustCall(map[string]any{"type": "prompt", "message": "read the pipe"})
	end := c.await(from, "the read's tool_execution_end", func(l rpcLine) bool {
		return l["type"] == "tool_execution_end" && l["toolName"] == "read"
	})
	if text := fmt.Sprint(end["result"]); end["isError"] != true || !strings.Contains(text, "named pipe (FIFO), not a regular file") {
		t.Fatalf("read of a pipe: %v", end)
	}
	c.await(from, "bash waiting on the pipe", func(l rpcLine) bool {
		return l["type"] == "tool_execution_start" && l["toolName"] == "bash"
	})
	start := time.Now()
	c.mustCall(map[string]any{"type": "abort"})
	t.Logf("abort answered %v after it was sent, while bash waited on the pipe", time.Since(start).Round(time.Millisecond))
	c.awaitEvent(from, "agent_end")
	if code, stderr := stop(); code != 0 {
		t.Fatalf("exit code %d, stderr %s", code, stderr)
	}
}
