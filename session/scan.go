package session

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
)

// ErrNotSession says a file is not a pi session file.
var ErrNotSession = errors.New("not a pi session file")

// ErrNewerVersion says a session file was written by a newer pi in a format we do not know.
var ErrNewerVersion = errors.New("session file is from a newer pi")

// ErrLocked says another process has the session open for writing.
var ErrLocked = errors.New("session is in use by another pi process")

// LockedError is ErrLocked for one file, so that a caller can tell which session is in use
// (and, say, whether pi serve holds it).
type LockedError struct {
	Path   string
	Detail string // what the user can do, where there is something
}

func (e *LockedError) Error() string { return e.Path + e.Detail + ": " + ErrLocked.Error() }
func (e *LockedError) Unwrap() error { return ErrLocked }

// Warning describes a line that loading skipped or repaired. Loading never prints; callers
// show these.
type Warning struct {
	Line   int   // 1-based line number in the file
	Offset int64 // byte offset of the line
	Reason string
	File   string // another file, passed over (pi -c), when the warning is not of a line
}

func (w Warning) String() string {
	if w.File != "" {
		return w.File + ": " + w.Reason
	}
	return fmt.Sprintf("line %d (byte %d): %s", w.Line, w.Offset, w.Reason)
}

// lineReader yields the lines of a session file with their offsets. Lines may be far longer
// than any buffer (base64 images), so they are assembled in a reusable slice.
type lineReader struct {
	br   *bufio.Reader
	buf  []byte
	off  int64 // offset of the next line
	line int
}

func newLineReader(r io.Reader) *lineReader { return newLineReaderSize(r, 1<<20) }

func newLineReaderSize(r io.Reader, size int) *lineReader {
	return &lineReader{br: bufio.NewReaderSize(r, size)}
}

