package sqlitestore

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"pi/session"
)

// Search finds the entries whose search text contains query, ignoring case, through the
// trigram full-text index (a substring match, as the file store's scan is); queries shorter
// than three characters, which a trigram cannot index, scan the text with LIKE.
func (st *Store) Search(ctx context.Context, query string, each func(session.Hit) error) error {
	if query == "" {
		return errors.New("search: nothing to search for")
	}
	where, arg := `search MATCH ?`, `"`+strings.ReplaceAll(query, `"`, `""`)+`"`
	if len([]rune(query)) < 3 {
		where = `search.text LIKE ? ESCAPE '\'`
		arg = "%" + strings.NewReplacer(`\`, `\\`, "%", `\%`, "_", `\_`).Replace(query) + "%"
	}
	rows, err := st.db.QueryContext(ctx, `SELECT e.session, s.cwd, e.id, e.timestamp, search.text
		FROM search JOIN entries e ON e.rowid = search.rowid JOIN sessions s ON s.id = e.session
		WHERE `+where+` ORDER BY e.session, e.seq`, arg)
	if err != nil {
		return fmt.Errorf("search for %q: %w", query, err)
	}
	defer rows.Close()
	for rows.Next() {
		var h session.Hit
		var ts, text string
		if err := rows.Scan(&h.ID, &h.Cwd, &h.EntryID, &ts, &text); err != nil {
			return fmt.Errorf("search for %q: %w", query, err)
		}
		line, ok := session.MatchLine(text, query)
		if !ok {
			continue // the index matched across a line break
		}
		h.Session, h.Line = st.path+"#"+h.ID, line
		h.Time, _ = time.Parse(time.RFC3339Nano, ts)
		if err := each(h); err != nil {
			if errors.Is(err, session.ErrStopSearch) {
				return nil
			}
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("search for %q: %w", query, err)
	}
	return nil
}
