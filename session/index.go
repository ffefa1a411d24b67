package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// What a line must be to become an entry, and where it hangs in the tree.
//
// A line is an entry when it is one JSON object in valid UTF-8 (checkLine) with a non-empty
// string "type" other than "session", a non-empty string "id" that no earlier entry has, and a
// "parentId" that is null, absent or a string. A top-level key written twice is read as
// JSON.parse reads it, the last one counting. Anything else is skipped with a warning.
//
// A parent must be an entry earlier in the file: pi only ever appends a child after its parent,
// so a parentId naming a skipped line, an unknown id, the entry itself or a later entry (how
// cycles arise) means the file is damaged there. Such an entry is attached instead to
//
//   - the skipped line's own parent, when the skipped line is the parent and its start still
//     names one (so a damaged entry drops out of its branch and its child takes its place);
//   - otherwise the nearest readable entry before it in the file (the entry pi's leaf was on
//     when it appended, unless the user had just moved in the tree), or the root if there is
//     none;
//
// with a warning. Parents therefore always precede children, and no walk up the tree can loop.
// The file is never rewritten for this: every load repeats the same repair.
//
// An entry whose payload turns out not to decode when it is first read (Open reads the
// context's entries at once, others are read when asked for) is left out the same way, with a
// warning: what hung from it hangs from its parent. The leaf of a file just loaded is its last
// readable entry; a leaf left out later moves to its parent.

// meta is what the index reads of an entry without parsing its payload.
type meta struct {
	typ    Type
	id     string
	parent string
	role   string // message entries: the message role, when the fast path saw it
}

// lineResult is what checking one line on its own found; the rules that depend on earlier
// lines (ids, links) are applied to it in file order.
type lineResult struct {
	n      node
	m      meta // as indexed, or what could be read of a line that is not an entry
	metaOK bool
	err    error // why the line is not an entry
	blank  bool
}

// classify checks a line and builds its node. It depends on nothing but the line, so lines
// are classified on all cores.
func (sc *scanned) classify(line []byte, off int64) lineResult {
	var r lineResult
	if len(bytes.TrimSpace(line)) == 0 {
		r.blank = true
		return r
	}
	r.n, r.m, r.err = sc.index(line, off)
	r.metaOK = r.err == nil
	if r.err != nil {
		r.m, r.metaOK = sc.salvageMeta(line)
	}
	return r
}

// index checks a line and builds its node and meta.
func (sc *scanned) index(line []byte, off int64) (node, meta, error) {
	shape, err := checkLine(line)
	if err != nil {
		return node{}, meta{}, err
	}
	if !shape.object {
		return node{}, meta{}, errors.New("not a session entry (not a JSON object)")
	}
	if sc.full {
		return sc.indexFull(line)
	}
	m, err := scanMeta(line, shape.repeatKey || sc.slowMeta)
	if err != nil {
		return node{}, meta{}, err
	}
	n := node{typ: m.typ, id: m.id, role: m.role, off: off, size: len(line)}
	if m.typ == TypeLabel || m.typ == TypeSessionInfo {
		e := new(Entry)
		if err := e.UnmarshalJSON(line); err != nil {
			return node{}, m, err
		}
		n.entry = e
	}
	return n, m, nil
}

// indexFull parses an entry of a file older than v3 completely (it will be migrated).
func (sc *scanned) indexFull(line []byte) (node, meta, error) {
	e := new(Entry)
	if err := e.UnmarshalJSON(line); err != nil {
		return node{}, meta{}, err
	}
	n := nodeFor(e)
	if sc.v1 {
		return n, meta{typ: e.Type}, nil // v1 entries have no ids; migration chains them
	}
	return n, meta{typ: e.Type, id: e.ID, parent: e.ParentID, role: n.role}, nil
}

// checkID applies the rules that depend on the entries before the line.
func (sc *scanned) checkID(m meta) error {
	if m.typ == TypeSession {
		return errors.New("not an entry: a second session header")
	}
	if m.id == "" {
		return errors.New(`not a session entry (no "id")`)
	}
	if first, dup := sc.byID[m.id]; dup {
		return fmt.Errorf("entry id %s is already used by line %d", m.id, sc.nodes[first].line)
	}
	return nil
}

