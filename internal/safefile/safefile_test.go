//go:build unix

package safefile

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"
)

// withDeadline runs f and fails the test when it has not returned in a generous time: a
// read that blocks on a pipe would otherwise hang the test binary.
func withDeadline(t *testing.T, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("still blocked after 20s")
	}
}

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	regular := filepath.Join(dir, "regular.txt")
	if err := os.WriteFile(regular, []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big")
	if err := os.WriteFile(big, bytes.Repeat([]byte("x"), 5000), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(regular, link); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if runtime.GOOS != "windows" {
		if err := syscall.Mkfifo(fifo, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name, path string
		limit      int64
		want       string // the content, when the read succeeds
		wantErr    error
	}{
		{"regular file", regular, 100, "hello\n", nil},
		{"exactly at the limit", regular, 6, "hello\n", nil},
		{"one byte over the limit", regular, 5, "", ErrTooLarge},
		{"larger than the first guess", big, 5000, string(bytes.Repeat([]byte("x"), 5000)), nil},
		{"empty file", empty, 10, "", nil},
		{"symlink to a regular file", link, 100, "hello\n", nil},
		{"directory", dir, 100, "", ErrNotRegular},
		{"missing", filepath.Join(dir, "nope"), 100, "", os.ErrNotExist},
		{"named pipe without a writer", fifo, 100, "", ErrNotRegular},
		{"/dev/zero reports size 0", "/dev/zero", 1 << 20, "", ErrNotRegular},
		{"/dev/urandom", "/dev/urandom", 1 << 20, "", ErrNotRegular},
		{"/proc/self/pagemap: a regular file of size 0 without end", "/proc/self/pagemap", 1 << 20, "", ErrTooLarge},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := os.Lstat(tc.path); err != nil && tc.wantErr != os.ErrNotExist {
				t.Skipf("%s is absent here: %v", tc.path, err)
			}
			var got []byte
			var err error
			withDeadline(t, func() { got, err = ReadFile(context.Background(), tc.path, tc.limit) })
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("ReadFile(%s) = %d bytes, %v; want %v", tc.path, len(got), err, tc.wantErr)
				}
				return
			}
			if err != nil || string(got) != tc.want {
				t.Fatalf("ReadFile(%s) = %q, %v; want %q", tc.path, got, err, tc.want)
			}
		})
	}
}

// A /proc file reports size 0 but has content; the size must not be trusted either way.
func TestReadFileReadsProcFilesThatReportNoSize(t *testing.T) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("no /proc here")
	}
	got, err := ReadFile(context.Background(), "/proc/self/status", 1<<20)
	if err != nil || !bytes.Contains(got, []byte("Name:")) {
		t.Fatalf("ReadFile(/proc/self/status) = %q, %v", got, err)
	}
}

func TestReadFileStopsWhenItsContextEnds(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(ctx, path, 10); !errors.Is(err, context.Canceled) {
		t.Fatalf("ReadFile with a cancelled context = %v, want context.Canceled", err)
	}
}

func TestErrorsSayWhatAndWhy(t *testing.T) {
	err := (&NotRegularError{Path: "/tmp/p", Kind: "a named pipe (FIFO)"}).Error()
	if want := "/tmp/p is a named pipe (FIFO), not a regular file; pi reads only regular files"; err != want {
		t.Errorf("NotRegularError = %q, want %q", err, want)
	}
	err = (&TooLargeError{Path: "/x", Limit: 256 << 20}).Error()
	if want := "/x holds more than 256.0 MiB, the most pi reads of it at once"; err != want {
		t.Errorf("TooLargeError = %q, want %q", err, want)
	}
}
