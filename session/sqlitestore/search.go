package sqlitestore

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"pi/session"
)

// candidates is the condition that narrows the search to entries that may match: the FTS5
// phrase of the query's longest NUL-free part (FTS5 reads its query as a C string), or LIKE
// where that part is too short for a trigram. MatchLine then checks the whole query.
func candidates(query string) (where, arg string) {
	part := ""
	for p := range strings.SplitSeq(query, "\x00") {
		if len(p) > len(part) {
			part = p
		}
	}
	if utf8.RuneCountInString(part) < 3 {
		return `search.text LIKE ? ESCAPE '\'`, "%" + strings.NewReplacer(`\`, `\\`, "%", `\%`, "_", `\_`).Replace(part) + "%"
	}
	return `search MATCH ?`, `"` + strings.ReplaceAll(part, `"`, `""`) + `"`
}

// Search finds the entries whose search text contains query, ignoring case, through the
// trigram full-text index (a substring match, as the file store's scan is); queries shorter
// than three characters, which a trigram cannot index, scan the text with LIKE.
func (st *Store) Search(ctx context.Context, query string, each func(session.Hit) error) error {
	if query == "" {
		return errors.New("search: nothing to search for")
	}
	where, arg := candidates(query)
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
