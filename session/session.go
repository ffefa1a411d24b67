package session

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"pi/internal/safefile"
	"pi/provider"
)

// ErrClosed is returned by a Session used after Close.
var ErrClosed = errors.New("session is closed")

// node is one entry in the index. entry is nil while the payload is only in the file.
type node struct {
	typ   Type
	id    string
	role  string // message entries: the message role when known, else ""
	off   int64  // byte offset of the line; -1 while not yet written
	size  int    // line length without the newline
	entry *Entry
	up    int32 // index of the parent node (always a lower index), -1 for a root
	line  int32 // line number in the file, 0 while not read from one
	flags nodeFlags
}

type nodeFlags uint8

const (
	relinked nodeFlags = 1 << iota // up is not the parentId the line names (see index.go)
	dropped                        // the payload turned out unreadable: the entry is left out
)

func (n *node) dropped() bool { return n.flags&dropped != 0 }

// nodeFor makes a root node for e; the caller sets up.
func nodeFor(e *Entry) node {
	n := node{typ: e.Type, id: e.ID, off: -1, entry: e, up: -1}
	if e.Message != nil {
		n.role = string(e.Message.Role)
	}
	return n
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
	rd      io.ReaderAt  // where entries not in memory are read from: f, or a file read without a lock
	unlock  func() error // releases the lock on f
	size    int64        // bytes written so far
	needNL  bool         // the file's last line lacks its newline
	written int          // nodes[:written] are in the file
	backend Backend      // the store that makes this session's log; nil for a JSONL file
	log     Log          // the store's log once created; then f stays nil

	nodes    []node
	byID     map[string]int     // every id in nodes, dropped ones included (see find)
	skipped  map[string]standIn // ids of lines skipped when loading: not to be reused
	ndropped int
	labels   map[string]string
	name     string
	leaf     int // index into nodes, -1 before the first entry; never a dropped node

	warnings []Warning
	closed   bool
}

func newSession(h Header, path string, persist bool) *Session {
	return &Session{header: h, path: path, persist: persist, now: time.Now,
		byID: map[string]int{}, skipped: map[string]standIn{}, labels: map[string]string{}, leaf: -1}
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
// last line, decodes the entries the context needs, and puts the leaf on the last readable
// entry. Skipped and repaired lines are reported by Warnings (see index.go for the rules).
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
	f, err := safefile.OpenFile(path, os.O_RDWR|os.O_APPEND)
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
	sc, err := scanFile(ctx, io.NewSectionReader(f, 0, 1<<62), scanOptions{})
	if err != nil {
		return nil, false, fmt.Errorf("load session %s: %w", path, err)
	}
	s, migrate := loaded(sc, path, f)
	s.written, s.size, s.needNL = len(s.nodes), sc.end, sc.needNL
	if sc.tornAt >= 0 && !migrate {
		if err := f.Truncate(sc.tornAt); err != nil {
			return nil, false, fmt.Errorf("cut torn line off %s: %w", path, err)
		}
		s.size = sc.tornAt
		for i := range s.warnings {
			if s.warnings[i].Offset == sc.tornAt {
				s.warnings[i].Reason += "; removed from the file"
			}
		}
	}
	if !migrate {
		if err := s.checkContext(); err != nil {
			return nil, false, fmt.Errorf("load session %s: %w", path, err)
		}
	}
	return s, migrate, nil
}

// loaded makes the session of a scanned file whose entries are read from rd, with the leaf on
// its last entry, and migrates it in memory if it is older than v3 (reporting whether it did).
func loaded(sc *scanned, path string, rd io.ReaderAt) (*Session, bool) {
	s := newSession(sc.header, path, true)
	s.rd = rd
	s.warnings, s.nodes, s.byID, s.skipped = sc.warnings, sc.nodes, sc.byID, sc.skipped
	for i := range s.nodes {
		s.noteEntry(s.nodes[i].entry)
	}
	s.leaf = len(s.nodes) - 1
	migrate := sc.header.Version < CurrentVersion
	if migrate {
		migrateEntries(&s.header, s.nodes)
		s.reindex()
	}
	return s, migrate
}

