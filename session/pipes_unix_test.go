//go:build unix

package session

import (
	"context"
	"errors"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"pi/internal/safefile"
	"pi/provider"
)

// A named pipe among the session files, or named as one, must not hang pi -c, pi sessions,
// --session or --fork: each opened it and waited for a writer.
func TestSessionsPassOverNamedPipes(t *testing.T) {
	dir := t.TempDir()
	s := Create(dir, "/home/me/proj")
	ok := mustAppend(t)
	ok(s.AppendMessage(provider.UserText("hi", 1)))
	ok(s.AppendMessage(assistant("hello")))
	s.Close()
	fifo := filepath.Join(dir, "2099-01-01T00-00-00-000Z_fifo.jsonl")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	within := func(what string, f func()) {
		t.Helper()
		done := make(chan struct{})
		go func() { defer close(done); f() }()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			t.Fatalf("%s still waiting after 20s", what)
		}
	}
	within("List", func() {
		infos, err := List(context.Background(), dir)
		if err != nil || len(infos) != 1 || infos[0].Path != s.Path() {
			t.Errorf("List = %+v, %v; want only %s", infos, err, s.Path())
		}
	})
	within("FindNewest", func() {
		if got, err := FindNewest(dir); err != nil || got != s.Path() {
			t.Errorf("FindNewest = %q, %v; want %s", got, err, s.Path())
		}
	})
	within("Open", func() {
		if _, err := Open(context.Background(), fifo); !errors.Is(err, safefile.ErrNotRegular) {
			t.Errorf("Open(fifo) = %v, want a refusal", err)
		}
	})
	within("ForkFile", func() {
		if _, err := ForkFile(context.Background(), fifo, t.TempDir(), "/x"); !errors.Is(err, safefile.ErrNotRegular) {
			t.Errorf("ForkFile(fifo) = %v, want a refusal", err)
		}
	})
}
