package session

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"pi/provider"
)

// ErrClosed is returned by a Session used after Close.
var ErrClosed = errors.New("session is closed")

// node is one entry in the index. entry is nil while the payload is only in the file.
type node struct {
	meta
	off   int64 // byte offset of the line; -1 while not yet written
	size  int   // line length without the newline
	entry *Entry
}

func nodeFor(e *Entry) node {
	m := meta{typ: e.Type, id: e.ID, parent: e.ParentID}
	if e.Message != nil {
		m.role = string(e.Message.Role)
	}
	return node{meta: m, off: -1, entry: e}
}

// Session is one session: a header and a tree of entries, in memory and (unless it was made
// with InMemory) in a file. Its methods are safe for concurrent use.
type Session struct {
	mu      sync.Mutex
	header  Header
	path    string // "" for an in-memory session
	persist bool
	now     func() time.Time

	f       *os.File     // the open, locked file; nil until the first write
	unlock  func() error // releases the lock on f
	size    int64        // bytes written so far
	needNL  bool         // the file's last line lacks its newline
	written int          // nodes[:written] are in the file

	nodes  []node
	byID   map[string]int
	labels map[string]string
	name   string
	leaf   int // index into nodes, -1 before the first entry

	warnings []Warning
	closed   bool
}

func newSession(h Header, path string, persist bool) *Session {
	return &Session{header: h, path: path, persist: persist, now: time.Now,
		byID: map[string]int{}, labels: map[string]string{}, leaf: -1}
}

func newHeader(now time.Time, cwd, parent string) Header {
	return Header{Version: CurrentVersion, ID: newUUID(now), Timestamp: isoTime(now), Cwd: cwd, ParentSession: parent}
}

// Create starts a new session for cwd whose file will live in dir (see Dir). Nothing touches
// the disk until the first assistant message is appended.
func Create(dir, cwd string) *Session {
	now := time.Now()
	h := newHeader(now, cwd, "")
	return newSession(h, filepath.Join(dir, fileName(h.Timestamp, h.ID)), true)
}

// CreateChild is Create for a session that names the file it continues from in its header
// (pi's new_session{parentSession}).
func CreateChild(dir, cwd, parent string) *Session {
	h := newHeader(time.Now(), cwd, parent)
	return newSession(h, filepath.Join(dir, fileName(h.Timestamp, h.ID)), true)
}

// CreateAt starts a new session that will be written to path, for --session naming a file
// that does not exist yet (pi keeps the user's path). Like Create, nothing is written before
// the first assistant message; creating the file fails if something else made it meanwhile.
func CreateAt(path, cwd string) *Session {
	return newSession(newHeader(time.Now(), cwd, ""), path, true)
}

// InMemory starts a session that is never written (--no-session).
func InMemory(cwd string) *Session {
	return newSession(newHeader(time.Now(), cwd, ""), "", false)
}

// Open opens an existing session file for continuing it: it takes the lock (ErrLocked if
// another process holds it), migrates a v1 or v2 file to v3 (rewriting it), cuts off a torn
// last line, and puts the leaf on the last entry. Skipped lines are reported by Warnings.
func Open(ctx context.Context, path string) (*Session, error) {
	s, migrate, err := openLocked(ctx, path)
	if err != nil || !migrate {
		return s, err
	}
	// Rewrite the migrated file while still holding the old file's lock, then open the new one.
	werr := s.rewrite()
	s.release()
	if werr != nil {
		return nil, werr
	}
	s2, _, err := openLocked(ctx, path)
	if err != nil {
		return nil, err
	}
	s2.warnings = append(s.warnings, s2.warnings...)
	return s2, nil
}

func openLocked(ctx context.Context, path string) (*Session, bool, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND, 0)
	if err != nil {
		return nil, false, fmt.Errorf("open session: %w", err)
	}
	unlock, err := lockFile(f)
	if err != nil {
		f.Close()
		return nil, false, err
	}
	s, migrate, err := loadFrom(ctx, f, path)
	if err != nil {
		_ = unlock()
		f.Close()
		return nil, false, err
	}
	s.f, s.unlock = f, unlock
	return s, migrate, nil
}

