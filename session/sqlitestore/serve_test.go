package sqlitestore

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"pi/provider"
	"pi/session"
)

// TestManySessionsInOneProcess is pi serve's case: one Store, eight sessions appending at once
// from their own goroutines while another lists, searches and opens them. No append fails,
// and every session ends with every entry.
func TestManySessionsInOneProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("400 durable commits")
	}
	ctx := context.Background()
	st := must(Open(ctx, filepath.Join(t.TempDir(), "s.db")))
	defer st.Close()
	const sessions, turns = 8, 25
	var wg sync.WaitGroup
	errs := make(chan error, sessions+1)
	ids := make([]string, sessions)
	stop, done := make(chan struct{}), make(chan struct{})
	for i := range sessions {
		wg.Go(func() {
			s := st.New(fmt.Sprintf("/s%d", i), "")
			defer s.Close()
			ids[i] = s.ID()
			for turn := range turns {
				for _, m := range []provider.Message{provider.UserText(fmt.Sprintf("turn %d", turn), 1), assistant("reply")} {
					if _, err := s.AppendMessage(m); err != nil {
						errs <- fmt.Errorf("session %d turn %d: %w", i, turn, err)
						return
					}
				}
			}
		})
	}
	go func() {
		defer close(done)
		if err := readUntil(ctx, st, stop); err != nil {
			errs <- fmt.Errorf("reader: %w", err)
		}
	}()
	wg.Wait()
	close(stop)
	<-done
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for i, id := range ids {
		s := must(st.Open(ctx, id))
		if s.Len() != 2*turns {
			t.Fatalf("session %d has %d entries, want %d", i, s.Len(), 2*turns)
		}
		s.Close()
	}
}

// readUntil lists, searches and opens every session of st over and over until stop closes.
func readUntil(ctx context.Context, st *Store, stop <-chan struct{}) error {
	for {
		select {
		case <-stop:
			return nil
		default:
		}
		infos, err := st.List(ctx, "")
		if err == nil {
			err = st.Search(ctx, "reply", func(session.Hit) error { return nil })
		}
		for _, in := range infos {
			if err != nil {
				break
			}
			var s *session.Session
			if s, err = st.open(ctx, in.ID, false); err == nil {
				_, err = s.Context()
				s.Close()
			}
		}
		if err != nil {
			return err
		}
	}
}
