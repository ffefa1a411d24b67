package session

// treeview.go describes a session for people: the entries of its tree as get_tree sends them
// and the picker lays them out, what a user typed (without the context block that opens a
// conversation), and the shortest unique prefixes of session ids.

import (
	"encoding/json"
	"fmt"
	"strings"

	"pi/internal/atfile"
	"pi/provider"
)

// LeavesConversation reports whether moving to targetID would leave messages behind: only
// then is a branch summary worth offering.
func LeavesConversation(sess *Session, targetID string) bool {
	left, err := sess.AbandonedEntries(sess.Leaf(), targetID)
	return err == nil && len(PrepareBranch(left, 0).Messages) > 0
}

// TreeEntry is one entry of the session tree as get_tree sends it and the picker shows it.
type TreeEntry struct {
	ID       string  `json:"id"`
	ParentID *string `json:"parentId"` // null for a root, as in the session file
	Type     string  `json:"type"`
	Role     string  `json:"role,omitempty"` // message entries
	Preview  string  `json:"preview"`
	Label    string  `json:"label,omitempty"`
}

// treePreviewRunes is how much of an entry's text a row shows.
const treePreviewRunes = 72

// TreeEntries lists every entry of the session in file order.
func TreeEntries(sess *Session) ([]TreeEntry, error) {
	entries, err := sess.Entries()
	if err != nil {
		return nil, fmt.Errorf("tree of session %s: %w", sess.ID(), err)
	}
	out := make([]TreeEntry, len(entries))
	for i := range entries {
		e := &entries[i]
		out[i] = TreeEntry{ID: e.ID, Type: string(e.Type), Preview: provider.OneLine(treePreview(e), treePreviewRunes),
			Label: sess.Label(e.ID)}
		if e.ParentID != "" {
			out[i].ParentID = &e.ParentID
		}
		if e.Type == TypeMessage && e.Message != nil {
			out[i].Role = string(e.Message.Role)
		}
	}
	return out, nil
}

// treePreview is a short description of an entry for a row of the tree.
func treePreview(e *Entry) string {
	switch e.Type {
	case TypeMessage:
		if e.Message != nil {
			return messagePreview(e.Message)
		}
	case TypeCustomMessage:
		m := provider.Message{Content: e.Content}
		return "[" + e.CustomType + "] " + m.TextContent()
	case TypeBranchSummary:
		return "summary of a branch left: " + summaryGist(e.Summary)
	case TypeCompaction:
		return fmt.Sprintf("compacted %d tokens: %s", e.TokensBefore, summaryGist(e.Summary))
	case TypeModelChange:
		return e.Provider + "/" + e.ModelID
	case TypeThinking:
		return e.ThinkingLevel
	case TypeCustom:
		return e.CustomType
	case TypeLabel:
		if e.Label != nil {
			return *e.Label
		}
	case TypeSessionInfo:
		if e.Name != nil {
			return *e.Name
		}
	}
	return ""
}

func messagePreview(m *provider.Message) string {
	switch m.Role {
	case provider.RoleUser:
		return atfile.Fold(ShownUserText(m))
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
	case RoleBashExecution:
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

// TreeRow is one line of the picker and the entry it stands for.
type TreeRow struct {
	ID      string
	Text    string
	Current bool // the leaf, or its nearest shown ancestor when the leaf is hidden
}

// RowTexts is what a picker lists for rows, and the index of the current one (0 if none is).
func RowTexts(rows []TreeRow) (texts []string, current int) {
	texts = make([]string, len(rows))
	for i, r := range rows {
		texts[i] = r.Text
		if r.Current {
			current = i
		}
	}
	return texts, current
}

// treeShown tells which entries the picker shows: the conversation, not the bookkeeping
// (labels, settings changes, script state, the session name). The children of a hidden entry
// are shown under its nearest shown ancestor.
func treeShown(e *TreeEntry) bool {
	switch Type(e.Type) {
	case TypeLabel, TypeCustom, TypeSessionInfo, TypeModelChange, TypeThinking:
		return false
	}
	return true
}

// TreeRows lays the tree out for the picker, depth first in file order. A chain of single
// children stays in one column; where the conversation branches, each branch is drawn under a
// ├─ or └─ connector, one level deeper. The current leaf's row (or its nearest shown
// ancestor's) is marked with ●, and labels are shown in brackets.
func TreeRows(entries []TreeEntry, leaf string) []TreeRow {
	l := newTreeLayout(entries)
	mark := l.shownAncestor(leaf, true)
	var rows []TreeRow
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
			rows = append(rows, TreeRow{ID: id, Text: lead + treeRowText(&entries[l.index[id]], id == mark), Current: id == mark})
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
	entries  []TreeEntry
	index    map[string]int
	children map[string][]string
}

func newTreeLayout(entries []TreeEntry) *treeLayout {
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

func treeRowText(e *TreeEntry, current bool) string {
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
	case kind == string(RoleBashExecution):
		kind = "shell"
	case kind == "":
		kind = strings.ReplaceAll(e.Type, "_", " ")
	}
	b.WriteString(kind + ": " + e.Preview)
	return b.String()
}

// ShownUserTexts is ShownUserText of each message (the queues as the terminal UI shows them).
func ShownUserTexts(ms []provider.Message) []string {
	out := make([]string, len(ms))
	for i := range ms {
		out[i] = ShownUserText(&ms[i])
	}
	return out
}

// EditableText is a user message's text offered for editing again (/fork, /tree): without the
// context block, and without the blocks of the files its @words name, which sending the text
// again attaches again; a block nothing in the text names stays.
func EditableText(m *provider.Message) string {
	return atfile.Unexpand(WithoutContextBlock(m.TextContent()))
}

// Title is a prompt in one line of at most n runes, for a session's title or a tree row:
// without the context block, each attached file by its name and size ([main.go, 2.1 KB]).
func Title(prompt string, n int) string {
	return provider.OneLine(atfile.Fold(WithoutContextBlock(prompt)), n)
}

// ShownUserText is what the user typed: the context block that opens a conversation is left
// out, images are shown as a marker.
func ShownUserText(m *provider.Message) string {
	var parts []string
	for _, b := range m.Content {
		switch {
		case b.Type == provider.BlockText && strings.HasPrefix(b.Text, "<context>"):
		case b.Type == provider.BlockText:
			parts = append(parts, b.Text)
		case b.Type == provider.BlockImage:
			parts = append(parts, "[image]")
		}
	}
	return strings.Join(parts, "\n")
}

// WithoutContextBlock drops the date-and-folder block that opens a conversation.
func WithoutContextBlock(s string) string {
	if strings.HasPrefix(s, "<context>") {
		if _, rest, ok := strings.Cut(s, "</context>"); ok {
			return strings.TrimSpace(rest)
		}
	}
	return s
}

// UniquePrefixes gives each id the shortest prefix, of at least minLen bytes, that no other id
// shares: ids are time-based, so sessions started close together share long prefixes.
func UniquePrefixes(ids []string, minLen int) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		n := minLen
		for j, other := range ids {
			if j != i && other != id {
				n = max(n, commonPrefix(id, other)+1)
			}
		}
		out[i] = id[:min(n, len(id))]
	}
	return out
}

func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}
