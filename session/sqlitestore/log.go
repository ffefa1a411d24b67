package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"pi/provider"
	"pi/session"
)

// backend makes and names the store's sessions for package session.
type backend struct{ st *Store }

func (b backend) Path(id string) string { return b.st.path + "#" + id }

// Create stores a new session's header and takes its writer lock.
func (b backend) Create(h session.Header, headerLine []byte) (session.Log, error) {
	unlock, err := b.st.lock(h.ID)
	if err != nil {
		return nil, err
	}
	err = b.st.inTx(context.Background(), func(tx *sql.Tx) error {
		return insertSession(tx, h, headerLine, time.Now())
	})
	if err != nil {
		_ = unlock()
		return nil, err
	}
	return &log{st: b.st, id: h.ID, unlock: unlock}, nil
}

func insertSession(tx *sql.Tx, h session.Header, headerLine []byte, now time.Time) error {
	end := int64(len(headerLine) + 1)
	_, err := tx.Exec(`INSERT INTO sessions (id, cwd, parent_session, created, header, end_off, metadata)
		VALUES (?, ?, ?, ?, ?, ?, json_object('version', ?))`,
		h.ID, h.Cwd, h.ParentSession, h.Timestamp, string(headerLine), end, h.Version)
	if err == nil {
		_, err = tx.Exec(`INSERT INTO summaries (session, modified, size) VALUES (?, ?, ?)`, h.ID, now.UnixMilli(), end)
	}
	if err != nil {
		return fmt.Errorf("store session %s: %w", h.ID, err)
	}
	return nil
}

// lock takes the writer lock of session id: a lock file beside the database, flocked.
func (st *Store) lock(id string) (func() error, error) {
	f, err := os.OpenFile(filepath.Join(st.locks, id+".lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock session %s: %w", id, err)
	}
	unlock, err := session.LockFile(f)
	if err != nil {
		f.Close()
		return nil, err
	}
	return func() error { err := unlock(); f.Close(); return err }, nil
}

// inTx runs fn in one IMMEDIATE transaction (see Open), committed when fn returns nil.
func (st *Store) inTx(ctx context.Context, fn func(*sql.Tx) error) error {
	tx, err := st.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin transaction: %w", err)
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

// log is one session's rows, read by offset and appended to in transactions.
type log struct {
	st     *Store
	id     string
	unlock func() error // nil for a session opened only to read (a fork's source)
}

func (l *log) Close() error {
	if l.unlock == nil {
		return nil
	}
	err := l.unlock()
	l.unlock = nil
	return err
}

// ReadAt copies the lines that overlap [off, off+len(p)) into p at their offsets.
func (l *log) ReadAt(p []byte, off int64) (int, error) {
	end := off + int64(len(p))
	rows, err := l.st.db.Query(`SELECT off, payload FROM entries WHERE session = ? AND off < ?
		AND off >= coalesce((SELECT max(off) FROM entries WHERE session = ? AND off <= ?), 0) ORDER BY off`,
		l.id, end, l.id, off)
	if err != nil {
		return 0, fmt.Errorf("read session %s at %d: %w", l.id, off, err)
	}
	defer rows.Close()
	covered := off
	for rows.Next() {
		var at int64
		var line sql.RawBytes // the driver's copy, valid until Next: no second one
		if err := rows.Scan(&at, &line); err != nil {
			return 0, fmt.Errorf("read session %s at %d: %w", l.id, off, err)
		}
		// The line and its newline, clipped to [off, end): copy clips at the end of p.
		lineEnd := at + int64(len(line)) // the newline's offset
		if start := max(at, off); start < lineEnd {
			copy(p[start-off:], line[start-at:])
		}
		if lineEnd >= off && lineEnd < end {
			p[lineEnd-off] = '\n'
		}
		covered = max(covered, lineEnd+1)
	}
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("read session %s at %d: %w", l.id, off, err)
	}
	if covered < end {
		return int(covered - off), fmt.Errorf("read session %s: no entry reaches offset %d", l.id, end)
	}
	return len(p), nil
}

// Append stores the batch and everything derived from it in one transaction.
func (l *log) Append(batch []session.LogLine, leaf string) error {
	if l.unlock == nil {
		return errors.New("session opened to read only")
	}
	return l.st.inTx(context.Background(), func(tx *sql.Tx) error {
		return appendTx(tx, l.id, batch, leaf, time.Now())
	})
}

