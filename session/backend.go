package session

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"pi/internal/safefile"
)

// Backend is how a Store other than the JSONL files keeps the sessions it makes. A Session
// still builds every entry and its JSONL line itself, so every store holds pi's lines exactly;
// the backend only says where they go.
type Backend interface {
	// Create makes the log of a new session, given its header and the header's JSONL line.
	Create(h Header, headerLine []byte) (Log, error)
	// Path is what Session.Path reports for the session with id (not a file).
	Path(id string) string
}

// Log is one session's persistence in a Store. Entries are addressed by the offset their line
// would have in the session's JSONL file (header line, then one line per entry, each with its
// newline), so a Session reads back what it does not keep in memory as it reads a file.
type Log interface {
	// ReadAt fills p with the log's bytes from off as if it were the JSONL file; bytes between
	// the entries asked for may be anything.
	io.ReaderAt
	// Append stores the batch after what the log holds, in one durable transaction, and makes
	// leaf the active leaf. Either every line of the batch is stored or none.
	Append(batch []LogLine, leaf string) error
	// Close releases the log (and its writer's lock).
	Close() error
}

// LogLine is one entry handed to a Log: the entry, its JSONL line (without the newline) and
// the offset of that line.
type LogLine struct {
	Entry *Entry
	Line  []byte
	Off   int64
}

// LogIndex is what a store keeps of one entry to open a session without reading its payload.
type LogIndex struct {
	ID, ParentID string
	Type         Type
	Role         string // message entries: the message role
	Off          int64
	Size         int // length of the line without its newline
}

// NewLogged starts a session of cwd that b will keep; like Create, nothing is stored before
// the first assistant message.
func NewLogged(b Backend, cwd, parent string) *Session {
	h := newHeader(time.Now(), cwd, parent)
	s := newSession(h, b.Path(h.ID), true)
	s.backend = b
	return s
}

// FromLog opens a session a store keeps: its header, the index of its entries in log order,
// the log to read payloads from and append to, and the offset just past its last line. Only
// labels, session names and the entries of the context are read.
func FromLog(b Backend, h Header, idx []LogIndex, log Log, end int64) (*Session, error) {
	s := newSession(h, b.Path(h.ID), true)
	s.backend, s.log, s.rd, s.size = b, log, log, end
	s.nodes = make([]node, len(idx))
	var meta []int
	for k, r := range idx {
		n := node{typ: r.Type, id: r.ID, role: r.Role, off: r.Off, size: r.Size, up: -1, line: int32(k + 2)}
		if p, ok := s.byID[r.ParentID]; ok {
			n.up = int32(p)
		}
		s.nodes[k], s.byID[r.ID] = n, k
		if r.Type == TypeLabel || r.Type == TypeSessionInfo {
			meta = append(meta, k)
		}
	}
	entries, _, err := s.loadAll(meta, true)
	if err != nil {
		return nil, fmt.Errorf("open session %s: %w", h.ID, err)
	}
	for _, e := range entries {
		s.noteEntry(e)
	}
	s.written, s.leaf = len(s.nodes), len(s.nodes)-1
	if err := s.checkContext(); err != nil {
		return nil, fmt.Errorf("open session %s: %w", h.ID, err)
	}
	return s, nil
}

// CopyTo copies every readable entry of s into a new session of cwd that b keeps, naming s as
// its parent (pi's --fork), in one batch: a store writes it in one transaction.
func (s *Session) CopyTo(b Backend, cwd string) (*Session, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	idx := make([]int, 0, len(s.nodes))
	for i := range s.nodes {
		if !s.nodes[i].dropped() {
			idx = append(idx, i)
		}
	}
	entries, kept, err := s.loadAll(idx, false)
	if err != nil {
		return nil, fmt.Errorf("fork %s: %w", s.path, err)
	}
	ns := NewLogged(b, cwd, s.path)
	for k, e := range entries {
		c := *e
		c.ParentID = s.parentID(kept[k])
		ns.addEntry(&c)
	}
	if err := ns.flushLocked(); err != nil {
		return nil, fmt.Errorf("fork %s: %w", s.path, err)
	}
	ns.warnings = append(ns.warnings, s.warnings...)
	return ns, nil
}

