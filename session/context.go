package session

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"pi/provider"
)

// pi's application message roles. They live in sessions and in the agent's transcript, and
// ToLLM turns them into user messages before a model sees them.
const (
	RoleCustom            provider.Role = "custom"
	RoleBashExecution     provider.Role = "bashExecution"
	RoleBranchSummary     provider.Role = "branchSummary"
	RoleCompactionSummary provider.Role = "compactionSummary"
)

// Context is what a conversation looks like from a leaf: the messages to continue from (pi's
// agent messages, application roles included; pass them through ToLLM before a model call) and
// the model and thinking level in force at that point.
type Context struct {
	Messages []provider.Message
	Provider string // "" when the path never named a model
	ModelID  string
	Thinking string // "off" unless the path changed it
}

// BuildContext builds the context at leafID from a list of entries, as pi's
// buildSessionContext does: the path from the root to the leaf; when it holds a compaction, the
// latest one's summary, then the entries it kept, then everything after it. An empty or unknown
// leafID means the last entry.
func BuildContext(entries []Entry, leafID string) Context {
	byID := make(map[string]int, len(entries))
	for i := range entries {
		byID[entries[i].ID] = i
	}
	leaf, ok := byID[leafID]
	if !ok {
		leaf = len(entries) - 1
	}
	if leaf < 0 {
		return Context{Thinking: "off"}
	}
	var rev []*Entry
	for i := leaf; len(rev) <= len(entries); {
		rev = append(rev, &entries[i])
		j, ok := byID[entries[i].ParentID]
		if entries[i].ParentID == "" || !ok {
			break
		}
		i = j
	}
	path := make([]*Entry, len(rev))
	for i, e := range rev {
		path[len(rev)-1-i] = e
	}
	return contextFromPath(path)
}

// contextFromPath builds the context from a root-first path. The path may leave out entries
// that contribute nothing (the Session does, to avoid reading them).
func contextFromPath(path []*Entry) Context {
	c := Context{Thinking: "off", Messages: make([]provider.Message, 0, len(path))}
	comp := -1
	for i, e := range path {
		switch {
		case e.Type == TypeThinking:
			c.Thinking = e.ThinkingLevel
		case e.Type == TypeModelChange:
			c.Provider, c.ModelID = e.Provider, e.ModelID
		case e.Type == TypeMessage && e.Message != nil && e.Message.Role == provider.RoleAssistant:
			c.Provider, c.ModelID = e.Message.Provider, e.Message.Model
		case e.Type == TypeCompaction:
			comp = i
		}
	}
	if comp < 0 {
		for _, e := range path {
			c.Messages = appendContextMessage(c.Messages, e)
		}
		return c
	}
	cp := path[comp]
	c.Messages = append(c.Messages, compactionSummaryMessage(cp))
	kept := false
	for _, e := range path[:comp] {
		kept = kept || e.ID == cp.FirstKeptEntryID
		if kept {
			c.Messages = appendContextMessage(c.Messages, e)
		}
	}
	for _, e := range path[comp+1:] {
		c.Messages = appendContextMessage(c.Messages, e)
	}
	return c
}

func appendContextMessage(msgs []provider.Message, e *Entry) []provider.Message {
	switch e.Type {
	case TypeMessage:
		if e.Message != nil {
			return append(msgs, e.Message.Clone())
		}
	case TypeCustomMessage:
		m := provider.Message{Role: RoleCustom, Content: append([]provider.Block(nil), e.Content...),
			StringContent: e.StringContent, Details: e.Details, Timestamp: unixMilli(e.Timestamp),
			Extra: map[string]json.RawMessage{"customType": mustJSON(e.CustomType), "display": mustJSON(e.Display)}}
		return append(msgs, m)
	case TypeBranchSummary:
		if e.Summary != "" {
			return append(msgs, provider.Message{Role: RoleBranchSummary, Timestamp: unixMilli(e.Timestamp),
				Extra: map[string]json.RawMessage{"summary": mustJSON(e.Summary), "fromId": mustJSON(e.FromID)}})
		}
	}
	return msgs
}

func compactionSummaryMessage(e *Entry) provider.Message {
	return provider.Message{Role: RoleCompactionSummary, Timestamp: unixMilli(e.Timestamp),
		Extra: map[string]json.RawMessage{"summary": mustJSON(e.Summary), "tokensBefore": mustJSON(e.TokensBefore)}}
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("session: marshal %T: %v", v, err)) // only strings, bools, ints and int pointers come here
	}
	return b
}

