package session

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"pi/provider"
)

// Store keeps sessions. Files (pi's JSONL files, one per session) is the default; a database
// store (package session/sqlitestore) is the other. A Session made by either is used the same
// way: the store only decides where its lines go.
type Store interface {
	// New starts a session of cwd (parent names the session it continues from, "" for none).
	// Nothing is stored before the first assistant message.
	New(cwd, parent string) *Session
	// Open opens a session for continuing it: ref is what Path reported, or an id prefix.
	Open(ctx context.Context, ref string) (*Session, error)
	// Newest opens cwd's most recently changed session (-c), nil when it has none.
	Newest(ctx context.Context, cwd string) (*Session, error)
	// Fork copies the session ref names into a new session of cwd (--fork).
	Fork(ctx context.Context, ref, cwd string) (*Session, error)
	// List describes cwd's sessions, every folder's when cwd is "", newest first.
	List(ctx context.Context, cwd string) ([]Info, error)
	// Describe is the Info of the one session ref names (as Open takes it), as List has it;
	// an error wrapping os.ErrNotExist when there is none, an *AmbiguousError for a prefix
	// several ids share.
	Describe(ctx context.Context, ref string) (Info, error)
	// Search calls each with every entry whose searchable text (see SearchText) contains
	// query, ignoring case, until each returns an error (ErrStopSearch ends it quietly).
	Search(ctx context.Context, query string, each func(Hit) error) error
	Close() error
}

// ErrStopSearch, returned by a Search callback, ends the search without an error.
var ErrStopSearch = errors.New("stop search")

// Hit is one entry a search found.
type Hit struct {
	Session string // the session's Path (a file, or a store's name for it)
	ID      string // the session's id
	Cwd     string
	Time    time.Time // the entry's timestamp
	EntryID string
	Line    string // the line of the entry's text that matched, cut to about 200 characters
}

// SearchText is the text of an entry that search looks in: user, assistant and custom
// message text, the names of the tools called and the file paths they were given, the tool
// of a result, summaries and session names. Thinking and tool output are left out (they
// dwarf the conversation and rarely hold what a user remembers).
func SearchText(e *Entry) string {
	var b strings.Builder
	line := func(s string) {
		if s = strings.TrimSpace(s); s != "" {
			b.WriteString(s)
			b.WriteByte('\n')
		}
	}
	switch e.Type {
	case TypeMessage:
		if m := e.Message; m != nil {
			if m.Role == provider.RoleToolResult {
				line(m.ToolName)
				break
			}
			blocksText(m.Content, line)
		}
	case TypeCustomMessage:
		blocksText(e.Content, line)
	case TypeCompaction, TypeBranchSummary:
		line(e.Summary)
	case TypeSessionInfo:
		if e.Name != nil {
			line(*e.Name)
		}
	}
	return b.String()
}

func blocksText(blocks []provider.Block, line func(string)) {
	for _, c := range blocks {
		switch c.Type {
		case provider.BlockText:
			line(c.Text)
		case provider.BlockToolCall:
			line(c.Name + " " + pathArguments(c.Arguments))
		}
	}
}

// pathArguments returns the file paths among a tool call's arguments, space separated.
func pathArguments(args map[string]any) string {
	var paths []string
	for k, v := range args {
		if s, ok := v.(string); ok && strings.Contains(strings.ToLower(k), "path") {
			paths = append(paths, s)
		}
	}
	sort.Strings(paths)
	return strings.Join(paths, " ")
}

// MatchLine returns the line of text that contains query, ignoring case, cut to about 200
// characters around the match; ok is false when no line does.
func MatchLine(text, query string) (string, bool) {
	q := strings.ToLower(query)
	for l := range strings.SplitSeq(text, "\n") {
		lower := strings.ToLower(l)
		at := strings.Index(lower, q)
		if at < 0 {
			continue
		}
		if len(lower) != len(l) {
			l = lower // lowering changed byte lengths: at is an offset into lower
		}
		return around(l, at, len(q)), true
	}
	return "", false
}

func around(l string, at, n int) string {
	const width = 200
	if len(l) <= width {
		return l
	}
	from := max(0, at-(width-n)/2)
	to := min(len(l), from+width)
	for from > 0 && !utf8.RuneStart(l[from]) {
		from--
	}
	for to < len(l) && !utf8.RuneStart(l[to]) {
		to++
	}
	out := l[from:to]
	if from > 0 {
		out = "…" + out
	}
	if to < len(l) {
		out += "…"
	}
	return out
}

// chooseIn is Choose for a Choice that names a Store.
func chooseIn(ctx context.Context, st Store, c Choice) (*Session, error) {
	switch {
	case c.InMemory:
		return InMemory(c.Cwd), nil
	case c.Fork != "":
		s, err := st.Fork(ctx, c.Fork, c.Cwd)
		if err != nil {
			return nil, fmt.Errorf("--fork: %w", err)
		}
		return s, nil
	case c.Ref != "":
		s, err := st.Open(ctx, c.Ref)
		if errors.Is(err, os.ErrNotExist) {
			// Not in the store: a JSONL session (ours not yet imported, or the TypeScript pi's)
			// still continues, found as without a store.
			files := c
			files.Store = nil
			if s, ferr := Choose(ctx, files); ferr == nil {
				return s, nil
			}
		}
		if err != nil {
			return nil, fmt.Errorf("--session: %w", err)
		}
		return s, nil
	case c.Continue:
		s, err := st.Newest(ctx, c.Cwd)
		if err != nil || s != nil {
			return s, err
		}
	}
	return st.New(c.Cwd, c.Parent), nil
}

// FirstHits searches st and returns the first hit of each session that matches, by the
// session's Path: what a session picker filters its list by as the user types.
func FirstHits(ctx context.Context, st Store, query string) (map[string]Hit, error) {
	first := map[string]Hit{}
	err := st.Search(ctx, query, func(h Hit) error {
		if _, ok := first[h.Session]; !ok {
			first[h.Session] = h
		}
		return nil
	})
	return first, err
}
