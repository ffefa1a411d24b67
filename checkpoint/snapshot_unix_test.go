//go:build unix

package checkpoint

import (
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// A path that is a FIFO by the time it is read (a command swapped it after the walk saw a
// file) is refused at once, not waited on.
func TestReadLimitedRefusesAFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "swapped")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	done := make(chan error, 1)
	go func() { _, err := readLimited(fifo, 1<<20); done <- err }()
	select {
	case err := <-done:
		if err == nil {
			t.Error("a FIFO was read as a file")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("reading a FIFO hangs")
	}
}