func unixMilli(iso string) int64 {
	t, err := time.Parse(time.RFC3339Nano, iso)
	if err != nil {
		return 0
	}
	return t.UnixMilli()
}

// Summary returns the summary text of a branchSummary or compactionSummary message.
func Summary(m *provider.Message) string { return extraString(m, "summary") }

func extraString(m *provider.Message, key string) string {
	var s string
	if raw, ok := m.Extra[key]; ok {
		_ = json.Unmarshal(raw, &s)
	}
	return s
}

func extraBool(m *provider.Message, key string) bool {
	var b bool
	if raw, ok := m.Extra[key]; ok {
		_ = json.Unmarshal(raw, &b)
	}
	return b
}

// ToLLM turns agent messages into what a model is sent: user, assistant and tool results pass
// through; summaries, extension messages and shell commands the user ran become user messages
// worded for the model; a shell command marked excludeFromContext (!!cmd) and unknown roles
// are dropped.
func ToLLM(msgs []provider.Message) []provider.Message {
	out := make([]provider.Message, 0, len(msgs))
	for i := range msgs {
		m := &msgs[i]
		switch m.Role {
		case provider.RoleUser, provider.RoleAssistant, provider.RoleToolResult:
			out = append(out, *m)
		case RoleCustom:
			out = append(out, provider.Message{Role: provider.RoleUser, Content: m.Content, Timestamp: m.Timestamp})
		case RoleCompactionSummary:
			out = append(out, userText(compactionPreamble+"<summary>\n"+Summary(m)+"\n</summary>", m.Timestamp))
		case RoleBranchSummary:
			out = append(out, userText(branchPreamble+"<summary>\n"+Summary(m)+"\n</summary>", m.Timestamp))
		case RoleBashExecution:
			if !extraBool(m, "excludeFromContext") {
				out = append(out, userText(bashText(m), m.Timestamp))
			}
		case provider.RoleSystem:
			if text := toolChangeText(m); text != "" {
				out = append(out, userText(text, m.Timestamp))
			}
		}
	}
	return out
}

// Our wording of the wrappers; the model reads them as the user's voice.
const (
	compactionPreamble = "To save space, the earlier part of this conversation was replaced by the summary " +
		"below. Treat it as what happened so far and carry on from it.\n\n"
	branchPreamble = "Before this point the user tried another path in this conversation and then came " +
		"back here. What happened on that path, in short:\n\n"
)

// toolChangeText words a declaration of changed tools for the model.
func toolChangeText(m *provider.Message) string {
	added, removed := provider.ToolsOf(m)
	var parts []string
	if len(added) > 0 {
		lines := []string{"These tools are now available:"}
		for _, t := range added {
			lines = append(lines, "- "+t.Name+": "+t.Description)
		}
		parts = append(parts, strings.Join(lines, "\n"))
	}
	if len(removed) > 0 {
		parts = append(parts, "These tools are no longer available: "+strings.Join(removed, ", ")+".")
	}
	if len(parts) == 0 {
		return ""
	}
	return "[Your tools changed.\n" + strings.Join(parts, "\n") + "]"
}

func userText(text string, ts int64) provider.Message {
	return provider.Message{Role: provider.RoleUser, Content: []provider.Block{provider.Text(text)}, Timestamp: ts}
}

func bashText(m *provider.Message) string {
	var b strings.Builder
	fmt.Fprintf(&b, "I ran this shell command myself: `%s`\n", extraString(m, "command"))
	if out := extraString(m, "output"); out != "" {
		fmt.Fprintf(&b, "Its output:\n```\n%s\n```", out)
	} else {
		b.WriteString("It printed nothing.")
	}
	var code *int
	if raw, ok := m.Extra["exitCode"]; ok {
		_ = json.Unmarshal(raw, &code)
	}
	switch {
	case extraBool(m, "cancelled"):
		b.WriteString("\n\nI cancelled it before it finished.")
	case code != nil && *code != 0:
		fmt.Fprintf(&b, "\n\nIt exited with status %d.", *code)
	}
	if path := extraString(m, "fullOutputPath"); extraBool(m, "truncated") && path != "" {
		fmt.Fprintf(&b, "\n\nThe output above is cut short; all of it is in %s.", path)
	}
	return b.String()
}
