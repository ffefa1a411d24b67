package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"time"

	"pi/session"
)

// New starts a session of cwd; its first row is written with the first assistant message.
func (st *Store) New(cwd, parent string) *session.Session {
	return session.NewLogged(backend{st}, cwd, parent)
}

// Open opens the session ref names (Path's form or an id prefix) for continuing it, holding
// its writer lock. A ref that is an existing file is opened as the JSONL session it is.
func (st *Store) Open(ctx context.Context, ref string) (*session.Session, error) {
	if fi, err := os.Stat(ref); err == nil && fi.Mode().IsRegular() && ref != st.path {
		return session.Open(ctx, ref)
	}
	id, err := st.ref(ctx, ref)
	if err != nil {
		return nil, err
	}
	return st.open(ctx, id, true)
}

func (st *Store) open(ctx context.Context, id string, write bool) (*session.Session, error) {
	l := &log{st: st, id: id}
	if write {
		unlock, err := st.lock(id)
		if err != nil {
			return nil, err
		}
		l.unlock = unlock
	}
	s, err := st.load(ctx, id, l)
	if err != nil {
		_ = l.Close()
		return nil, err
	}
	return s, nil
}

// load reads the header and the index of the entries (not their payloads) in one read
// transaction, so that they agree with each other, and hands them to package session.
func (st *Store) load(ctx context.Context, id string, l *log) (*session.Session, error) {
	tx, err := st.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, fmt.Errorf("open session %s: %w", id, err)
	}
	defer tx.Rollback()
	var headerLine string
	var end int64
	if err := tx.QueryRowContext(ctx, `SELECT header, end_off FROM sessions WHERE id = ?`, id).Scan(&headerLine, &end); err != nil {
		return nil, fmt.Errorf("open session %s: %w", id, err)
	}
	h, err := session.ParseHeader([]byte(headerLine))
	if err != nil {
		return nil, fmt.Errorf("open session %s: %w", id, err)
	}
	rows, err := tx.QueryContext(ctx, `SELECT id, parent_id, type, role, off, length(payload) FROM entries
		WHERE session = ? ORDER BY seq`, id)
	if err != nil {
		return nil, fmt.Errorf("open session %s: %w", id, err)
	}
	defer rows.Close()
	var idx []session.LogIndex
	for rows.Next() {
		var r session.LogIndex
		var typ string
		if err := rows.Scan(&r.ID, &r.ParentID, &typ, &r.Role, &r.Off, &r.Size); err != nil {
			return nil, fmt.Errorf("open session %s: %w", id, err)
		}
		r.Type = session.Type(typ)
		idx = append(idx, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("open session %s: %w", id, err)
	}
	return session.FromLog(backend{st}, h, idx, l, end)
}

// Newest opens cwd's most recently changed session that has entries, nil when none.
func (st *Store) Newest(ctx context.Context, cwd string) (*session.Session, error) {
	var id string
	err := st.db.QueryRowContext(ctx, `SELECT s.id FROM sessions s JOIN summaries m ON m.session = s.id
		WHERE s.cwd = ? AND m.entry_count > 0 ORDER BY m.modified DESC, s.created DESC LIMIT 1`, cwd).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("-c: newest session of %s: %w", cwd, err)
	}
	return st.open(ctx, id, true)
}

// Fork copies the session ref names into a new session of cwd, in one transaction.
func (st *Store) Fork(ctx context.Context, ref, cwd string) (*session.Session, error) {
	var src *session.Session
	var err error
	if fi, serr := os.Stat(ref); serr == nil && fi.Mode().IsRegular() {
		src, err = session.OpenReadOnly(ctx, ref)
	} else {
		var id string
		if id, err = st.ref(ctx, ref); err == nil {
			src, err = st.open(ctx, id, false)
		}
	}
	if err != nil {
		return nil, err
	}
	defer src.Close()
	return src.CopyTo(backend{st}, cwd)
}

// List describes cwd's sessions (every folder's for ""), newest first, from the summaries.
func (st *Store) List(ctx context.Context, cwd string) ([]session.Info, error) {
	out, err := st.infos(ctx, `m.entry_count > 0 AND (?1 = '' OR s.cwd = ?1) ORDER BY m.modified DESC`, cwd)
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	return out, nil
}

// Describe is the Info of the session ref names (Path's form or an id prefix), from its
// summary: one row read, whatever the size of its log.
func (st *Store) Describe(ctx context.Context, ref string) (session.Info, error) {
	id, err := st.ref(ctx, ref)
	if err != nil {
		return session.Info{}, err
	}
	out, err := st.infos(ctx, `s.id = ?1`, id)
	if err == nil && len(out) == 0 {
		err = os.ErrNotExist // removed since ref found it
	}
	if err != nil {
		return session.Info{}, fmt.Errorf("describe session %s: %w", id, err)
	}
	return out[0], nil
}

// infos reads the Info of the sessions where says, joined with their summaries.
func (st *Store) infos(ctx context.Context, where string, arg any) ([]session.Info, error) {
	rows, err := st.db.QueryContext(ctx, `SELECT s.id, s.cwd, s.parent_session, s.created, m.name, m.first_prompt,
		m.message_count, m.modified, m.size FROM sessions s JOIN summaries m ON m.session = s.id WHERE `+where, arg)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []session.Info
	for rows.Next() {
		var in session.Info
		var created string
		var modified int64
		if err := rows.Scan(&in.ID, &in.Cwd, &in.ParentSession, &created, &in.Name, &in.FirstPrompt,
			&in.MessageCount, &modified, &in.Size); err != nil {
			return nil, err
		}
		in.Path = st.path + "#" + in.ID
		in.Created, _ = time.Parse(time.RFC3339Nano, created)
		in.Modified = time.UnixMilli(modified)
		out = append(out, in)
	}
	return out, rows.Err()
}
