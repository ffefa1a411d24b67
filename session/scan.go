package session

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// ErrNotSession says a file is not a pi session file.
var ErrNotSession = errors.New("not a pi session file")

// ErrNewerVersion says a session file was written by a newer pi in a format we do not know.
var ErrNewerVersion = errors.New("session file is from a newer pi")

// ErrLocked says another process has the session open for writing.
var ErrLocked = errors.New("session is in use by another pi process")

// Warning describes a line that loading skipped. Loading never prints; callers show these.
type Warning struct {
	Line   int   // 1-based line number in the file
	Offset int64 // byte offset of the line
	Reason string
}

func (w Warning) String() string {
	return fmt.Sprintf("line %d (byte %d): %s", w.Line, w.Offset, w.Reason)
}

// meta is what the index keeps of an entry without parsing its payload.
type meta struct {
	typ    Type
	id     string
	parent string
	role   string // message entries: the message role, when the fast path saw it
}

// scanMeta reads type, id, parentId (and a message's role) from a line. pi writes those
// fields first for most entry types, so a byte scan of the line's start finds them without
// decoding a payload that may be megabytes of tool output; anything else goes through
// encoding/json.
func scanMeta(line []byte) (meta, error) {
	if m, ok := fastMeta(line); ok {
		return m, nil
	}
	// A map, not a struct: encoding/json matches struct fields case-insensitively, and the
	// entry decoder (which uses maps) must see the same fields as the index.
	var f map[string]json.RawMessage
	if err := json.Unmarshal(line, &f); err != nil {
		return meta{}, err
	}
	var m meta
	if err := decodeAll(f, map[string]any{"type": &m.typ, "id": &m.id, "parentId": &m.parent}); err != nil {
		return meta{}, err
	}
	if m.typ == "" || m.id == "" {
		return meta{}, errors.New(`not a session entry (no "type" or "id")`)
	}
	var msg map[string]json.RawMessage
	if decode(f, "message", &msg) == nil {
		_ = decode(msg, "role", &m.role)
	}
	return m, nil
}

func fastMeta(line []byte) (meta, bool) {
	var m meta
	rest, ok := bytes.CutPrefix(line, []byte(`{"type":"`))
	var typ, parent string
	if typ, rest, ok = cutString(rest, ok); !ok || typ == string(TypeCustom) || typ == string(TypeCustomMessage) {
		return m, false
	}
	m.typ = internType(typ)
	rest, ok = bytes.CutPrefix(rest, []byte(`,"id":"`))
	if m.id, rest, ok = cutString(rest, ok); !ok {
		return m, false
	}
	if rest, ok = bytes.CutPrefix(rest, []byte(`,"parentId":`)); !ok {
		return m, false
	}
	if after, isNull := bytes.CutPrefix(rest, []byte("null")); isNull {
		rest = after
	} else if rest, ok = bytes.CutPrefix(rest, []byte(`"`)); ok {
		if parent, rest, ok = cutString(rest, ok); !ok {
			return m, false
		}
		m.parent = parent
	} else {
		return m, false
	}
	if m.typ == TypeMessage {
		m.role = messageRole(rest)
	}
	// The fast path trusts the line's start; the end must still close the object, or the
	// line was torn.
	return m, len(line) > 0 && line[len(line)-1] == '}'
}

// cutString reads a plain ASCII JSON string body up to its closing quote.
func cutString(b []byte, ok bool) (string, []byte, bool) {
	if !ok {
		return "", b, false
	}
	i := bytes.IndexByte(b, '"')
	if i < 0 {
		return "", b, false
	}
	for _, c := range b[:i] {
		if c == '\\' || c < 0x20 || c >= 0x80 { // escapes, control bytes, non-ASCII: let encoding/json decide
			return "", b, false
		}
	}
	return string(b[:i]), b[i+1:], true
}

func messageRole(rest []byte) string {
	rest, ok := bytes.CutPrefix(rest, []byte(`,"timestamp":"`))
	_, rest, ok = cutString(rest, ok)
	rest, ok = bytes.CutPrefix(rest, []byte(`,"message":{"role":"`))
	role, _, ok := cutString(rest, ok)
	if !ok {
		return ""
	}
	switch role {
	case "user", "assistant", "toolResult", "custom", "bashExecution":
		return role
	}
	return ""
}

// internType avoids one allocation per entry for the known types.
func internType(s string) Type {
	for _, t := range []Type{TypeMessage, TypeModelChange, TypeThinking, TypeCompaction,
		TypeBranchSummary, TypeCustom, TypeCustomMessage, TypeLabel, TypeSessionInfo} {
		if string(t) == s {
			return t
		}
	}
	return Type(s)
}

// lineReader yields the lines of a session file with their offsets. Lines may be far longer
// than any buffer (base64 images), so they are assembled in a reusable slice.
type lineReader struct {
	br   *bufio.Reader
	buf  []byte
	off  int64 // offset of the next line
	line int
}

