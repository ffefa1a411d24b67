package session

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"pi/internal/safefile"
	"pi/provider"
)

// Home returns $PI_HOME, or ~/.pi when it is unset.
func Home() (string, error) {
	if h := os.Getenv("PI_HOME"); h != "" {
		return h, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("find the home directory for ~/.pi: %w", err)
	}
	return filepath.Join(home, ".pi"), nil
}

// SessionsRoot is the directory holding every project's session directory.
func SessionsRoot(piHome string) string { return filepath.Join(piHome, "sessions") }

// Dir is the directory of cwd's sessions: pi's encoding, the path without its leading
// separator, with '/', '\' and ':' replaced by '-', between "--" and "--".
func Dir(piHome, cwd string) string {
	safe := strings.TrimLeft(cwd, `/\`)
	safe = strings.NewReplacer("/", "-", `\`, "-", ":", "-").Replace(safe)
	return filepath.Join(SessionsRoot(piHome), "--"+safe+"--")
}

// FindNewest returns the most recently modified session file in dir (for -c), or "" when dir
// holds none. Files that are not sessions are passed over (ListUnreadable names them).
func FindNewest(dir string) (string, error) {
	files, err := sessionFiles(dir)
	if err != nil {
		return "", err
	}
	best, bestTime := "", time.Time{}
	for _, f := range files {
		st, err := os.Stat(f)
		if err != nil || !st.Mode().IsRegular() || !st.ModTime().After(bestTime) {
			continue
		}
		if _, err := readHeader(f); err != nil {
			continue
		}
		best, bestTime = f, st.ModTime()
	}
	return best, nil
}

// Unreadable is a file of a session folder whose header line cannot be read, and why.
type Unreadable struct {
	Path     string
	Modified time.Time
	Why      string
}

// ListUnreadable lists the .jsonl files of dir that List passes over because their header
// line is damaged, newest first.
func ListUnreadable(dir string) ([]Unreadable, error) {
	files, err := sessionFiles(dir)
	if err != nil {
		return nil, err
	}
	var out []Unreadable
	for _, f := range files {
		st, err := os.Stat(f)
		if err != nil || !st.Mode().IsRegular() {
			continue
		}
		if _, err := readHeader(f); errors.Is(err, ErrNotSession) {
			why := strings.TrimPrefix(err.Error(), f+": ")
			out = append(out, Unreadable{Path: f, Modified: st.ModTime(), Why: why})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Modified.After(out[j].Modified) })
	return out, nil
}

func sessionFiles(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list sessions in %s: %w", dir, err)
	}
	var out []string
	for _, e := range ents {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".jsonl") {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	return out, nil
}

// readHeader reads and checks the first line of a file, as Open does.
func readHeader(path string) (Header, error) {
	f, err := safefile.OpenFile(path, os.O_RDONLY)
	if err != nil {
		return Header{}, err
	}
	defer f.Close()
	line, _, _, err := newLineReaderSize(f, 64<<10).next()
	if err == io.EOF {
		return Header{}, fmt.Errorf("%s: %w: the file is empty", path, ErrNotSession)
	}
	if err != nil {
		return Header{}, err
	}
	h, err := parseHeader(line)
	if err != nil {
		return Header{}, fmt.Errorf("%s: %w", path, err)
	}
	return h, nil
}

// Resolve finds the file a --session or --fork argument names: an existing path, or the prefix
// of a session id, looked up first in projectDir and then in every project under root. Several
// matches are an error that lists them.
func Resolve(ref, projectDir, root string) (string, error) {
	if st, err := os.Stat(ref); err == nil && st.Mode().IsRegular() {
		return ref, nil
	}
	if strings.ContainsAny(ref, `/\`) || strings.HasSuffix(ref, ".jsonl") {
		return "", fmt.Errorf("session %q: %w", ref, os.ErrNotExist)
	}
	dirs := []string{projectDir}
	if ents, err := os.ReadDir(root); err == nil {
		for _, e := range ents {
			if d := filepath.Join(root, e.Name()); e.IsDir() && d != filepath.Clean(projectDir) {
				dirs = append(dirs, d)
			}
		}
	}
	for _, d := range dirs {
		matches, err := matchID(d, ref)
		if err != nil {
			return "", err
		}
		switch len(matches) {
		case 0:
			continue
		case 1:
			return matches[0], nil
		default:
			return "", &AmbiguousError{Ref: ref, Matches: matches}
		}
	}
	return "", fmt.Errorf("no session file or id starting with %q", ref)
}

// AmbiguousError is a session id prefix that more than one session starts with.
type AmbiguousError struct {
	Ref     string
	Matches []string // the ids or files it matches
}

func (e *AmbiguousError) Error() string {
	return fmt.Sprintf("session id prefix %q is ambiguous: %s", e.Ref, strings.Join(e.Matches, ", "))
}

// MatchID is the one rule by which every place that takes a session id takes a unique prefix
// of one (Resolve applies it to files): an id equal to ref, else the one id that starts with
// it. Several are an *AmbiguousError that lists them.
func MatchID(ref string, ids []string) (string, error) {
	var hits []string
	for _, id := range ids {
		if id == ref {
			return id, nil
		}
		if ref != "" && strings.HasPrefix(id, ref) && !slices.Contains(hits, id) {
			hits = append(hits, id)
		}
	}
	switch len(hits) {
	case 0:
		return "", fmt.Errorf("no session id starting with %q", ref)
	case 1:
		return hits[0], nil
	}
	slices.Sort(hits)
	return "", &AmbiguousError{Ref: ref, Matches: hits}
}

func matchID(dir, prefix string) ([]string, error) {
	files, err := sessionFiles(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, f := range files {
		// pi names files <timestamp>_<id>.jsonl; the header is the authority when it differs.
		base := strings.TrimSuffix(filepath.Base(f), ".jsonl")
		_, id, _ := strings.Cut(base, "_")
		if !strings.HasPrefix(id, prefix) {
			if h, err := readHeader(f); err != nil || !strings.HasPrefix(h.ID, prefix) {
				continue
			}
		}
		out = append(out, f)
	}
	return out, nil
}

// Info describes a session file for `pi sessions` and the resume picker.
type Info struct {
	Path          string
	ID            string
	Cwd           string
	Name          string // from the latest session_info entry
	ParentSession string
	Created       time.Time // from the header
	Modified      time.Time // the file's mtime
	Size          int64
	MessageCount  int    // message entries
	FirstPrompt   string // text of the first user message, "" if none
}

// List describes the sessions in dir, newest first. Files that are not sessions are skipped.
func List(ctx context.Context, dir string) ([]Info, error) {
	files, err := sessionFiles(dir)
	if err != nil {
		return nil, err
	}
	var out []Info
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		info, err := Describe(ctx, f)
		if errors.Is(err, ErrNotSession) || errors.Is(err, safefile.ErrNotRegular) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, info)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Modified.After(out[j].Modified) })
	return out, nil
}

// Describe reads one session file's Info without keeping its entries. It reads the file as
// Open does, so it counts the entries Open would keep (a message whose payload turns out not
// to decode is counted unless it was read for FirstPrompt). A file of a newer version is
// described as far as this pi can read it.
func Describe(ctx context.Context, path string) (Info, error) {
	f, err := safefile.OpenFile(path, os.O_RDONLY)
	if err != nil {
		return Info{}, fmt.Errorf("describe session: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return Info{}, fmt.Errorf("describe session: %w", err)
	}
	sc, err := scanFile(ctx, f, scanOptions{newer: true})
	if err != nil {
		return Info{}, fmt.Errorf("describe session %s: %w", path, err)
	}
	s, _ := loaded(sc, path, f)
	info := Info{Path: path, Size: st.Size(), Modified: st.ModTime()}
	if err := s.describe(&info); err != nil {
		return Info{}, fmt.Errorf("describe session %s: %w", path, err)
	}
	return info, nil
}

// describe fills in what info says of the session's header and entries.
func (s *Session) describe(info *Info) error {
	h := s.header
	info.ID, info.Cwd, info.ParentSession, info.Name = h.ID, h.Cwd, h.ParentSession, s.name
	info.Created, _ = time.Parse(time.RFC3339Nano, h.Timestamp)
	var err error
	if info.FirstPrompt, err = s.firstPrompt(); err != nil {
		return err
	}
	for i := range s.nodes {
		if s.nodes[i].typ == TypeMessage && !s.nodes[i].dropped() {
			info.MessageCount++
		}
	}
	return nil
}

// firstPrompt returns the text of the first readable user message in file order.
func (s *Session) firstPrompt() (string, error) {
	for i := range s.nodes {
		n := &s.nodes[i]
		if n.typ != TypeMessage || n.role != "" && n.role != string(provider.RoleUser) {
			continue
		}
		e, err := s.load(i, false)
		if err != nil {
			return "", err
		}
		if e != nil && e.Message != nil && e.Message.Role == provider.RoleUser {
			return e.Message.TextContent(), nil
		}
	}
	return "", nil
}

// ForkFile copies the session at src into a new session of cwd in dir (pi's --fork): a new
// header naming src as its parent, then src's entries line for line (migrated first if src is
// older than v3). Lines Open would skip stay behind, and an entry whose parent had to be
// repaired is written with the parent it hangs from, so the copy loads without repairs; src's
// warnings are passed on, marked as src's. The new session is open for appending, with the
// leaf on the last entry.
func ForkFile(ctx context.Context, src, dir, cwd string) (*Session, error) {
	s, _, in, err := readForCopy(ctx, src)
	if err != nil {
		return nil, fmt.Errorf("fork: %w", err)
	}
	defer in.Close()
	h := newHeader(time.Now(), cwd, src)
	dst := filepath.Join(dir, fileName(h.Timestamp, h.ID))
	if err := s.writeCopy(ctx, dst, h); err != nil {
		_ = os.Remove(dst)
		return nil, fmt.Errorf("fork %s: %w", src, err)
	}
	fork, err := Open(ctx, dst)
	if err != nil {
		return nil, err
	}
	var left []Warning
	for _, w := range s.warnings {
		w.Reason = fmt.Sprintf("in %s: %s", src, w.Reason)
		left = append(left, w)
	}
	fork.warnings = append(left, fork.warnings...)
	return fork, nil
}

func (s *Session) writeCopy(ctx context.Context, dst string, h Header) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
		return err
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(out, 1<<20)
	err = writeLine(w, h)
	if err == nil {
		err = s.eachLine(ctx, func(_ *Entry, line []byte) error {
			w.Write(line)
			return w.WriteByte('\n')
		})
	}
	if err == nil {
		err = w.Flush()
	}
	if err == nil {
		err = out.Sync()
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return err
}

func writeLine(w io.Writer, v json.Marshaler) error {
	line, err := encodeLine(v)
	if err == nil {
		_, err = w.Write(line)
	}
	return err
}

// ReadHeader reads the header of the session file at path.
func ReadHeader(path string) (Header, error) { return readHeader(path) }
