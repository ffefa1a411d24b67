//go:build unix

package safefile

import (
	"errors"
	"path/filepath"
	"syscall"
	"testing"
)

// The path may become a pipe between Open's Stat and its open: the open must not wait for a
// writer, and the file must be refused.
func TestOpenRefusesAPipeSwappedInAfterTheCheck(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	var err error
	withDeadline(t, func() { _, err = openNonBlocking(fifo) })
	if !errors.Is(err, ErrNotRegular) {
		t.Fatalf("openNonBlocking(fifo) = %v, want ErrNotRegular", err)
	}
}
