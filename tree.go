package main

// tree.go moves the conversation to another point of the session tree (pi's /tree): the
// operation every front end shares, the picker's text rendering of the tree, the /tree command
// of the terminal UI and the get_tree / navigate_tree RPC commands.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"pi/provider"
	"pi/session"
	"pi/tui"
)

// navigateTree moves the leaf to targetID, as pi's navigateTree does. A user message or a
// custom message is not kept: the leaf goes to its parent and its text is returned, so that a
// front end can put it in the editor to be changed and sent again. Any other entry becomes the
// leaf. With summarize, what the move leaves behind is summarised by the model (focus adds
// instructions) and recorded as a branch_summary at the new leaf; when nothing is left behind
// the move is a plain one. The agent's transcript becomes the context at the new leaf. A run
// in progress is stopped first, as for the other session operations.
func (a *app) navigateTree(ctx context.Context, targetID string, summarize bool, focus string) (string, error) {
	a.stopRun()
	target, err := a.sess.Entry(targetID)
	if err != nil {
		return "", fmt.Errorf("tree: %w", err)
	}
	oldLeaf := a.sess.Leaf()
	if targetID == oldLeaf {
		return "", nil // already there: nothing is left behind and nothing to edit
	}
	newLeaf, text := treeLandingPoint(&target)
	if err := a.moveLeaf(ctx, oldLeaf, targetID, newLeaf, summarize, focus); err != nil {
		return "", err
	}
	restored, err := a.sess.Context()
	if err != nil {
		return "", fmt.Errorf("tree: rebuilding the conversation at %q: %w", targetID, err)
	}
	a.agent.ReplaceMessages(restored.Messages)
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
func (a *app) moveLeaf(ctx context.Context, oldLeaf, targetID, newLeaf string, summarize bool, focus string) error {
	if summarize {
		summary, details, err := a.branchSummarizer().SummarizeBranch(ctx, a.sess, oldLeaf, targetID, focus)
		switch {
		case errors.Is(err, session.ErrNothingToSummarize):
		case err != nil:
			return fmt.Errorf("tree: moving to %q: %w", targetID, err)
		default:
			if _, err := a.sess.BranchWithSummary(newLeaf, summary, details, false); err != nil {
				return fmt.Errorf("tree: recording the branch summary at %q: %w", newLeaf, err)
			}
			return nil
		}
	}
	if newLeaf == "" {
		a.sess.ResetLeaf()
		return nil
	}
	if err := a.sess.Branch(newLeaf); err != nil {
		return fmt.Errorf("tree: %w", err)
	}
	return nil
}

// branchSummarizer summarises with the session's model and the compaction budgets, so that a
// small window gets a small request.
func (a *app) branchSummarizer() *session.Compactor {
	st := a.agent.State()
	return &session.Compactor{Provider: a.agent.Provider(), Model: st.Model, Settings: a.compactionSettings(),
		Thinking: st.Thinking}
}

// leavesConversation reports whether moving to targetID would leave messages behind: only
// then is a branch summary worth offering.
func (a *app) leavesConversation(targetID string) bool {
	left, err := a.sess.AbandonedEntries(a.sess.Leaf(), targetID)
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
func (a *app) treeEntries() ([]treeEntry, error) {
	entries, err := a.sess.Entries()
	if err != nil {
		return nil, fmt.Errorf("tree of session %s: %w", a.sess.ID(), err)
	}
	out := make([]treeEntry, len(entries))
	for i := range entries {
		e := &entries[i]
		out[i] = treeEntry{ID: e.ID, Type: string(e.Type), Preview: oneLine(treePreview(e), treePreviewRunes),
			Label: a.sess.Label(e.ID)}
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

// treeCommand is /tree in the terminal UI: pick a point of the session tree, say whether to
// summarise the branch being left, and continue from there. It runs on its own goroutine (see
// interactive.command), so it may ask questions.
func (ic *interactive) treeCommand(string) {
	a := ic.app
	entries, err := a.treeEntries()
	if err != nil {
		ic.ui.Notify(tui.LevelError, err.Error())
		return
	}
	rows := treeRows(entries, a.sess.Leaf())
	if len(rows) == 0 {
		ic.ui.Notify(tui.LevelWarning, "the session is empty: nothing to navigate yet")
		return
	}
	labels := make([]string, len(rows))
	current := 0
	for i, r := range rows {
		labels[i] = r.Text
		if r.Current {
			current = i
		}
	}
	i, err := ic.ui.SelectFrom(ic.ctx, "Continue from which point? (● is where you are)", labels, current)
	if err != nil {
		return
	}
	if rows[i].Current {
		// The marked row may stand for a hidden leaf (a model change recorded at resume);
		// moving onto it would drop that entry from the path for nothing.
		ic.ui.Notify(tui.LevelInfo, "already there")
		return
	}
	summarize, focus, ok := ic.askBranchSummary(rows[i].ID)
	if !ok {
		return
	}
	ic.navigate(rows[i].ID, summarize, focus)
}

// askBranchSummary offers a summary of what the move leaves behind, when it leaves messages;
// ok is false when the user cancelled.
func (ic *interactive) askBranchSummary(targetID string) (summarize bool, focus string, ok bool) {
	if !ic.app.leavesConversation(targetID) {
		return false, "", true
	}
	choice, err := ic.ui.Select(ic.ctx, "Summarise the branch you are leaving?",
		[]string{"No summary", "Summarise it", "Summarise it with a focus…"})
	if err != nil {
		return false, "", false
	}
	if choice == 2 {
		focus, err = ic.ui.Input(ic.ctx, "What should the summary focus on?")
		if err != nil {
			return false, "", false
		}
	}
	return choice > 0, focus, true
}

// navigate carries out the move and shows the conversation now in force. While the summary
// is written the UI shows it is working, so Escape reaches OnAbort, which cancels it.
func (ic *interactive) navigate(targetID string, summarize bool, focus string) {
	ctx, cancel := context.WithCancel(ic.ctx)
	defer cancel()
	if summarize {
		ic.treeCancel.Store(&cancel)
		ic.ui.SetWorking(true)
		ic.ui.SetStatus("Summarising the branch… (esc to cancel)")
	}
	text, err := ic.app.navigateTree(ctx, targetID, summarize, focus)
	if summarize {
		ic.treeCancel.Store(nil)
		ic.ui.SetStatus("")
		ic.ui.SetWorking(false)
	}
	switch {
	case err != nil && ctx.Err() != nil && ic.ctx.Err() == nil:
		ic.ui.Notify(tui.LevelInfo, "branch summary cancelled: the conversation stays where it was")
		return
	case err != nil:
		ic.ui.Notify(tui.LevelError, err.Error())
		return
	}
	ic.ui.Notify(tui.LevelInfo, "moved in the session tree; the conversation now reads:")
	ic.replay(ic.app.agent.MessagesView())
	if text != "" {
		ic.ui.SetEditorText(text)
	}
	ic.updateQueue()
	ic.updateFooter()
}

// cmdGetTree is the RPC command get_tree: every entry of the session with its parent, type,
// role, a short preview and its label, and the current leaf (null before the first entry).
func (s *rpcServer) cmdGetTree(context.Context, *rpcCommand) (any, error) {
	entries, err := s.app.treeEntries()
	if err != nil {
		return nil, err
	}
	var leaf any
	if id := s.app.sess.Leaf(); id != "" {
		leaf = id
	}
	return map[string]any{"entries": entries, "leafId": leaf}, nil
}

// cmdNavigateTree is the RPC command navigate_tree{targetId, summarize?, customInstructions?}.
// It answers when the move is done. While a summary is being written no other command is
// read, so nothing can start a run on the branch being left.
func (s *rpcServer) cmdNavigateTree(ctx context.Context, c *rpcCommand) (any, error) {
	if c.TargetID == "" {
		return nil, errors.New(`navigate_tree needs "targetId"`)
	}
	s.quiesce()
	text, err := s.app.navigateTree(ctx, c.TargetID, c.Summarize, c.CustomInstructions)
	if err != nil {
		return nil, err
	}
	out := map[string]any{"cancelled": false, "leafId": s.app.sess.Leaf()}
	if text != "" {
		out["editorText"] = text
	}
	return out, nil
}

// cancelTreeSummary stops a branch summary in progress, if any (Escape).
func (ic *interactive) cancelTreeSummary() {
	if c := ic.treeCancel.Load(); c != nil {
		(*c)()
	}
}
