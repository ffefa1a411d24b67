package main

// sessioninfo.go answers the questions front ends ask about a live session: statistics, the
// last reply, the messages a fork can start from, its name, and the session listing of a
// directory.

import (
	"errors"
	"fmt"
	"strings"

	"pi/agent"
	"pi/provider"
	"pi/session"
)

// forkMessage is a user message a fork can start from.
type forkMessage struct {
	EntryID string `json:"entryId"`
	Text    string `json:"text"`
}

// forkMessages lists the user messages of the session, oldest first.
func forkMessages(sess *session.Session) ([]forkMessage, error) {
	entries, err := sess.Entries()
	if err != nil {
		return nil, fmt.Errorf("listing the messages of session %s: %w", sess.ID(), err)
	}
	out := []forkMessage{}
	for _, e := range entries {
		if e.Type == session.TypeMessage && e.Message != nil && e.Message.Role == provider.RoleUser {
			out = append(out, forkMessage{EntryID: e.ID, Text: session.WithoutContextBlock(e.Message.TextContent())})
		}
	}
	return out, nil
}

// sessionStats counts the messages and tokens of the conversation the agent holds.
type sessionStats struct {
	SessionFile       string      `json:"sessionFile,omitempty"`
	SessionID         string      `json:"sessionId"`
	UserMessages      int         `json:"userMessages"`
	AssistantMessages int         `json:"assistantMessages"`
	ToolCalls         int         `json:"toolCalls"`
	ToolResults       int         `json:"toolResults"`
	TotalMessages     int         `json:"totalMessages"`
	Tokens            statsTokens `json:"tokens"`
	Cost              float64     `json:"cost"`
}

type statsTokens struct {
	Input      int `json:"input"`
	Output     int `json:"output"`
	CacheRead  int `json:"cacheRead"`
	CacheWrite int `json:"cacheWrite"`
	Total      int `json:"total"`
}

func statsOf(sess *session.Session, ag *agent.Agent) sessionStats {
	st := sessionStats{SessionFile: sess.Path(), SessionID: sess.ID()}
	msgs := ag.MessagesView()
	st.TotalMessages = len(msgs)
	for i := range msgs {
		m := &msgs[i]
		switch m.Role {
		case provider.RoleUser:
			st.UserMessages++
		case provider.RoleToolResult:
			st.ToolResults++
		case provider.RoleAssistant:
			st.AssistantMessages++
			st.ToolCalls += len(m.ToolCalls())
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

// lastAssistantText is the text of the newest assistant reply; ok is false when there is none.
// An aborted reply with nothing in it does not count.
func lastAssistantText(ag *agent.Agent) (text string, ok bool) {
	msgs := ag.MessagesView()
	for i := len(msgs) - 1; i >= 0; i-- {
		m := &msgs[i]
		if m.Role != provider.RoleAssistant || m.StopReason == provider.StopAborted && len(m.Content) == 0 {
			continue
		}
		return m.TextContent(), true
	}
	return "", false
}

// setSessionName names the session for listings; empty names are refused.
func nameSession(sess *session.Session, name string) error {
	name = strings.TrimSpace(name)
	if name == "" {
		return errors.New("session name is empty")
	}
	if _, err := sess.SetName(name); err != nil {
		return fmt.Errorf("naming session %s %q: %w", sess.ID(), name, err)
	}
	return nil
}

// compactionJSON is pi's CompactionResult, with the details stored in the session entry.
func compactionJSON(sess *session.Session, r *session.Result) map[string]any {
	var details any = map[string]any{}
	if e, err := sess.Entry(r.EntryID); err == nil && len(e.Details) > 0 {
		details = e.Details
	}
	return map[string]any{"summary": r.Summary, "firstKeptEntryId": r.FirstKeptEntryID,
		"tokensBefore": r.TokensBefore, "tokensAfter": r.TokensAfter, "details": details}
}

// labelEntry sets the label of entryID (pi's setLabel); an empty label clears it.
func labelEntry(sess *session.Session, entryID, label string) error {
	if _, err := sess.SetLabel(entryID, strings.TrimSpace(label)); err != nil {
		return fmt.Errorf("labelling %q in session %s: %w", entryID, sess.ID(), err)
	}
	return nil
}