func loadFrom(ctx context.Context, f *os.File, path string) (*Session, bool, error) {
	sc, err := scanFile(ctx, io.NewSectionReader(f, 0, 1<<62))
	if err != nil {
		return nil, false, fmt.Errorf("load session %s: %w", path, err)
	}
	s := newSession(sc.header, path, true)
	s.warnings = sc.warnings
	migrate := sc.header.Version < CurrentVersion
	if migrate {
		migrateEntries(&s.header, sc.nodes)
	}
	for i := range sc.nodes {
		s.addNode(sc.nodes[i])
	}
	s.written, s.size, s.needNL = len(s.nodes), sc.end, sc.needNL
	if sc.tornAt >= 0 && !migrate {
		if err := f.Truncate(sc.tornAt); err != nil {
			return nil, false, fmt.Errorf("cut torn line off %s: %w", path, err)
		}
		s.size = sc.tornAt
		s.warnings[len(s.warnings)-1].Reason += "; removed from the file"
	}
	return s, migrate, nil
}

// addNode indexes n and moves the leaf to it.
func (s *Session) addNode(n node) {
	s.nodes = append(s.nodes, n)
	i := len(s.nodes) - 1
	s.byID[n.id] = i
	s.leaf = i
	if e := n.entry; e != nil {
		switch e.Type {
		case TypeLabel:
			if e.Label != nil && *e.Label != "" {
				s.labels[e.TargetID] = *e.Label
			} else {
				delete(s.labels, e.TargetID)
			}
		case TypeSessionInfo:
			if e.Name != nil && *e.Name != "" {
				s.name = *e.Name
			}
		}
	}
}

// rewrite replaces the file with the in-memory entries (after a migration), atomically.
func (s *Session) rewrite() error {
	tmp, err := os.CreateTemp(filepath.Dir(s.path), ".migrate-*.jsonl")
	if err != nil {
		return fmt.Errorf("migrate %s: %w", s.path, err)
	}
	defer os.Remove(tmp.Name())
	err = s.writeAll(tmp)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), s.path)
	}
	if err != nil {
		return fmt.Errorf("migrate %s: %w", s.path, err)
	}
	return nil
}

func (s *Session) writeAll(w io.Writer) error {
	line, err := encodeLine(s.header)
	if err != nil {
		return err
	}
	if _, err := w.Write(line); err != nil {
		return err
	}
	for i := range s.nodes {
		if line, err = encodeLine(s.nodes[i].entry); err != nil {
			return err
		}
		if _, err := w.Write(line); err != nil {
			return err
		}
	}
	return nil
}

func (s *Session) release() {
	if s.f == nil {
		return
	}
	if s.unlock != nil {
		_ = s.unlock()
	}
	_ = s.f.Close()
	s.f = nil
}

// Close syncs and closes the file and releases the lock. Entries still buffered because no
// assistant message arrived are dropped, as pi drops them.
func (s *Session) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	if s.f == nil {
		return nil
	}
	err := s.f.Sync()
	s.release()
	if err != nil {
		return fmt.Errorf("close session %s: %w", s.path, err)
	}
	return nil
}

// Path returns the session file's path ("" for an in-memory session). The file may not exist
// yet: see Create.
func (s *Session) Path() string { return s.path }

// Header returns the header.
func (s *Session) Header() Header {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.header
}

// ID returns the session id.
func (s *Session) ID() string { return s.Header().ID }

// Persisted reports whether the file exists on disk yet.
func (s *Session) Persisted() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.f != nil
}

// Warnings returns what loading skipped or repaired.
func (s *Session) Warnings() []Warning {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Warning(nil), s.warnings...)
}

// Leaf returns the id of the current leaf, "" before the first entry or after ResetLeaf.
func (s *Session) Leaf() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.leafID()
}

func (s *Session) leafID() string {
	if s.leaf < 0 {
		return ""
	}
	return s.nodes[s.leaf].id
}

// Len returns the number of entries.
func (s *Session) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.nodes)
}

// Name returns the session's display name from its latest session_info entry.
func (s *Session) Name() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.name
}

// Label returns the label of an entry, "" if none.
func (s *Session) Label(id string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.labels[id]
}