// checkContext decodes the context's entries at once (Context keeps them), so that one that
// cannot be decoded is dropped and reported with the other warnings, before anyone reads them.
// The leaf of a file just read is its last readable entry, also when the last one turns out
// unreadable only now.
func (s *Session) checkContext() error {
	for s.leaf >= 0 {
		leaf := s.leaf
		if _, err := s.activePathLocked(leaf); err != nil {
			return err
		}
		if s.leaf == leaf {
			break
		}
		for s.leaf = len(s.nodes) - 1; s.leaf >= 0 && s.nodes[s.leaf].dropped(); s.leaf-- {
		}
	}
	sortWarnings(s.warnings)
	return nil
}

func sortWarnings(w []Warning) {
	sort.SliceStable(w, func(i, j int) bool { return w[i].Line < w[j].Line })
}

// reindex rebuilds byID after migration gave the entries new ids.
func (s *Session) reindex() {
	s.byID = make(map[string]int, len(s.nodes))
	for i := range s.nodes {
		s.byID[s.nodes[i].id] = i
	}
}

// find returns the index of the readable entry with id.
func (s *Session) find(id string) (int, bool) {
	i, ok := s.byID[id]
	if !ok || s.nodes[i].dropped() {
		return -1, false
	}
	return i, true
}

// taken reports whether id is used in the file, even by a line that could not be read.
func (s *Session) taken(id string) bool {
	_, inFile := s.byID[id]
	_, skipped := s.skipped[id]
	return inFile || skipped
}

// parentOf returns the index of the nearest readable ancestor of node i, -1 for none.
func (s *Session) parentOf(i int) int {
	p := int(s.nodes[i].up)
	for p >= 0 && s.nodes[p].dropped() {
		p = int(s.nodes[p].up)
	}
	return p
}

func (s *Session) parentID(i int) string {
	if p := s.parentOf(i); p >= 0 {
		return s.nodes[p].id
	}
	return ""
}

// drop leaves out an entry whose payload cannot be decoded: its children hang from its parent
// from now on, as if its line had been skipped when the file was read. A leaf that is dropped
// moves to its parent.
func (s *Session) drop(i int, err error) {
	n := &s.nodes[i]
	n.flags |= dropped
	n.entry = nil
	s.ndropped++
	reason := fmt.Sprintf("unreadable entry %s skipped: %v", n.id, err)
	if p := s.parentOf(i); p >= 0 {
		reason += fmt.Sprintf("; what hung from it now hangs from %s (line %d)", s.nodes[p].id, s.nodes[p].line)
	} else {
		reason += "; what hung from it is now a root"
	}
	s.warnings = append(s.warnings, Warning{Line: int(n.line), Offset: n.off, Reason: reason})
	if s.leaf == i {
		s.leaf = s.parentOf(i)
	}
}

// addNode indexes n and moves the leaf to it.
func (s *Session) addNode(n node) {
	s.nodes = append(s.nodes, n)
	i := len(s.nodes) - 1
	s.byID[n.id] = i
	s.leaf = i
	s.noteEntry(n.entry)
}

// noteEntry keeps what labels and session names say.
func (s *Session) noteEntry(e *Entry) {
	if e != nil {
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
		if s.nodes[i].dropped() {
			continue
		}
		e := *s.nodes[i].entry
		e.ParentID = s.parentID(i) // repaired links are written repaired
		if line, err = encodeLine(&e); err != nil {
			return err
		}
		if _, err := w.Write(line); err != nil {
			return err
		}
	}
	return nil
}

func (s *Session) release() {
	if s.log != nil {
		_ = s.log.Close()
		s.log, s.rd = nil, nil
	}
	if s.f == nil {
		return
	}
	if s.unlock != nil {
		_ = s.unlock()
	}
	_ = s.f.Close()
	s.f, s.rd = nil, nil
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
	if s.log != nil {
		s.release() // every append was its own durable transaction
		return nil
	}
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
	return s.f != nil || s.log != nil
}

// warn adds a warning for the front end to show.
func (s *Session) warn(w Warning) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.warnings = append(s.warnings, w)
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

