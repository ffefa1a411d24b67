//go:build unix

package safefile

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
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

func TestOpenFileRefusesAPipe(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, flag := range []int{os.O_RDONLY, os.O_RDWR | os.O_APPEND} {
		var err error
		withDeadline(t, func() { _, err = OpenFile(fifo, flag) })
		if !errors.Is(err, ErrNotRegular) {
			t.Errorf("OpenFile(fifo, %#x) = %v, want ErrNotRegular", flag, err)
		}
	}
}

func TestReadAllStopsAtItsLimit(t *testing.T) {
	zero, err := os.Open("/dev/zero")
	if err != nil {
		t.Skip("no /dev/zero")
	}
	defer zero.Close()
	if _, err := ReadAll(context.Background(), zero, "standard input", 1<<20); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("ReadAll(/dev/zero) = %v, want ErrTooLarge", err)
	}
	got, err := ReadAll(context.Background(), strings.NewReader("piped"), "standard input", 5)
	if err != nil || string(got) != "piped" {
		t.Fatalf("ReadAll(5 bytes, limit 5) = %q, %v", got, err)
	}
}
