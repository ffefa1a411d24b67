package session

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"pi/internal/safefile"
)

// Files is the default Store: one JSONL file per session, in one folder per project under
// $PI_HOME/sessions (Dir), or all in SessionDir when that is set (session_dir).
type Files struct {
	Home       string // $PI_HOME
	SessionDir string // where every session goes instead of Dir(Home, cwd), "" for Dir
}

func (fs Files) dir(cwd string) string {
	if fs.SessionDir != "" {
		return fs.SessionDir
	}
	return Dir(fs.Home, cwd)
}

// dirs lists every folder that holds sessions: each project's, and SessionDir.
func (fs Files) dirs() ([]string, error) {
	root := SessionsRoot(fs.Home)
	var out []string
	if fs.SessionDir != "" {
		out = append(out, fs.SessionDir)
	}
	ents, err := os.ReadDir(root)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("list session folders in %s: %w", root, err)
	}
	for _, e := range ents {
		if d := filepath.Join(root, e.Name()); e.IsDir() && d != filepath.Clean(fs.SessionDir) {
			out = append(out, d)
		}
	}
	return out, nil
}

func (fs Files) New(cwd, parent string) *Session { return CreateChild(fs.dir(cwd), cwd, parent) }

func (fs Files) Open(ctx context.Context, ref string) (*Session, error) {
	root := SessionsRoot(fs.Home)
	path, err := Resolve(ref, cmp.Or(fs.SessionDir, root), root)
	if err != nil {
		return nil, err
	}
	return Open(ctx, path)
}

func (fs Files) Newest(ctx context.Context, cwd string) (*Session, error) {
	path, err := FindNewest(fs.dir(cwd))
	if err != nil || path == "" {
		return nil, err
	}
	return Open(ctx, path)
}

func (fs Files) Fork(ctx context.Context, ref, cwd string) (*Session, error) {
	src, err := Resolve(ref, fs.dir(cwd), SessionsRoot(fs.Home))
	if err != nil {
		return nil, err
	}
	return ForkFile(ctx, src, fs.dir(cwd), cwd)
}

func (fs Files) List(ctx context.Context, cwd string) ([]Info, error) {
	if cwd != "" {
		return List(ctx, fs.dir(cwd))
	}
	dirs, err := fs.dirs()
	if err != nil {
		return nil, err
	}
	return ListAll(ctx, dirs...)
}

func (fs Files) Describe(ctx context.Context, ref string) (Info, error) {
	root := SessionsRoot(fs.Home)
	path, err := Resolve(ref, cmp.Or(fs.SessionDir, root), root)
	var amb *AmbiguousError
	if errors.As(err, &amb) {
		return Info{}, err
	}
	if err != nil {
		return Info{}, fmt.Errorf("describe session %q: %w", ref, os.ErrNotExist)
	}
	return Describe(ctx, path)
}

func (fs Files) Close() error { return nil }

// Search reads every session file line by line; a line whose raw bytes cannot contain the
// query is not decoded, so a search costs about one read of every file.
func (fs Files) Search(ctx context.Context, query string, each func(Hit) error) error {
	if query == "" {
		return errors.New("search: nothing to search for")
	}
	dirs, err := fs.dirs()
	if err != nil {
		return err
	}
	for _, d := range dirs {
		files, err := sessionFiles(d)
		if err != nil {
			return err
		}
		for _, f := range files {
			if err := searchFile(ctx, f, query, each); err != nil {
				if errors.Is(err, ErrStopSearch) {
					return nil
				}
				return err
			}
		}
	}
	return nil
}

// SearchFile is Search over the one session file at path; a file that is not a session has no
// hits. each returning ErrStopSearch ends it quietly.
func SearchFile(ctx context.Context, path, query string, each func(Hit) error) error {
	if query == "" {
		return errors.New("search: nothing to search for")
	}
	if err := searchFile(ctx, path, query, each); err != nil && !errors.Is(err, ErrStopSearch) {
		return err
	}
	return nil
}

func searchFile(ctx context.Context, path, query string, each func(Hit) error) error {
	f, err := safefile.OpenFile(path, os.O_RDONLY)
	if errors.Is(err, safefile.ErrNotRegular) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("search %s: %w", path, err)
	}
	defer f.Close()
	lr := newLineReaderSize(f, 64<<10) // grows for a longer line; a listing's 1 MB a file is waste here
	first, _, _, err := lr.next()
	if err != nil {
		return nil // empty or unreadable: not a session
	}
	h, err := parseHeader(first)
	if err != nil {
		return nil
	}
	raw, prefilter := rawNeedle(query)
	ascii := !bytes.ContainsFunc(raw, func(r rune) bool { return r >= utf8.RuneSelf })
	var lower []byte
	for n := 0; ; n++ {
		if n%1024 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		line, _, _, err := lr.next()
		if err != nil {
			return nil // the end, or a torn last line
		}
		if prefilter {
			if ascii {
				lower = asciiLower(lower[:0], line)
			} else {
				lower = bytes.ToLower(line)
			}
			if !bytes.Contains(lower, raw) {
				continue
			}
		}
		e, err := decodeLine(line)
		if err != nil {
			continue
		}
		if m, ok := MatchLine(SearchText(e), query); ok {
			t, _ := time.Parse(time.RFC3339Nano, e.Timestamp)
			if err := each(Hit{Session: path, ID: h.ID, Cwd: h.Cwd, Time: t, EntryID: e.ID, Line: m}); err != nil {
				return err
			}
		}
	}
}

// asciiLower appends b to dst with A-Z lowered: enough to find an ASCII query in any case.
func asciiLower(dst, b []byte) []byte {
	for _, c := range b {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		dst = append(dst, c)
	}
	return dst
}

// rawNeedle is the part of query that must appear, lowered, in the raw JSON line of an entry
// whose search text holds query: its longest run without spaces (SearchText joins a tool's
// name and paths with spaces, which the line does not hold). JSON keeps text literal but for
// '"', '\\' and control characters, so a query with them is not looked for in the raw line.
func rawNeedle(query string) ([]byte, bool) {
	if strings.ContainsFunc(query, func(r rune) bool { return r == '"' || r == '\\' || r < ' ' }) {
		return nil, false
	}
	part := ""
	for _, p := range strings.Fields(query) {
		if len(p) > len(part) {
			part = p
		}
	}
	return []byte(strings.ToLower(part)), part != ""
}
