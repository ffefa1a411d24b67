package main

// tree.go moves the conversation to another point of the session tree (pi's /tree): the
// operation every front end shares, the entries get_tree sends, and the picker's text
// rendering of the tree.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"pi/provider"
	"pi/session"
	"pi/tools"
)

// navigateTree moves the leaf to targetID, as pi's navigateTree does. A user message or a
// custom message is not kept: the leaf goes to its parent and its text is returned, so that a
// front end can put it in the editor to be changed and sent again. Any other entry becomes the
// leaf. With summarize, what the move leaves behind is summarised by the model (focus adds
// instructions) and recorded as a branch_summary at the new leaf; when nothing is left behind
// the move is a plain one. The agent's transcript becomes the context at the new leaf. A run
// in progress is stopped first, as for the other session operations.
func (h *harness) NavigateTree(ctx context.Context, targetID string, summarize bool, focus string) (string, error) {
	h.work.stop(workRun)
	ctx, end, err := h.work.begin(ctx, workBranchSummary)
	if err != nil {
		return "", fmt.Errorf("tree: %w", err)
	}
	defer h.shell.release(end)
	sess := h.rec.session()
	target, err := sess.Entry(targetID)
	if err != nil {
		return "", fmt.Errorf("tree: %w", err)
	}
	oldLeaf := sess.Leaf()
	if targetID == oldLeaf {
		return "", nil // already there: nothing is left behind and nothing to edit
	}
	newLeaf, text := treeLandingPoint(&target)
	if err := h.moveLeaf(ctx, oldLeaf, targetID, newLeaf, summarize, focus); err != nil {
		return "", err
	}
	restored, err := sess.Context()
	if err != nil {
		return "", fmt.Errorf("tree: rebuilding the conversation at %q: %w", targetID, err)
	}
	h.agent.ReplaceMessages(restored.Messages)
	return text, nil
}

// treeLandingPoint is where the leaf goes for a target, and the text to edit, if any.
func treeLandingPoint(e *session.Entry) (leaf, text string) {
	switch {
	case e.Type == session.TypeMessage && e.Message != nil && e.Message.Role == provider.RoleUser:
		return e.ParentID, withoutContextBlock(e.Message.TextContent()) // as /fork offers it
	case e.Type == session.TypeCustomMessage:
		m := provider.Message{Content: e.Content}
		return e.ParentID, m.TextContent()
	}
	return e.ID, ""
}

// moveLeaf moves the leaf to newLeaf ("" for before the first entry), with a branch summary
// of what the move from oldLeaf towards targetID leaves behind when asked. A failed summary
// leaves the leaf where it was.
func (h *harness) moveLeaf(ctx context.Context, oldLeaf, targetID, newLeaf string, summarize bool, focus string) error {
	sess := h.rec.session()
	if summarize {
		st := h.agent.State()
		c := &session.Compactor{Provider: h.agent.Provider(), Model: st.Model,
			Settings: h.settings.compactionSettings(), Thinking: st.Thinking}
		summary, details, err := c.SummarizeBranch(ctx, sess, oldLeaf, targetID, focus)
		switch {
		case errors.Is(err, session.ErrNothingToSummarize):
		case err != nil && ctx.Err() != nil:
			return fmt.Errorf("tree: the branch summary was cancelled: %w", ctx.Err())
		case err != nil:
			return fmt.Errorf("tree: moving to %q: %w", targetID, err)
		default:
			if _, err := sess.BranchWithSummary(newLeaf, summary, details, false); err != nil {
				return fmt.Errorf("tree: recording the branch summary at %q: %w", newLeaf, err)
			}
			return nil
		}
	}
	if newLeaf == "" {
		sess.ResetLeaf()
		return nil
	}
	if err := sess.Branch(newLeaf); err != nil {
		return fmt.Errorf("tree: %w", err)
	}
	return nil
}

// leavesConversation reports whether moving to targetID would leave messages behind: only
// then is a branch summary worth offering.
func leavesConversation(sess *session.Session, targetID string) bool {
	left, err := sess.AbandonedEntries(sess.Leaf(), targetID)
	return err == nil && len(session.PrepareBranch(left, 0).Messages) > 0
}

// treeEntry is one entry of the session tree as get_tree sends it and the picker shows it.
type treeEntry struct {
	ID       string  `json:"id"`
	ParentID *string `json:"parentId"` // null for a root, as in the session file
	Type     string  `json:"type"`
	Role     string  `json:"role,omitempty"` // message entries
	Preview  string  `json:"preview"`
	Label    string  `json:"label,omitempty"`
}

// treePreviewRunes is how much of an entry's text a row shows.
const treePreviewRunes = 72

// treeEntries lists every entry of the session in file order.
func treeEntries(sess *session.Session) ([]treeEntry, error) {
	entries, err := sess.Entries()
	if err != nil {
		return nil, fmt.Errorf("tree of session %s: %w", sess.ID(), err)
	}
	out := make([]treeEntry, len(entries))
	for i := range entries {
		e := &entries[i]
		out[i] = treeEntry{ID: e.ID, Type: string(e.Type), Preview: tools.OneLine(treePreview(e), treePreviewRunes),
			Label: sess.Label(e.ID)}
		if e.ParentID != "" {
			out[i].ParentID = &e.ParentID
		}
		if e.Type == session.TypeMessage && e.Message != nil {
			out[i].Role = string(e.Message.Role)
		}
	}
	return out, nil
}

