package session

import (
	"fmt"
	"path/filepath"
	"time"

	"pi/provider"
)

// Context builds the context at the current leaf (empty after ResetLeaf).
func (s *Session) Context() (Context, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.leaf < 0 {
		return Context{Thinking: "off"}, nil
	}
	return s.contextAt(s.leaf)
}

// BuildContext builds the context at leafID; an empty or unknown id means the last entry, as in
// pi. Only the entries the context needs are read from the file, and they are kept.
func (s *Session) BuildContext(leafID string) (Context, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	i, ok := s.find(leafID)
	if !ok {
		i = len(s.nodes) - 1 // a dropped last node stands for its parent
	}
	if i < 0 {
		return Context{Thinking: "off"}, nil
	}
	return s.contextAt(i)
}

func (s *Session) contextAt(leaf int) (Context, error) {
	path, err := s.activePathLocked(leaf)
	if err != nil {
		return Context{}, err
	}
	return contextFromPath(path), nil
}

// activePathLocked loads the entries of the path to leaf that a context needs (see
// neededOnPath), root first, and keeps them in the index. An entry that turns out unreadable
// is dropped, which changes the path (and perhaps which compaction is the latest), so the
// walk is repeated until every entry it needs was read.
func (s *Session) activePathLocked(leaf int) ([]*Entry, error) {
	for {
		before := s.ndropped
		idx := s.pathIndices(leaf)
		need, err := s.neededOnPath(idx)
		if err != nil {
			return nil, err
		}
		var want []int
		for k, i := range idx {
			if need != nil && need[k] {
				want = append(want, i)
			}
		}
		path, _, err := s.loadAll(want, true)
		if err != nil || s.ndropped == before {
			return path, err
		}
	}
}

// neededOnPath marks the path positions contextFromPath needs: everything from the latest
// compaction's first kept entry on (everything if there is no compaction), and the latest
// thinking-level and model entries before that. It returns nil if it had to drop an entry.
func (s *Session) neededOnPath(idx []int) ([]bool, error) {
	need := make([]bool, len(idx))
	start := 0
	for k := len(idx) - 1; k >= 0; k-- {
		if s.nodes[idx[k]].typ != TypeCompaction {
			continue
		}
		cp, err := s.load(idx[k], true)
		if err != nil || cp == nil {
			return nil, err
		}
		start = k
		for j := 0; j < k; j++ {
			if s.nodes[idx[j]].id == cp.FirstKeptEntryID {
				start = j
				break
			}
		}
		break
	}
	for k := start; k < len(idx); k++ {
		need[k] = true
	}
	thinking, model := false, false
	for k := start - 1; k >= 0 && !(thinking && model); k-- {
		n := &s.nodes[idx[k]]
		switch {
		case n.typ == TypeThinking && !thinking:
			need[k], thinking = true, true
		case !model && (n.typ == TypeModelChange || n.typ == TypeMessage && s.isAssistant(idx[k])):
			need[k], model = true, true
		}
	}
	return need, nil
}

// isAssistant tells whether a message node is an assistant message, reading it when the index
// did not catch the role.
func (s *Session) isAssistant(i int) bool {
	n := &s.nodes[i]
	if n.role != "" {
		return n.role == string(provider.RoleAssistant)
	}
	e, err := s.load(i, false)
	return err == nil && e != nil && e.Message != nil && e.Message.Role == provider.RoleAssistant
}

// Branch moves the leaf to id: the next append becomes a new child of id, starting a branch
// beside whatever followed it. Nothing is written.
func (s *Session) Branch(id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	i, ok := s.find(id)
	if !ok {
		return fmt.Errorf("branch: entry %q not found", id)
	}
	s.leaf = i
	return nil
}

// ResetLeaf moves the leaf before the first entry: the next append starts a new root (used to
// re-edit the first prompt).
func (s *Session) ResetLeaf() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.leaf = -1
}