// link sets n's parent by the rules above, with a warning when it had to be repaired.
func (sc *scanned) link(n *node, parent string, line int, off int64) {
	n.up = -1
	if sc.v1 || parent == "" {
		return
	}
	up, why := sc.resolve(parent)
	n.up = int32(up)
	if why != "" {
		n.flags |= relinked
		sc.warn(line, off, why)
	}
}

// resolve finds the node a parentId stands for, and says why when it is not that entry.
func (sc *scanned) resolve(parent string) (int, string) {
	if j, ok := sc.byID[parent]; ok {
		return j, ""
	}
	if st, ok := sc.skipped[parent]; ok {
		if st.up < 0 {
			return -1, fmt.Sprintf("parent %s was skipped (line %d); made a root, as that line was", parent, st.line)
		}
		return st.up, fmt.Sprintf("parent %s was skipped (line %d); attached to %s, %s",
			parent, st.line, sc.describe(st.up), st.how)
	}
	before := len(sc.nodes) - 1
	if before < 0 {
		return -1, fmt.Sprintf("parent %s is not an earlier entry; made a root, since no entry is before it", parent)
	}
	return before, fmt.Sprintf("parent %s is not an earlier entry; attached to %s, the entry before it",
		parent, sc.describe(before))
}

func (sc *scanned) describe(i int) string {
	return fmt.Sprintf("%s (line %d)", sc.nodes[i].id, sc.nodes[i].line)
}

// standInFor remembers where the children of a skipped line attach (its own parent), given
// the line's id and parentId (m): a damaged line usually keeps its start, where pi writes
// them. When they could not be read, its children fall back on the entry before them.
func (sc *scanned) standInFor(m meta, lineNo int) {
	if _, taken := sc.byID[m.id]; taken || m.id == "" || m.typ == TypeSession || sc.v1 {
		return // a repeated id stays the first entry's
	}
	st := standIn{up: -1, line: lineNo, how: "that line's parent"}
	if m.parent != "" {
		var why string
		if st.up, why = sc.resolve(m.parent); why != "" {
			st.how = "where that line would have been attached"
		}
	}
	sc.skipped[m.id] = st
}

// salvageMeta reads what it can of a skipped line's meta: a valid line as the index reads
// it, a damaged one from its start.
func (sc *scanned) salvageMeta(line []byte) (meta, bool) {
	if shape, err := checkLine(line); err == nil && shape.object {
		m, err := scanMeta(line, shape.repeatKey || sc.slowMeta)
		return m, err == nil
	}
	return fastMetaPrefix(line)
}

// scanMeta reads type, id, parentId (and a message's role) from a line checkLine accepted.
// pi writes those fields first for most entry types, so a byte scan of the line's start finds
// them without decoding a payload that may be megabytes of tool output; a line that repeats a
// top-level key, or is laid out otherwise, goes through encoding/json.
func scanMeta(line []byte, slow bool) (meta, error) {
	if !slow {
		if m, ok := fastMetaPrefix(line); ok {
			return m, nil
		}
	}
	return slowMeta(line)
}

func slowMeta(line []byte) (meta, error) {
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
	if m.typ == "" {
		return meta{}, errors.New(`not a session entry (no "type")`)
	}
	var msg map[string]json.RawMessage
	if m.typ == TypeMessage && decode(f, "message", &msg) == nil {
		_ = decode(msg, "role", &m.role)
	}
	return m, nil
}

// fastMetaPrefix reads `{"type":"…","id":"…","parentId":null|"…"` from the line's start. It
// trusts the rest of the line (checkLine has checked it, or the line is being salvaged).
func fastMetaPrefix(line []byte) (meta, bool) {
	var m meta
	rest, ok := bytes.CutPrefix(line, []byte(`{"type":"`))
	var typ, parent string
	if typ, rest, ok = cutString(rest, ok); !ok || typ == "" || typ == string(TypeCustom) || typ == string(TypeCustomMessage) {
		return m, false
	}
	m.typ = internType(typ)
	rest, ok = bytes.CutPrefix(rest, []byte(`,"id":"`))
	if m.id, rest, ok = cutString(rest, ok); !ok || m.id == "" {
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
	return m, true
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
