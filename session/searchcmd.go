package session

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
)

// StoreCommands are the words after `pi sessions` that work on a Store: search (any store),
// and moving sessions between the JSONL files and the SQLite store.
func StoreCommands() []string { return []string{"search", "import-jsonl", "export-jsonl"} }

// IsStoreCommand reports whether `pi sessions <word>` is one of StoreCommands.
func IsStoreCommand(word string) bool { return slices.Contains(StoreCommands(), word) }

// StoreUsage is the lines of pi's -h for StoreCommands.
const StoreUsage = `  pi sessions search TEXT        every session's messages, tool names and file paths holding TEXT
                                 (any case): session, date, folder and the line, newest first
  pi sessions import-jsonl [--all | FILE...]  copy JSONL sessions into the database ([session]
                                 store = "sqlite"); --all: every one under $PI_HOME/sessions
  pi sessions export-jsonl [--dir D] [--all | ID...]  write the database's sessions as pi's JSONL
                                 files (default: each in its folder's $PI_HOME/sessions/--cwd--)`

// SearchCommand is `pi sessions search [--limit N] TEXT...` over st.
func SearchCommand(ctx context.Context, st Store, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("search", flag.ContinueOnError)
	fs.SetOutput(stdout)
	limit := fs.Int("limit", 100, "show at most this many matches")
	if err := fs.Parse(args); err != nil {
		return err
	}
	query := strings.Join(fs.Args(), " ")
	if strings.TrimSpace(query) == "" {
		return errors.New("nothing to search for: pi sessions search TEXT")
	}
	var hits []Hit
	err := st.Search(ctx, query, func(h Hit) error {
		hits = append(hits, h)
		return nil
	})
	if err != nil {
		return err
	}
	WriteHits(stdout, hits, *limit)
	return nil
}

// WriteHits prints the newest hits first, one a line: the shortest id prefix that tells the
// sessions found apart, date, folder, the line.
func WriteHits(w io.Writer, hits []Hit, limit int) {
	if len(hits) == 0 {
		fmt.Fprintln(w, "no session mentions that")
		return
	}
	slices.SortStableFunc(hits, func(a, b Hit) int { return b.Time.Compare(a.Time) })
	// Ids made in the same millisecond share their first 8 digits: show enough to tell the
	// sessions found apart (the same id gets the same prefix on every line).
	ids := make([]string, min(len(hits), max(limit, 0)))
	for i := range ids {
		ids[i] = hits[i].ID
	}
	short := UniquePrefixes(ids, 8)
	for i, h := range hits {
		if i == limit {
			fmt.Fprintf(w, "… and %d more (--limit N shows more)\n", len(hits)-limit)
			break
		}
		line := strings.Join(strings.Fields(h.Line), " ")
		fmt.Fprintf(w, "%s  %s  %s  %s\n", short[i], h.Time.Local().Format("2006-01-02 15:04"), h.Cwd, line)
	}
	fmt.Fprintln(w, "continue one with: pi --session <id prefix>")
}
