package checkpoint

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Record is one line of the store's log: a snapshot taken, when, and the caller's note.
type Record struct {
	ID   string
	Time time.Time
	Note string
}

func (s *Store) logPath() string { return filepath.Join(s.dir, "snapshots") }

func (s *Store) appendLog(snap Snapshot, note string) error {
	f, err := os.OpenFile(s.logPath(), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("checkpoint: recording snapshot %s: %w", short(snap.ID), err)
	}
	note = strings.NewReplacer("\n", " ", "\r", " ").Replace(note)
	_, err = fmt.Fprintf(f, "%d %s %s\n", snap.Time.UnixNano(), snap.ID, note)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("checkpoint: recording snapshot %s: %w", short(snap.ID), err)
	}
	return nil
}

// List returns the store's log, oldest first. A damaged line is skipped.
func (s *Store) List(ctx context.Context) ([]Record, error) {
	unlock, err := s.lock(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	return s.readLog()
}

func (s *Store) readLog() ([]Record, error) {
	data, err := os.ReadFile(s.logPath())
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("checkpoint: reading the snapshot log: %w", err)
	}
	var out []Record
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		f := strings.SplitN(sc.Text(), " ", 3)
		if len(f) < 2 || len(f[1]) != 64 {
			continue
		}
		ns, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			continue
		}
		r := Record{ID: f[1], Time: time.Unix(0, ns)}
		if len(f) == 3 {
			r.Note = f[2]
		}
		out = append(out, r)
	}
	return out, nil
}

// Resolve returns the full id of a snapshot from a prefix of at least 4 hex digits.
func (s *Store) Resolve(ctx context.Context, prefix string) (string, error) {
	recs, err := s.List(ctx)
	if err != nil {
		return "", err
	}
	found := ""
	for _, r := range recs {
		if strings.HasPrefix(r.ID, prefix) && len(prefix) >= 4 {
			if found != "" && found != r.ID {
				return "", fmt.Errorf("checkpoint: %q names more than one snapshot", prefix)
			}
			found = r.ID
		}
	}
	if found == "" {
		return "", fmt.Errorf("checkpoint: no snapshot %q in %s: %w", prefix, s.dir, ErrMissing)
	}
	return found, nil
}