// Len returns the number of entries (the readable ones).
func (s *Session) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.nodes) - s.ndropped
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
	i, ok := s.find(id)
	if !ok {
		return Entry{}, fmt.Errorf("session %s: entry %q not found", s.header.ID, id)
	}
	e, err := s.load(i, false)
	if err != nil {
		return Entry{}, err
	}
	if e == nil {
		return Entry{}, fmt.Errorf("session %s: entry %q (line %d) is unreadable", s.header.ID, id, s.nodes[i].line)
	}
	c := *e
	c.ParentID = s.parentID(i)
	return c, nil
}

// unreadable is the error of a line that was read but does not decode as an entry.
type unreadable struct{ err error }

func (u unreadable) Error() string { return "unreadable entry: " + u.err.Error() }
func (u unreadable) Unwrap() error { return u.err }

// decodeError returns the decoding error inside err, or nil if err is another kind of error.
func decodeError(err error) error {
	var u unreadable
	if errors.As(err, &u) {
		return u.err
	}
	return nil
}

// load returns the parsed entry at index i; keep caches it in the index. An entry that does not
// decode is dropped, and load returns nil with no error.
func (s *Session) load(i int, keep bool) (*Entry, error) {
	n := &s.nodes[i]
	if n.entry != nil || n.dropped() {
		return n.entry, nil
	}
	e, err := s.parse(i)
	if derr := decodeError(err); derr != nil {
		s.drop(i, derr)
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if keep {
		n.entry = e
	}
	return e, nil
}

// parse reads and decodes the entry at index i from the file. It only reads the index, so
// several goroutines may parse at once while the caller holds s.mu. A line that does not
// decode gives an unreadable error.
func (s *Session) parse(i int) (*Entry, error) {
	n := &s.nodes[i]
	buf, err := s.readSpan(nil, n.off, n.size)
	if err != nil {
		return nil, fmt.Errorf("read entry %s of %s: %w", n.id, s.path, err)
	}
	return decodeLine(buf)
}

// readSpan reads size bytes at off into buf (grown if it is too small).
func (s *Session) readSpan(buf []byte, off int64, size int) ([]byte, error) {
	if s.rd == nil {
		return nil, fmt.Errorf("session %s has no file to read entries from", s.header.ID)
	}
	if cap(buf) < size {
		buf = make([]byte, size)
	}
	buf = buf[:size]
	_, err := s.rd.ReadAt(buf, off)
	return buf, err
}

func decodeLine(line []byte) (*Entry, error) {
	e := new(Entry)
	// Called directly rather than through json.Unmarshal, which would first validate the
	// whole line once more: on a path of large tool results that pass is a third of the cost.
	// The entry keeps no reference to line.
	if err := e.UnmarshalJSON(line); err != nil {
		return nil, unreadable{err}
	}
	return e, nil
}

// loadAll returns the readable entries at idx and their indices, parsing those not in memory;
// keep stores them in the index. Entries that do not decode are dropped and left out of the
// result. Decoding JSON is what a long path costs, so the entries are read in runs of
// neighbours, one read(2) a run, and the runs are decoded on all cores.
func (s *Session) loadAll(idx []int, keep bool) ([]*Entry, []int, error) {
	out := make([]*Entry, len(idx))
	var todo []int // positions in idx still to parse, in file order
	for k, i := range idx {
		if out[k] = s.nodes[i].entry; out[k] == nil && !s.nodes[i].dropped() {
			todo = append(todo, k)
		}
	}
	sort.Slice(todo, func(a, b int) bool { return s.nodes[idx[todo[a]]].off < s.nodes[idx[todo[b]]].off })
	errs := make([]error, len(todo))
	s.parseRuns(idx, todo, out, errs)
	for t, err := range errs {
		derr := decodeError(err)
		if err != nil && derr == nil {
			return nil, nil, err
		}
		if derr != nil {
			s.drop(idx[todo[t]], derr)
		} else if keep {
			s.nodes[idx[todo[t]]].entry = out[todo[t]]
		}
	}
	entries, kept := out[:0], make([]int, 0, len(idx))
	for k, e := range out {
		if e != nil {
			entries, kept = append(entries, e), append(kept, idx[k])
		}
	}
	return entries, kept, nil
}

// Reading entries in runs: neighbours up to runGap bytes apart share a read of at most
// runBytes (or of one longer entry).
const (
	runGap   = 16 << 10
	runBytes = 1 << 20
)

// parseRuns decodes the entries at idx[todo[...]] (in file order) into out, an error per todo
// position into errs.
func (s *Session) parseRuns(idx, todo []int, out []*Entry, errs []error) {
	var runs []int // start positions in todo; the last run ends at len(todo)
	for t := range todo {
		if t == 0 {
			runs = append(runs, 0)
			continue
		}
		first, prev, n := &s.nodes[idx[todo[runs[len(runs)-1]]]], &s.nodes[idx[todo[t-1]]], &s.nodes[idx[todo[t]]]
		if n.off-(prev.off+int64(prev.size)) > runGap || n.off+int64(n.size)-first.off > runBytes {
			runs = append(runs, t)
		}
	}
	runs = append(runs, len(todo))
	workers := min(runtime.GOMAXPROCS(0), len(runs)-1)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			var buf []byte
			for r := int(next.Add(1) - 1); r < len(runs)-1; r = int(next.Add(1) - 1) {
				buf = s.parseRun(buf, idx, todo[runs[r]:runs[r+1]], out, errs[runs[r]:runs[r+1]])
			}
		})
	}
	wg.Wait()
}

