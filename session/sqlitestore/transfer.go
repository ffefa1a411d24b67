package sqlitestore

import (
	"bufio"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"pi/session"
)

// importBatch is how many entries go to appendTx at once while importing.
const importBatch = 512

// Import copies the JSONL session file at path into the database in one transaction, each
// entry's line as written (see session.ReadLines), and returns the session's id and what
// reading the file skipped or repaired. A session already in the database is an error.
func (st *Store) Import(ctx context.Context, path string) (string, []session.Warning, error) {
	var id string
	var warnings []session.Warning
	err := st.inTx(ctx, func(tx *sql.Tx) error {
		var batch []session.LogLine
		var off int64
		var err error
		flush := func() error {
			err := appendTx(tx, id, batch, batch[len(batch)-1].Entry.ID, time.Now())
			batch = batch[:0]
			return err
		}
		start := func(h session.Header, headerLine []byte) error {
			id, off = h.ID, int64(len(headerLine)+1)
			return insertSession(tx, h, headerLine, time.Now())
		}
		warnings, err = session.ReadLines(ctx, path, start, func(e *session.Entry, line []byte) error {
			batch = append(batch, session.LogLine{Entry: e, Line: line, Off: off})
			off += int64(len(line) + 1)
			if len(batch) == importBatch {
				return flush()
			}
			return nil
		})
		if err != nil {
			return err
		}
		if len(batch) > 0 {
			return flush()
		}
		return nil
	})
	if err != nil {
		return "", nil, fmt.Errorf("import %s: %w", path, err)
	}
	return id, warnings, nil
}

// Export writes the session with id as its JSONL file: the header line and every entry's
// line, in the order they were appended.
func (st *Store) Export(ctx context.Context, id string, w io.Writer) error {
	var header string
	if err := st.db.QueryRowContext(ctx, `SELECT header FROM sessions WHERE id = ?`, id).Scan(&header); err != nil {
		return fmt.Errorf("export session %s: %w", id, err)
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	bw.WriteString(header + "\n")
	rows, err := st.db.QueryContext(ctx, `SELECT payload FROM entries WHERE session = ? ORDER BY seq`, id)
	if err != nil {
		return fmt.Errorf("export session %s: %w", id, err)
	}
	defer rows.Close()
	for rows.Next() {
		var line []byte
		if err := rows.Scan(&line); err != nil {
			return fmt.Errorf("export session %s: %w", id, err)
		}
		bw.Write(line)
		bw.WriteByte('\n')
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("export session %s: %w", id, err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("export session %s: %w", id, err)
	}
	return nil
}

// ExportFile writes the session with id into dir under pi's file name for it (the folder of
// its cwd under a sessions root, or any folder) and returns the path. An existing file is
// left alone: that is an error.
func (st *Store) ExportFile(ctx context.Context, id, dir string) (string, error) {
	var created string
	if err := st.db.QueryRowContext(ctx, `SELECT created FROM sessions WHERE id = ?`, id).Scan(&created); err != nil {
		return "", fmt.Errorf("export session %s: %w", id, err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("export session %s: %w", id, err)
	}
	path := filepath.Join(dir, session.FileName(created, id))
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", fmt.Errorf("export session %s: %w", id, err)
	}
	err = st.Export(ctx, id, f)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(path)
		return "", err
	}
	return path, nil
}

// IDs lists every session's id, oldest first.
func (st *Store) IDs(ctx context.Context) ([]string, error) {
	rows, err := st.db.QueryContext(ctx, `SELECT id FROM sessions ORDER BY created`)
	if err != nil {
		return nil, fmt.Errorf("list session ids: %w", err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("list session ids: %w", err)
		}
		ids = append(ids, id)
	}
	return ids, errors.Join(rows.Err())
}