// next returns the line without its newline, its offset, and whether a newline ended it.
// It returns io.EOF when nothing is left. The line is valid until the next call.
func (lr *lineReader) next() (line []byte, off int64, complete bool, err error) {
	lr.buf = lr.buf[:0]
	for first := true; ; first = false {
		chunk, err := lr.br.ReadSlice('\n')
		if first && err != bufio.ErrBufferFull {
			lr.buf = chunk // the whole line is in the reader's buffer: no copy
		} else {
			lr.buf = append(lr.buf, chunk...)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		off = lr.off
		lr.off += int64(len(lr.buf))
		if err == io.EOF && len(lr.buf) == 0 {
			return nil, off, false, io.EOF
		}
		if err != nil && err != io.EOF {
			return nil, off, false, err
		}
		lr.line++
		if n := len(lr.buf); n > 0 && lr.buf[n-1] == '\n' {
			return lr.buf[:n-1], off, true, nil
		}
		return lr.buf, off, false, nil
	}
}

// parseHeader reads a header line. Every reader of headers (Open, List, FindNewest) goes
// through it, so they agree on which files are sessions.
func parseHeader(line []byte) (Header, error) {
	var h Header
	if _, err := checkLine(line); err != nil {
		return h, fmt.Errorf("%w: the first line is not JSON: %v", ErrNotSession, err)
	}
	if err := h.UnmarshalJSON(line); err != nil {
		return h, fmt.Errorf("%w: %v", ErrNotSession, err)
	}
	return h, nil
}

// scanned is the result of reading a whole file: header, index and problems.
type scanned struct {
	header   Header
	nodes    []node
	byID     map[string]int     // the readable entries' ids
	skipped  map[string]standIn // ids read from skipped lines
	unknown  map[Type]*unknownType
	warnings []Warning
	end      int64 // offset just past the last whole line
	tornAt   int64 // offset of a torn last line, or -1
	needNL   bool  // the last line is whole but has no newline
	full     bool  // entries are parsed completely (files older than v3, to be migrated)
	v1       bool  // version 1: entries have no ids yet
	slowMeta bool  // scanOptions.reference
}

// standIn is where the children of a skipped line attach: the parent that line named.
type standIn struct {
	up   int // node index, -1 for the root
	line int
	how  string
}

type unknownType struct {
	line  int
	off   int64
	count int
}

// scanOptions say how lenient a scan is.
type scanOptions struct {
	newer     bool // index a file of a newer version as if it were ours (listing only)
	reference bool // read every line's meta with encoding/json: the fast path's reference, for tests
}

// scanFile reads a session file's header and indexes its entries. Labels and session names are
// parsed (they are small and the tree needs them); other payloads are left in the file.
// Files older than version 3 are parsed completely so that they can be migrated.
func scanFile(ctx context.Context, r io.Reader, opt scanOptions) (*scanned, error) {
	size := sizeOf(r)
	lr := newLineReaderSize(r, bufferFor(size, 1<<20))
	first, _, complete, err := lr.next()
	if err == io.EOF {
		return nil, fmt.Errorf("%w: the file is empty", ErrNotSession)
	}
	if err != nil {
		return nil, err
	}
	h, err := parseHeader(first)
	if err != nil {
		return nil, err
	}
	if h.Version > CurrentVersion && !opt.newer {
		// A newer pi may have changed what entries mean; appending v3 entries could corrupt it.
		return nil, fmt.Errorf("%w: format version %d is newer than this pi reads (%d)",
			ErrNewerVersion, h.Version, CurrentVersion)
	}
	sc := &scanned{header: h, tornAt: -1, byID: map[string]int{}, skipped: map[string]standIn{},
		unknown: map[Type]*unknownType{}, full: h.Version < CurrentVersion, v1: h.Version < 2, slowMeta: opt.reference}
	sc.end, sc.needNL = lr.off, !complete
	rest, _ := lr.br.Peek(lr.br.Buffered()) // read past the header already
	if err := sc.scanEntries(ctx, r, rest, lr.off, lr.line, size); err != nil {
		return nil, err
	}
	sc.finish()
	return sc, nil
}

// add applies one classified line in file order: the checks that depend on earlier lines,
// the link, and the warnings. end is the offset after the line.
func (sc *scanned) add(r *lineResult, l *lineRef, end int64) {
	if r.blank {
		sc.end = end
		return
	}
	err := r.err
	if err == nil && !sc.v1 {
		err = sc.checkID(r.m)
	}
	if err != nil {
		if !l.complete {
			sc.tornAt = l.off
			sc.warn(l.no, l.off, fmt.Sprintf("torn last line (%d bytes, cut short by a crash?) skipped: %v", l.end-l.start, err))
			return
		}
		sc.end = end
		sc.warn(l.no, l.off, fmt.Sprintf("skipped: %v", err))
		if r.metaOK {
			sc.standInFor(r.m, l.no)
		}
		return
	}
	n := r.n
	n.line = int32(l.no)
	sc.link(&n, r.m.parent, l.no, l.off)
	if !knownType(n.typ) {
		u := sc.unknown[n.typ]
		if u == nil {
			u = &unknownType{line: l.no, off: l.off}
			sc.unknown[n.typ] = u
		}
		u.count++
	}
	sc.end, sc.needNL = end, !l.complete
	if !sc.v1 {
		sc.byID[n.id] = len(sc.nodes)
	}
	sc.nodes = append(sc.nodes, n)
}

func (sc *scanned) warn(line int, off int64, reason string) {
	sc.warnings = append(sc.warnings, Warning{Line: line, Offset: off, Reason: reason})
}

// finish reports each unknown entry type once and puts the warnings in line order.
func (sc *scanned) finish() {
	for t, u := range sc.unknown {
		sc.warn(u.line, u.off, unknownTypeReason(t, u.count))
	}
	sort.SliceStable(sc.warnings, func(i, j int) bool { return sc.warnings[i].Line < sc.warnings[j].Line })
}

func unknownTypeReason(t Type, n int) string {
	if n == 1 {
		return fmt.Sprintf("entry type %q is not known to this pi; its entry is kept but not used", t)
	}
	return fmt.Sprintf("entry type %q is not known to this pi; its %d entries are kept but not used", t, n)
}

func knownType(t Type) bool {
	switch t {
	case TypeMessage, TypeModelChange, TypeThinking, TypeCompaction, TypeBranchSummary, TypeCustom,
		TypeCustomMessage, TypeLabel, TypeSessionInfo:
		return true
	}
	return false
}

// sizeOf is the size of what r reads when r can say (a file), else -1.
func sizeOf(r io.Reader) int64 {
	switch f := r.(type) {
	case interface{ Stat() (os.FileInfo, error) }:
		if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
			return st.Size()
		}
	case interface{ Size() int64 }:
		return f.Size()
	}
	return -1
}

// bufferFor is a buffer size for reading size bytes (-1: unknown), at most limit: a listing
// of many small files must not allocate a large file's buffers for each.
func bufferFor(size int64, limit int) int {
	if size < 0 || size >= int64(limit) {
		return limit
	}
	return max(int(size)+1, 4<<10)
}