// appendTx adds the batch's rows, its search text, and updates the summary, the counts by
// type, the active branch and the session's counters.
func appendTx(tx *sql.Tx, id string, batch []session.LogLine, leaf string, now time.Time) error {
	var seq int64
	if err := tx.QueryRow(`SELECT next_seq FROM sessions WHERE id = ?`, id).Scan(&seq); err != nil {
		return fmt.Errorf("append to session %s: %w", id, err)
	}
	var sum summaryDelta
	for _, ll := range batch {
		if err := insertEntry(tx, id, seq, ll); err != nil {
			return fmt.Errorf("append entry %s to session %s: %w", ll.Entry.ID, id, err)
		}
		seq++
		sum.add(ll.Entry)
	}
	if len(batch) == 0 {
		return nil
	}
	last := batch[len(batch)-1]
	end := last.Off + int64(len(last.Line)) + 1
	if _, err := tx.Exec(`UPDATE sessions SET next_seq = ?, end_off = ?, leaf_id = ? WHERE id = ?`, seq, end, leaf, id); err != nil {
		return fmt.Errorf("append to session %s: %w", id, err)
	}
	if err := sum.store(tx, id, len(batch), end, now); err != nil {
		return fmt.Errorf("append to session %s: %w", id, err)
	}
	return nil
}

func insertEntry(tx *sql.Tx, id string, seq int64, ll session.LogLine) error {
	e := ll.Entry
	role := ""
	if e.Message != nil {
		role = string(e.Message.Role)
	}
	res, err := tx.Exec(`INSERT INTO entries (session, seq, id, parent_id, type, role, timestamp, off, payload)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`, id, seq, e.ID, e.ParentID, string(e.Type), role, e.Timestamp, ll.Off, ll.Line)
	if err != nil {
		return err
	}
	if text := session.SearchText(e); text != "" {
		rowid, err := res.LastInsertId()
		if err != nil {
			return err
		}
		if _, err := tx.Exec(`INSERT INTO search (rowid, text) VALUES (?, ?)`, rowid, text); err != nil {
			return err
		}
	}
	if _, err := tx.Exec(`INSERT INTO entry_types (session, type, count, last_id) VALUES (?, ?, 1, ?)
		ON CONFLICT (session, type) DO UPDATE SET count = count + 1, last_id = excluded.last_id`, id, string(e.Type), e.ID); err != nil {
		return err
	}
	return moveBranch(tx, id, e.ID, e.ParentID)
}

// moveBranch keeps active_branch the path from the root to the newest entry: one row added
// when the entry continues the branch, the path rebuilt from the log when it starts another.
func moveBranch(tx *sql.Tx, id, entry, parent string) error {
	depth := int64(0)
	if parent != "" {
		err := tx.QueryRow(`SELECT depth FROM active_branch WHERE session = ? AND entry_id = ?`, id, parent).Scan(&depth)
		if errors.Is(err, sql.ErrNoRows) {
			return rebuildBranch(tx, id, entry)
		}
		if err != nil {
			return err
		}
		depth++
	}
	if _, err := tx.Exec(`DELETE FROM active_branch WHERE session = ? AND depth >= ?`, id, depth); err != nil {
		return err
	}
	_, err := tx.Exec(`INSERT INTO active_branch (session, depth, entry_id) VALUES (?, ?, ?)`, id, depth, entry)
	return err
}

func rebuildBranch(tx *sql.Tx, id, entry string) error {
	if _, err := tx.Exec(`DELETE FROM active_branch WHERE session = ?`, id); err != nil {
		return err
	}
	_, err := tx.Exec(`WITH RECURSIVE up(id, parent, n) AS (
			SELECT id, parent_id, 0 FROM entries WHERE session = ?1 AND id = ?2
			UNION ALL
			SELECT e.id, e.parent_id, up.n + 1 FROM entries e JOIN up ON e.session = ?1 AND e.id = up.parent
		)
		INSERT INTO active_branch (session, depth, entry_id)
		SELECT ?1, (SELECT max(n) FROM up) - n, id FROM up`, id, entry)
	return err
}

// summaryDelta is what a batch changes in its session's summary.
type summaryDelta struct {
	messages    int
	firstPrompt string
	name        *string
}

func (d *summaryDelta) add(e *session.Entry) {
	switch {
	case e.Type == session.TypeMessage:
		d.messages++
		if d.firstPrompt == "" && e.Message != nil && e.Message.Role == provider.RoleUser {
			d.firstPrompt = e.Message.TextContent()
		}
	case e.Type == session.TypeSessionInfo && e.Name != nil && *e.Name != "":
		d.name = e.Name
	}
}

func (d *summaryDelta) store(tx *sql.Tx, id string, entries int, size int64, now time.Time) error {
	_, err := tx.Exec(`UPDATE summaries SET message_count = message_count + ?, entry_count = entry_count + ?,
		first_prompt = CASE WHEN first_prompt = '' THEN ? ELSE first_prompt END,
		name = coalesce(?, name), modified = ?, size = ? WHERE session = ?`,
		d.messages, entries, d.firstPrompt, d.name, now.UnixMilli(), size, id)
	return err
}
