//go:build unix

package session

import (
	"context"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// Special files are refused before a byte is read: /dev/zero never ends, a FIFO never answers.
func TestImportRefusesSpecialFiles(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	for _, path := range []string{"/dev/zero", fifo, t.TempDir()} {
		done := make(chan error, 1)
		go func() { _, _, err := Import(context.Background(), path, t.TempDir(), "/w"); done <- err }()
		select {
		case err := <-done:
			if err == nil {
				t.Errorf("Import(%s) succeeded", path)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("Import(%s) hangs", path)
		}
	}
}
