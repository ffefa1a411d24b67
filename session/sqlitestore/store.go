// Package sqlitestore keeps pi's sessions in one SQLite database ([session] store = "sqlite"),
// as an event log: every entry a session appends is one row holding its JSONL line, with the
// session summary, the entries by type, the active branch and the full-text index updated in
// the same transaction, so that listing and searching read no log and opening a session reads
// only the index of its entries and the payloads its context needs.
//
// It owns the database schema, the per-session writer locks (one lock file each, beside the
// database) and moving sessions between the database and JSONL files. It must not import any
// package of this module but session and provider, and must not print except in Command.
//
// The driver is modernc.org/sqlite, SQLite translated to Go: it builds with CGO_ENABLED=0.
// Only a run configured for this store opens a database; the driver's package init registers
// a name and allocates nothing worth measuring (see docs/sessions.md).
//
// # Concurrency
//
// WAL journal, synchronous=FULL and a busy timeout: several processes write different sessions
// at once, each append one IMMEDIATE transaction that waits for the write lock instead of
// failing, and readers never wait for writers. A session has one writer at a time (its lock
// file), as a JSONL file does.
package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"pi/session"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// busyTimeout is how long a write waits for another process's transaction before failing.
const busyTimeout = 60 * time.Second

// Store is the SQLite session store. It implements session.Store.
type Store struct {
	db    *sql.DB
	path  string
	locks string // folder of the per-session writer lock files
}

var _ session.Store = (*Store)(nil)

// DefaultPath is where the database lives unless [session] path says otherwise.
func DefaultPath(piHome string) string { return filepath.Join(piHome, "sessions.db") }

// Open opens (creating if needed) the database at path and brings its schema up to date.
func Open(ctx context.Context, path string) (*Store, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("session database %s: %w", path, err)
	}
	q := url.Values{}
	// Per-connection settings; the WAL journal is the file's own, set in migrate once the
	// schema is known to be ours.
	for _, p := range []string{"synchronous(FULL)", "foreign_keys(1)",
		fmt.Sprintf("busy_timeout(%d)", busyTimeout.Milliseconds())} {
		q.Add("_pragma", p)
	}
	q.Set("_txlock", "immediate") // take the write lock at BEGIN: no deadlock on upgrade
	db, err := sql.Open("sqlite", "file:"+path+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("session database %s: %w", path, err)
	}
	st := &Store{db: db, path: path, locks: path + ".locks"}
	if err := st.migrate(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("session database %s: %w", path, err)
	}
	if err := os.MkdirAll(st.locks, 0o700); err != nil {
		db.Close()
		return nil, fmt.Errorf("session database %s: %w", path, err)
	}
	return st, nil
}

// Path is the database file.
func (st *Store) Path() string { return st.path }

// Close closes the database.
func (st *Store) Close() error { return st.db.Close() }

// schema is version 1 of the database. entries.payload is the entry's JSONL line exactly as
// pi writes it, and entries.off the offset that line has in the session's JSONL form, so that
// a session is exported byte for byte and read back by offset.
const schema = `
CREATE TABLE IF NOT EXISTS sessions (
	id             TEXT PRIMARY KEY,
	cwd            TEXT NOT NULL,
	parent_session TEXT NOT NULL DEFAULT '',
	created        TEXT NOT NULL,
	header         TEXT NOT NULL,
	leaf_id        TEXT NOT NULL DEFAULT '',
	next_seq       INTEGER NOT NULL DEFAULT 0,
	end_off        INTEGER NOT NULL,
	metadata       TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX IF NOT EXISTS sessions_cwd ON sessions(cwd);
CREATE TABLE IF NOT EXISTS entries (
	session   TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
	seq       INTEGER NOT NULL,
	id        TEXT NOT NULL,
	parent_id TEXT NOT NULL DEFAULT '',
	type      TEXT NOT NULL,
	role      TEXT NOT NULL DEFAULT '',
	timestamp TEXT NOT NULL,
	off       INTEGER NOT NULL,
	payload   BLOB NOT NULL,
	UNIQUE (session, seq),
	UNIQUE (session, id)
);
CREATE INDEX IF NOT EXISTS entries_off ON entries(session, off);
CREATE TABLE IF NOT EXISTS active_branch (
	session  TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
	depth    INTEGER NOT NULL,
	entry_id TEXT NOT NULL,
	PRIMARY KEY (session, depth)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS active_branch_entry ON active_branch(session, entry_id);
CREATE TABLE IF NOT EXISTS summaries (
	session       TEXT PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE,
	name          TEXT NOT NULL DEFAULT '',
	first_prompt  TEXT NOT NULL DEFAULT '',
	message_count INTEGER NOT NULL DEFAULT 0,
	entry_count   INTEGER NOT NULL DEFAULT 0,
	modified      INTEGER NOT NULL,
	size          INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS summaries_modified ON summaries(modified);
CREATE TABLE IF NOT EXISTS entry_types (
	session TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
	type    TEXT NOT NULL,
	count   INTEGER NOT NULL,
	last_id TEXT NOT NULL,
	PRIMARY KEY (session, type)
) WITHOUT ROWID;
CREATE VIRTUAL TABLE IF NOT EXISTS search USING fts5(text, tokenize = 'trigram');
PRAGMA user_version = 1;
`

func (st *Store) migrate(ctx context.Context) error {
	var version int
	if err := st.db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		return fmt.Errorf("read schema version: %w", err)
	}
	if version > 1 {
		return fmt.Errorf("schema version %d is newer than this pi reads (1)", version)
	}
	var mode string
	if err := st.db.QueryRowContext(ctx, "PRAGMA journal_mode = WAL").Scan(&mode); err != nil || mode != "wal" {
		return fmt.Errorf("switch to the WAL journal (got %q): %w", mode, err)
	}
	if version == 1 {
		return nil
	}
	if _, err := st.db.ExecContext(ctx, schema); err != nil {
		return fmt.Errorf("create schema: %w", err)
	}
	return nil
}

// ref returns the session id a reference names: Path's form "<db>#<id>", or an id prefix.
func (st *Store) ref(ctx context.Context, ref string) (string, error) {
	if id, ok := strings.CutPrefix(ref, st.path+"#"); ok {
		ref = id
	}
	if ref == "" {
		return "", errors.New("no session named")
	}
	like := strings.NewReplacer(`\`, `\\`, "%", `\%`, "_", `\_`).Replace(ref) + "%"
	rows, err := st.db.QueryContext(ctx, `SELECT id FROM sessions WHERE id LIKE ? ESCAPE '\' LIMIT 3`, like)
	if err != nil {
		return "", fmt.Errorf("find session %q: %w", ref, err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return "", fmt.Errorf("find session %q: %w", ref, err)
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		return "", fmt.Errorf("find session %q: %w", ref, err)
	}
	switch len(ids) {
	case 0:
		return "", fmt.Errorf("no session with an id starting with %q in %s: %w", ref, st.path, os.ErrNotExist)
	case 1:
		return ids[0], nil
	}
	return "", &session.AmbiguousError{Ref: ref, Matches: ids}
}