// parseRun reads one run with one read and decodes its entries; it returns the buffer for
// the next run.
func (s *Session) parseRun(buf []byte, idx, run []int, out []*Entry, errs []error) []byte {
	first, last := &s.nodes[idx[run[0]]], &s.nodes[idx[run[len(run)-1]]]
	buf, err := s.readSpan(buf, first.off, int(last.off-first.off)+last.size)
	for t, k := range run {
		n := &s.nodes[idx[k]]
		if err != nil {
			errs[t] = fmt.Errorf("read entry %s of %s: %w", n.id, s.path, err)
			continue
		}
		start := n.off - first.off
		out[k], errs[t] = decodeLine(buf[start : start+int64(n.size)])
	}
	return buf
}

// Entries returns every readable entry in file order, each with the parent it hangs from
// (see index.go for how a damaged file is repaired). Entries off the active path are read from
// the file and not kept.
func (s *Session) Entries() ([]Entry, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	idx := make([]int, 0, len(s.nodes))
	for i := range s.nodes {
		if !s.nodes[i].dropped() {
			idx = append(idx, i)
		}
	}
	return s.copies(idx)
}

// PathTo returns the entries from the root to id (inclusive). An unknown id is an error.
func (s *Session) PathTo(id string) ([]Entry, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	i, ok := s.find(id)
	if !ok {
		return nil, fmt.Errorf("session %s: entry %q not found", s.header.ID, id)
	}
	return s.copies(s.pathIndices(i))
}

// copies loads the entries at idx and returns them as values, which callers may keep, with
// the parents they hang from.
func (s *Session) copies(idx []int) ([]Entry, error) {
	loaded, kept, err := s.loadAll(idx, false)
	if err != nil {
		return nil, err
	}
	out := make([]Entry, len(loaded))
	for k, e := range loaded {
		out[k] = *e
		out[k].ParentID = s.parentID(kept[k])
	}
	return out, nil
}

// pathIndices walks from i to the root and returns the readable entries' indices, root first.
// Parents always have lower indices than their children, so the walk ends.
func (s *Session) pathIndices(i int) []int {
	if i >= 0 && s.nodes[i].dropped() {
		i = s.parentOf(i)
	}
	var rev []int
	for ; i >= 0; i = s.parentOf(i) {
		rev = append(rev, i)
	}
	for l, r := 0, len(rev)-1; l < r; l, r = l+1, r-1 {
		rev[l], rev[r] = rev[r], rev[l]
	}
	return rev
}

// hasReply reports whether any entry is an assistant message that did not fail: the condition
// for a file. pi's is any assistant message; we leave out a session whose every reply is an
// error (no server, a request refused), so `pi -c` and the listings never land on it.
func (s *Session) hasReply() bool {
	for i := range s.nodes {
		n := &s.nodes[i]
		failed := n.entry != nil && n.entry.Message != nil && n.entry.Message.StopReason == provider.StopError
		if n.role == string(provider.RoleAssistant) && !failed {
			return true
		}
	}
	return false
}