// BranchWithSummary moves the leaf to id ("" for the root) and appends a branch_summary there
// recording what happened on the path the user left. details may be nil.
func (s *Session) BranchWithSummary(id, summary string, details any, fromHook bool) (string, error) {
	raw, err := rawJSON(details)
	if err != nil {
		return "", fmt.Errorf("branch summary details: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.find(id); id != "" && !ok {
		return "", fmt.Errorf("branch: entry %q not found", id)
	}
	from := id
	if from == "" {
		from = "root"
	}
	e := &Entry{Type: TypeBranchSummary, FromID: from, Summary: summary, Details: raw}
	if fromHook {
		e.FromHook = &fromHook
	}
	return s.appendLocked(e, id)
}

// Children returns the ids of the entries whose parent is id ("" for the roots), in file order.
func (s *Session) Children(id string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for i := range s.nodes {
		if !s.nodes[i].dropped() && s.parentID(i) == id {
			out = append(out, s.nodes[i].id)
		}
	}
	return out
}

// ForkAt starts a new session holding the path from the root to id, with a header naming this
// session's file as its parent (pi's /fork and, at the leaf, /clone). Labels of entries on the
// path are carried over as fresh label entries at the end. The new file is written at once if
// the path holds an assistant message, else with its first one. The receiver is not changed.
func (s *Session) ForkAt(id string) (*Session, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	i, ok := s.find(id)
	if !ok {
		return nil, fmt.Errorf("fork: entry %q not found", id)
	}
	var idx []int
	for _, j := range s.pathIndices(i) {
		if s.nodes[j].typ != TypeLabel { // labels are re-created at the end of the copy
			idx = append(idx, j)
		}
	}
	path, _, err := s.loadAll(idx, false)
	if err != nil {
		return nil, err
	}
	return s.newFrom(path)
}

// Clone is ForkAt the current leaf.
func (s *Session) Clone() (*Session, error) {
	leaf := s.Leaf()
	if leaf == "" {
		return nil, fmt.Errorf("clone: session %s has no entries", s.ID())
	}
	return s.ForkAt(leaf)
}

func (s *Session) newFrom(path []*Entry) (*Session, error) {
	now := time.Now()
	h := newHeader(now, s.header.Cwd, s.path)
	var ns *Session
	if s.backend != nil {
		ns = newSession(h, s.backend.Path(h.ID), true)
		ns.backend = s.backend
	} else if s.persist {
		ns = newSession(h, sibling(s.path, fileName(h.Timestamp, h.ID)), true)
	} else {
		ns = newSession(h, "", false)
	}
	for _, e := range path {
		// The path is a chain: each entry hangs from the one before it in the copy, also where
		// a label (not copied) or a repaired link stood between them in the original.
		c := *e
		c.ParentID = ns.leafID()
		ns.addEntry(&c)
	}
	for _, e := range path {
		if label := s.labels[e.ID]; label != "" {
			l := label
			ns.addEntry(&Entry{Type: TypeLabel, ID: newEntryID(ns.taken), ParentID: ns.leafID(),
				Timestamp: isoTime(now), TargetID: e.ID, Label: &l})
		}
	}
	if err := ns.flushLocked(); err != nil {
		return nil, err
	}
	return ns, nil
}

// addEntry indexes e under the parent it names (a root if that is not an entry here) and
// moves the leaf to it.
func (s *Session) addEntry(e *Entry) {
	n := nodeFor(e)
	if i, ok := s.find(e.ParentID); ok {
		n.up = int32(i)
	}
	s.addNode(n)
}

// Tree returns every entry as a forest in file order: roots are entries without a (known)
// parent. Entries off the active path are read from the file for this and not kept.
func (s *Session) Tree() ([]*TreeNode, error) {
	entries, err := s.Entries()
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	labels := make(map[string]string, len(s.labels))
	for k, v := range s.labels {
		labels[k] = v
	}
	s.mu.Unlock()
	nodes := make(map[string]*TreeNode, len(entries))
	for _, e := range entries {
		nodes[e.ID] = &TreeNode{Entry: e, Label: labels[e.ID]}
	}
	var roots []*TreeNode
	for _, e := range entries {
		if p, ok := nodes[e.ParentID]; ok && e.ParentID != e.ID {
			p.Children = append(p.Children, nodes[e.ID])
		} else {
			roots = append(roots, nodes[e.ID])
		}
	}
	return roots, nil
}

// Node is what the index knows of an entry without reading its payload.
type Node struct {
	ID       string
	ParentID string
	Type     Type
	Role     string // message entries: the message role when the index caught it, else ""
	Label    string
}

// Nodes returns the index in file order, without reading the file: enough to draw the shape
// of the tree of a long session and then fetch the visible rows with Entry.
func (s *Session) Nodes() []Node {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Node, 0, len(s.nodes)-s.ndropped)
	for i := range s.nodes {
		if n := &s.nodes[i]; !n.dropped() {
			out = append(out, Node{ID: n.id, ParentID: s.parentID(i), Type: n.typ, Role: n.role, Label: s.labels[n.id]})
		}
	}
	return out
}

// TreeNode is an entry with its label and children, for the /tree view.
type TreeNode struct {
	Entry    Entry
	Label    string
	Children []*TreeNode
}

func sibling(path, name string) string { return filepath.Join(filepath.Dir(path), name) }

// LandingPoint is where pi's /tree puts the leaf for a chosen entry, and the text to offer
// for editing: a user message (without its context block, as /fork offers it) or a custom
// message is not kept, the leaf goes to its parent and its text is returned; any other entry
// becomes the leaf.
func LandingPoint(e *Entry) (leaf, text string) {
	switch {
	case e.Type == TypeMessage && e.Message != nil && e.Message.Role == provider.RoleUser:
		return e.ParentID, EditableText(e.Message)
	case e.Type == TypeCustomMessage:
		m := provider.Message{Content: e.Content}
		return e.ParentID, m.TextContent()
	}
	return e.ID, ""
}