func newLineReader(r io.Reader) *lineReader {
	return &lineReader{br: bufio.NewReaderSize(r, 1<<20)}
}

// next returns the line without its newline, its offset, and whether a newline ended it.
// It returns io.EOF when nothing is left.
func (lr *lineReader) next() (line []byte, off int64, complete bool, err error) {
	lr.buf = lr.buf[:0]
	for {
		chunk, err := lr.br.ReadSlice('\n')
		lr.buf = append(lr.buf, chunk...)
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

// scanned is the result of reading a whole file: header, index and problems.
type scanned struct {
	header   Header
	nodes    []node
	warnings []Warning
	end      int64 // offset just past the last whole line
	tornAt   int64 // offset of a torn last line, or -1
	needNL   bool  // the last line is whole but has no newline
}

// scanFile reads a session file's header and indexes its entries. Labels and session names are
// parsed (they are small and the tree needs them); other payloads are left in the file.
// Files older than version 3 are parsed completely so that they can be migrated.
func scanFile(ctx context.Context, r io.Reader) (*scanned, error) {
	lr := newLineReader(r)
	first, _, complete, err := lr.next()
	if err == io.EOF {
		return nil, fmt.Errorf("%w: the file is empty", ErrNotSession)
	}
	if err != nil {
		return nil, err
	}
	sc := &scanned{tornAt: -1}
	if err := json.Unmarshal(first, &sc.header); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNotSession, err)
	}
	if sc.header.Version > CurrentVersion {
		// A newer pi may have changed what entries mean; appending v3 entries could corrupt it.
		return nil, fmt.Errorf("%w: format version %d is newer than this pi reads (%d)",
			ErrNewerVersion, sc.header.Version, CurrentVersion)
	}
	sc.end, sc.needNL = lr.off, !complete
	full := sc.header.Version < CurrentVersion
	for i := 0; ; i++ {
		if i%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		line, off, complete, err := lr.next()
		if err == io.EOF {
			return sc, nil
		}
		if err != nil {
			return nil, err
		}
		sc.add(line, off, complete, lr, full)
	}
}

func (sc *scanned) add(line []byte, off int64, complete bool, lr *lineReader, full bool) {
	if len(bytes.TrimSpace(line)) == 0 {
		sc.end = lr.off
		return
	}
	n, err := indexLine(line, off, full)
	if err != nil {
		if !complete {
			sc.tornAt = off
			sc.warnings = append(sc.warnings, Warning{Line: lr.line, Offset: off,
				Reason: fmt.Sprintf("torn last line (%d bytes, cut short by a crash?) skipped: %v", len(line), err)})
			return
		}
		sc.end = lr.off
		sc.warnings = append(sc.warnings, Warning{Line: lr.line, Offset: off,
			Reason: fmt.Sprintf("unreadable line skipped: %v", err)})
		return
	}
	sc.end, sc.needNL = lr.off, !complete
	sc.nodes = append(sc.nodes, n)
}

// indexLine builds the index node for one line. With full, or for the small entries the index
// needs, the entry is parsed and kept.
func indexLine(line []byte, off int64, full bool) (node, error) {
	if full {
		var e Entry
		if err := json.Unmarshal(line, &e); err != nil {
			return node{}, err
		}
		return nodeFor(&e), nil
	}
	m, err := scanMeta(line)
	if err != nil {
		return node{}, err
	}
	n := node{meta: m, off: off, size: len(line)}
	if m.typ == TypeLabel || m.typ == TypeSessionInfo {
		var e Entry
		if err := json.Unmarshal(line, &e); err != nil {
			return node{}, err
		}
		n.entry = &e
	} else if !balanced(line) {
		return node{}, errors.New("the JSON object is not closed")
	}
	return n, nil
}

// balanced reports whether line is one JSON object whose braces, brackets and strings all close
// exactly at its end. That is what a torn write breaks, and it costs a fraction of full
// validation (encoding/json's checker ran at 50 MB/s here; this skips string bodies with
// IndexByte). Any other damage inside a line is found when the entry is parsed.
func balanced(line []byte) bool {
	if len(line) < 2 || line[0] != '{' || line[len(line)-1] != '}' {
		return false
	}
	depth := 0
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 && i != len(line)-1 {
				return false
			}
		case '"':
			end := stringEnd(line, i+1)
			if end < 0 {
				return false
			}
			i = end
		}
	}
	return depth == 0
}

// stringEnd returns the index of the quote closing a string whose body starts at i, or -1.
func stringEnd(b []byte, i int) int {
	for {
		j := bytes.IndexByte(b[i:], '"')
		if j < 0 {
			return -1
		}
		q := i + j
		k := q - 1
		for k >= i && b[k] == '\\' {
			k--
		}
		if (q-1-k)%2 == 0 { // an even run of backslashes: the quote is not escaped
			return q
		}
		i = q + 1
	}
}
