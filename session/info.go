package session

// info.go answers the questions front ends ask about a live session: statistics, the last
// reply, the messages a fork can start from, its name and labels.

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"pi/provider"
)

// ForkPoint is a user message a fork can start from (pi's get_fork_messages rows).
type ForkPoint struct {
	EntryID string `json:"entryId"`
	Text    string `json:"text"`
}

// ForkPoints lists the user messages of the session, oldest first.
func ForkPoints(sess *Session) ([]ForkPoint, error) {
	entries, err := sess.Entries()
	if err != nil {
		return nil, fmt.Errorf("listing the messages of session %s: %w", sess.ID(), err)
	}
	out := []ForkPoint{}
	for _, e := range entries {
		if e.Type == TypeMessage && e.Message != nil && e.Message.Role == provider.RoleUser {
			out = append(out, ForkPoint{EntryID: e.ID, Text: WithoutContextBlock(e.Message.TextContent())})
		}
	}
	return out, nil
}

// Stats counts the messages and tokens of a conversation (pi's get_session_stats).
type Stats struct {
	SessionFile       string      `json:"sessionFile,omitempty"`
	SessionID         string      `json:"sessionId"`
	UserMessages      int         `json:"userMessages"`
	AssistantMessages int         `json:"assistantMessages"`
	ToolCalls         int         `json:"toolCalls"`
	ToolResults       int         `json:"toolResults"`
	TotalMessages     int         `json:"totalMessages"`
	Tokens            StatsTokens `json:"tokens"`
	Cost              float64     `json:"cost"`
}

// StatsTokens are a conversation's tokens by kind.
type StatsTokens struct {
	Input      int `json:"input"`
	Output     int `json:"output"`
	CacheRead  int `json:"cacheRead"`
	CacheWrite int `json:"cacheWrite"`
	Total      int `json:"total"`
}

// StatsOf counts msgs, the conversation held for sess.
func StatsOf(sess *Session, msgs []provider.Message) Stats {
	st := Stats{SessionFile: sess.Path(), SessionID: sess.ID()}
	st.TotalMessages = len(msgs)
	for i := range msgs {
		m := &msgs[i]
		switch m.Role {
		case provider.RoleUser:
			st.UserMessages++
		case provider.RoleToolResult, provider.RoleAssistant:
			if m.Role == provider.RoleToolResult {
				st.ToolResults++ // its usage is a tool's own model calls
			} else {
				st.AssistantMessages++
				st.ToolCalls += len(m.ToolCalls())
			}
			if u := m.Usage; u != nil {
				st.Tokens.Input += u.Input
				st.Tokens.Output += u.Output
				st.Tokens.CacheRead += u.CacheRead
				st.Tokens.CacheWrite += u.CacheWrite
				st.Cost += u.Cost.Total
			}
		}
	}
	t := &st.Tokens
	t.Total = t.Input + t.Output + t.CacheRead + t.CacheWrite
	return st
}

// StatsOfEntries counts the message entries among entries (a branch, or every entry of the
// file) as StatsOf counts a conversation. /session and the export both count with it, so
// they agree wherever they count the same entries.
func StatsOfEntries(sess *Session, entries []Entry) Stats {
	msgs := make([]provider.Message, 0, len(entries))
	for i := range entries {
		if entries[i].Type == TypeMessage && entries[i].Message != nil {
			msgs = append(msgs, *entries[i].Message)
		}
	}
	return StatsOf(sess, msgs)
}

// BranchAndFileStats counts the current branch, from the session's start to its leaf (the
// messages a compaction summarised included), and the whole file, every branch.
func BranchAndFileStats(sess *Session) (branch, file Stats, err error) {
	var path []Entry
	if leaf := sess.Leaf(); leaf != "" { // an empty session has no branch yet
		if path, err = sess.PathTo(leaf); err != nil {
			return Stats{}, Stats{}, fmt.Errorf("counting the branch of session %s: %w", sess.ID(), err)
		}
	}
	all, err := sess.Entries()
	if err != nil {
		return Stats{}, Stats{}, fmt.Errorf("counting the entries of session %s: %w", sess.ID(), err)
	}
	return StatsOfEntries(sess, path), StatsOfEntries(sess, all), nil
}

// LastAssistantText is the text of the newest assistant reply in msgs; ok is false when there
// is none.
// An aborted reply with nothing in it does not count.
func LastAssistantText(msgs []provider.Message) (text string, ok bool) {
	for i := len(msgs) - 1; i >= 0; i-- {
		m := &msgs[i]
		if m.Role != provider.RoleAssistant || m.StopReason == provider.StopAborted && len(m.Content) == 0 {
			continue
		}
		return m.TextContent(), true
	}
	return "", false
}

// Rename names the session for listings; empty names are refused.
func Rename(sess *Session, name string) error {
	name = strings.TrimSpace(name)
	if name == "" {
		return errors.New("session name is empty")
	}
	if _, err := sess.SetName(name); err != nil {
		return fmt.Errorf("naming session %s %q: %w", sess.ID(), name, err)
	}
	return nil
}

// CompactionDetailsOf are the details a compaction's entry stores ({} when it stores none), as
// pi's CompactionResult carries them.
func CompactionDetailsOf(sess *Session, r *Result) json.RawMessage {
	if e, err := sess.Entry(r.EntryID); err == nil && len(e.Details) > 0 {
		return e.Details
	}
	return json.RawMessage("{}")
}

// Label sets the label of entryID (pi's setLabel); an empty label clears it.
func Label(sess *Session, entryID, label string) error {
	if _, err := sess.SetLabel(entryID, strings.TrimSpace(label)); err != nil {
		return fmt.Errorf("labelling %q in session %s: %w", entryID, sess.ID(), err)
	}
	return nil
}