// Entry returns the entry with id, reading it from the file if needed.
func (s *Session) Entry(id string) (Entry, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	i, ok := s.byID[id]
	if !ok {
		return Entry{}, fmt.Errorf("session %s: entry %q not found", s.header.ID, id)
	}
	e, err := s.load(i, false)
	if err != nil {
		return Entry{}, err
	}
	return *e, nil
}

// load returns the parsed entry at index i; keep caches it in the index.
func (s *Session) load(i int, keep bool) (*Entry, error) {
	n := &s.nodes[i]
	if n.entry != nil {
		return n.entry, nil
	}
	e, err := s.parse(i)
	if err != nil {
		return nil, err
	}
	if keep {
		n.entry = e
	}
	return e, nil
}

// parse reads and decodes the entry at index i from the file. It only reads the index, so
// several goroutines may parse at once while the caller holds s.mu.
func (s *Session) parse(i int) (*Entry, error) {
	n := &s.nodes[i]
	if s.f == nil {
		return nil, fmt.Errorf("session %s: entry %s has no payload", s.header.ID, n.id)
	}
	buf := make([]byte, n.size)
	if _, err := s.f.ReadAt(buf, n.off); err != nil {
		return nil, fmt.Errorf("read entry %s of %s: %w", n.id, s.path, err)
	}
	e := new(Entry)
	// Called directly rather than through json.Unmarshal, which would first validate the
	// whole line once more: on a path of large tool results that pass is a third of the cost.
	if err := e.UnmarshalJSON(buf); err != nil {
		return nil, fmt.Errorf("read entry %s of %s: %w", n.id, s.path, err)
	}
	return e, nil
}

// loadAll returns the entries at idx, parsing those not in memory on all cores when there
// are many (decoding JSON is what a long path costs); keep stores them in the index.
func (s *Session) loadAll(idx []int, keep bool) ([]*Entry, error) {
	out := make([]*Entry, len(idx))
	var todo []int // positions in idx still to parse
	for k, i := range idx {
		if out[k] = s.nodes[i].entry; out[k] == nil {
			todo = append(todo, k)
		}
	}
	errs := make([]error, len(todo))
	workers := min(runtime.GOMAXPROCS(0), (len(todo)+63)/64)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for t := int(next.Add(1) - 1); t < len(todo); t = int(next.Add(1) - 1) {
				out[todo[t]], errs[t] = s.parse(idx[todo[t]])
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	if keep {
		for _, k := range todo {
			s.nodes[idx[k]].entry = out[k]
		}
	}
	return out, nil
}

// Entries returns every entry in file order. Entries off the active path are read from the
// file and not kept.
func (s *Session) Entries() ([]Entry, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	idx := make([]int, len(s.nodes))
	for i := range idx {
		idx[i] = i
	}
	return s.copies(idx)
}

// Path returns the entries from the root to id (inclusive). An unknown id is an error.
func (s *Session) PathTo(id string) ([]Entry, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	i, ok := s.byID[id]
	if !ok {
		return nil, fmt.Errorf("session %s: entry %q not found", s.header.ID, id)
	}
	return s.copies(s.pathIndices(i))
}

// copies loads the entries at idx and returns them as values, which callers may keep.
func (s *Session) copies(idx []int) ([]Entry, error) {
	loaded, err := s.loadAll(idx, false)
	if err != nil {
		return nil, err
	}
	out := make([]Entry, len(loaded))
	for i, e := range loaded {
		out[i] = *e
	}
	return out, nil
}

// pathIndices walks from i to the root and returns the indices root first. A missing parent
// (an orphan) ends the path; a parent cycle in a damaged file cannot loop forever.
func (s *Session) pathIndices(i int) []int {
	var rev []int
	for i >= 0 && len(rev) <= len(s.nodes) {
		rev = append(rev, i)
		p := s.nodes[i].parent
		if p == "" {
			break
		}
		j, ok := s.byID[p]
		if !ok {
			break
		}
		i = j
	}
	for l, r := 0, len(rev)-1; l < r; l, r = l+1, r-1 {
		rev[l], rev[r] = rev[r], rev[l]
	}
	return rev
}

// hasAssistant reports whether any entry is an assistant message: pi's condition for a file.
func (s *Session) hasAssistant() bool {
	for i := range s.nodes {
		if s.nodes[i].role == string(provider.RoleAssistant) {
			return true
		}
	}
	return false
}