// treePreview is a short description of an entry for a row of the tree.
func treePreview(e *session.Entry) string {
	switch e.Type {
	case session.TypeMessage:
		if e.Message != nil {
			return messagePreview(e.Message)
		}
	case session.TypeCustomMessage:
		m := provider.Message{Content: e.Content}
		return "[" + e.CustomType + "] " + m.TextContent()
	case session.TypeBranchSummary:
		return "summary of a branch left: " + summaryGist(e.Summary)
	case session.TypeCompaction:
		return fmt.Sprintf("compacted %d tokens: %s", e.TokensBefore, summaryGist(e.Summary))
	case session.TypeModelChange:
		return e.Provider + "/" + e.ModelID
	case session.TypeThinking:
		return e.ThinkingLevel
	case session.TypeCustom:
		return e.CustomType
	case session.TypeLabel:
		if e.Label != nil {
			return *e.Label
		}
	case session.TypeSessionInfo:
		if e.Name != nil {
			return *e.Name
		}
	}
	return ""
}

func messagePreview(m *provider.Message) string {
	switch m.Role {
	case provider.RoleUser:
		return shownUserText(m)
	case provider.RoleAssistant:
		if t := strings.TrimSpace(m.TextContent()); t != "" {
			return t
		}
		var calls []string
		for _, c := range m.ToolCalls() {
			calls = append(calls, c.Name)
		}
		if len(calls) > 0 {
			return "→ " + strings.Join(calls, ", ")
		}
		if m.ErrorMessage != "" {
			return "error: " + m.ErrorMessage
		}
	case provider.RoleToolResult:
		return m.ToolName + ": " + strings.TrimSpace(m.TextContent())
	case session.RoleBashExecution:
		return "$ " + extraText(m, "command")
	}
	return strings.TrimSpace(m.TextContent())
}

// summaryGist skips the headings of a structured summary to its first line of content.
func summaryGist(s string) string {
	for line := range strings.SplitSeq(s, "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			return line
		}
	}
	return ""
}

func extraText(m *provider.Message, key string) string {
	var s string
	if raw, ok := m.Extra[key]; ok {
		_ = json.Unmarshal(raw, &s)
	}
	return s
}

// treeRow is one line of the picker and the entry it stands for.
type treeRow struct {
	ID      string
	Text    string
	Current bool // the leaf, or its nearest shown ancestor when the leaf is hidden
}

// treeShown tells which entries the picker shows: the conversation, not the bookkeeping
// (labels, settings changes, script state, the session name). The children of a hidden entry
// are shown under its nearest shown ancestor.
func treeShown(e *treeEntry) bool {
	switch session.Type(e.Type) {
	case session.TypeLabel, session.TypeCustom, session.TypeSessionInfo, session.TypeModelChange, session.TypeThinking:
		return false
	}
	return true
}

// treeRows lays the tree out for the picker, depth first in file order. A chain of single
// children stays in one column; where the conversation branches, each branch is drawn under a
// ├─ or └─ connector, one level deeper. The current leaf's row (or its nearest shown
// ancestor's) is marked with ●, and labels are shown in brackets.
func treeRows(entries []treeEntry, leaf string) []treeRow {
	l := newTreeLayout(entries)
	mark := l.shownAncestor(leaf, true)
	var rows []treeRow
	var walk func(id, lead, cont string)
	branch := func(kids []string, cont string) {
		for i, k := range kids {
			if i == len(kids)-1 {
				walk(k, cont+"└─ ", cont+"   ")
			} else {
				walk(k, cont+"├─ ", cont+"│  ")
			}
		}
	}
	walk = func(id, lead, cont string) {
		for { // iterate along a chain: a long session must not recurse once per entry
			rows = append(rows, treeRow{ID: id, Text: lead + treeRowText(&entries[l.index[id]], id == mark), Current: id == mark})
			kids := l.children[id]
			if len(kids) != 1 {
				branch(kids, cont)
				return
			}
			id, lead = kids[0], cont
		}
	}
	if roots := l.children[""]; len(roots) == 1 {
		walk(roots[0], "", "")
	} else {
		branch(roots, "")
	}
	return rows
}

// treeLayout indexes the entries: position by id, and the shown children of each shown
// entry ("" holds the roots).
type treeLayout struct {
	entries  []treeEntry
	index    map[string]int
	children map[string][]string
}

func newTreeLayout(entries []treeEntry) *treeLayout {
	l := &treeLayout{entries: entries, index: make(map[string]int, len(entries)), children: map[string][]string{}}
	for i := range entries {
		l.index[entries[i].ID] = i
	}
	for i := range entries {
		if treeShown(&entries[i]) {
			p := l.shownAncestor(entries[i].ID, false)
			l.children[p] = append(l.children[p], entries[i].ID)
		}
	}
	return l
}

// shownAncestor is the nearest shown entry above id (at id itself too, with self), "" when
// there is none. The walk is bounded, so a parent cycle in a damaged file cannot trap it.
func (l *treeLayout) shownAncestor(id string, self bool) string {
	for range len(l.entries) + 1 {
		i, ok := l.index[id]
		if !ok {
			return ""
		}
		if self && treeShown(&l.entries[i]) {
			return id
		}
		self = true
		if p := l.entries[i].ParentID; p != nil && *p != id {
			id = *p
		} else {
			return ""
		}
	}
	return ""
}

func treeRowText(e *treeEntry, current bool) string {
	var b strings.Builder
	if current {
		b.WriteString("● ")
	}
	if e.Label != "" {
		b.WriteString("[" + e.Label + "] ")
	}
	kind := e.Role
	switch {
	case kind == string(provider.RoleToolResult):
		kind = "tool result"
	case kind == string(session.RoleBashExecution):
		kind = "shell"
	case kind == "":
		kind = strings.ReplaceAll(e.Type, "_", " ")
	}
	b.WriteString(kind + ": " + e.Preview)
	return b.String()
}