// ReadLines reads the session file at path for copying it into a store: it calls start with
// the header and its line, then each with every readable entry and the line to keep, which is
// the line as written unless its parent had to be repaired or the file was migrated from an
// older version (then it is encoded anew). It takes no lock. It returns what was skipped or
// repaired.
func ReadLines(ctx context.Context, path string, start func(h Header, line []byte) error,
	each func(e *Entry, line []byte) error) ([]Warning, error) {
	s, migrated, f, err := readForCopy(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("read session: %w", err)
	}
	defer f.Close()
	headerLine, err := s.headerLine(migrated)
	if err == nil {
		err = start(s.header, headerLine)
	}
	if err == nil {
		err = s.eachLine(ctx, each)
	}
	if err != nil {
		return nil, fmt.Errorf("read session %s: %w", path, err)
	}
	sortWarnings(s.warnings)
	return s.warnings, nil
}

// readForCopy opens and reads the session file at path for copying it elsewhere (a fork, a
// store's import, a read-only open): no lock is taken, and a file older than v3 is migrated
// in memory (migrated says so). s reads its entries from f, which the caller closes.
func readForCopy(ctx context.Context, path string) (s *Session, migrated bool, f *os.File, err error) {
	f, err = safefile.OpenFile(path, os.O_RDONLY)
	if err != nil {
		return nil, false, nil, err
	}
	sc, err := scanFile(ctx, f, scanOptions{})
	if err != nil {
		f.Close()
		return nil, false, nil, fmt.Errorf("%s: %w", path, err)
	}
	s, migrated = loaded(sc, path, f)
	return s, migrated, f, nil
}

func (s *Session) headerLine(migrated bool) ([]byte, error) {
	if !migrated {
		line, _, _, err := newLineReaderSize(io.NewSectionReader(s.rd, 0, 1<<62), 64<<10).next()
		return append([]byte(nil), line...), err
	}
	line, err := encodeLine(s.header)
	if err != nil {
		return nil, err
	}
	return line[:len(line)-1], nil
}

// eachLine calls each with every readable entry and the line a copy keeps: the line as written
// when the entry hangs from the parent it names, else (a repaired parent, a migrated file,
// whose entries have no line) the entry encoded anew with the parent it hangs from. It decodes
// a chunk of entries at a time: bounded memory, all cores.
func (s *Session) eachLine(ctx context.Context, each func(e *Entry, line []byte) error) error {
	const chunk = 256
	for from := 0; from < len(s.nodes); from += chunk {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := s.eachLineOf(from, min(from+chunk, len(s.nodes)), each); err != nil {
			return err
		}
	}
	return nil
}

func (s *Session) eachLineOf(from, to int, each func(e *Entry, line []byte) error) error {
	idx := make([]int, 0, to-from)
	for i := from; i < to; i++ {
		idx = append(idx, i)
	}
	entries, kept, err := s.loadAll(idx, false)
	if err != nil {
		return err
	}
	for k, e := range entries {
		i := kept[k]
		n := &s.nodes[i]
		c := *e
		c.ParentID = s.parentID(i)
		var line []byte
		if n.off < 0 || n.flags&relinked != 0 || int(n.up) != s.parentOf(i) {
			if line, err = encodeLine(&c); err != nil {
				return err
			}
			line = line[:len(line)-1]
		} else if line, err = s.readSpan(nil, n.off, n.size); err != nil {
			return err
		}
		if err := each(&c, line); err != nil {
			return err
		}
	}
	return nil
}

// LockFile takes the exclusive, non-blocking lock a writer of a session holds (ErrLocked when
// another process has it), for stores that keep one lock file per session.
func LockFile(f *os.File) (unlock func() error, err error) { return lockFile(f) }

// ParseHeader reads a session's header line, as every reader of session files does.
func ParseHeader(line []byte) (Header, error) { return parseHeader(line) }

// OpenReadOnly reads the session file at path without taking its lock, for copying it (a
// fork into a store): appends are kept in memory only. Close releases the file.
func OpenReadOnly(ctx context.Context, path string) (*Session, error) {
	s, _, f, err := readForCopy(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("read session: %w", err)
	}
	s.f, s.persist, s.written = f, false, len(s.nodes)
	if err := s.checkContext(); err != nil {
		f.Close()
		return nil, fmt.Errorf("read session %s: %w", path, err)
	}
	return s, nil
}

// FileName is pi's name for a session file: <timestamp>_<id>.jsonl.
func FileName(timestamp, id string) string { return fileName(timestamp, id) }

// NewBeside starts a session kept where s is kept: in s's store, or in the folder of s's
// file (pi's new_session, a subagent's child). Nothing is stored before its first reply.
func NewBeside(s *Session, cwd, parent string) *Session {
	if s.backend != nil {
		return NewLogged(s.backend, cwd, parent)
	}
	return CreateChild(filepath.Dir(s.path), cwd, parent)
}
