package session

import (
	"encoding/json"
	"sort"

	"pi/provider"
)

// Settings configure compaction. Zero token fields mean "derive from the model's window".
//
// pi reserves 16384 tokens and keeps 20000, which suits 200k windows; on the 8k–32k windows of
// local models the same numbers would compact on every turn or never leave room. We scale:
//
//	reserve = clamp(window/4, 1024, 16384)   room for the reply and the summary request
//	keep    = clamp(window/4, 1024, 20000)   recent tokens kept verbatim after a compaction
//
// so 8k → reserve 2048, keep 2048 (compaction at 6144); 32k → 8192/8192 (at 24576);
// 128k and up → pi's 16384/20000.
type Settings struct {
	Enabled          bool
	ReserveTokens    int
	KeepRecentTokens int
}

// DefaultSettings has compaction on with window-scaled budgets.
func DefaultSettings() Settings { return Settings{Enabled: true} }

// Reserve returns the reserve for a context window.
func (s Settings) Reserve(window int) int {
	if s.ReserveTokens > 0 {
		return s.ReserveTokens
	}
	return clamp(window/4, 1024, 16384)
}

// Keep returns the kept tail for a context window.
func (s Settings) Keep(window int) int {
	if s.KeepRecentTokens > 0 {
		return s.KeepRecentTokens
	}
	return clamp(window/4, 1024, 20000)
}

// ShouldCompact reports whether a context of tokens needs compacting in window. It is false
// when compaction is disabled or the window is unknown.
func (s Settings) ShouldCompact(tokens, window int) bool {
	return s.Enabled && window > 0 && tokens > window-s.Reserve(window)
}

func clamp(v, lo, hi int) int { return max(lo, min(v, hi)) }

// EstimateTokens guesses a message's tokens as characters/4, rounded up, as pi does: text,
// thinking, tool names and their JSON arguments count; an image counts as 4800 characters.
func EstimateTokens(m *provider.Message) int {
	chars := 0
	switch m.Role {
	case RoleBashExecution:
		chars = len(extraString(m, "command")) + len(extraString(m, "output"))
	case RoleBranchSummary, RoleCompactionSummary:
		chars = len(Summary(m))
	default:
		for _, b := range m.Content {
			switch b.Type {
			case provider.BlockText:
				chars += len(b.Text)
			case provider.BlockThinking:
				chars += len(b.Thinking)
			case provider.BlockToolCall:
				args, _ := json.Marshal(b.Arguments)
				chars += len(b.Name) + len(args)
			case provider.BlockImage:
				chars += 4800
			}
		}
	}
	return (chars + 3) / 4
}

// ContextTokens estimates the tokens of a context: the usage the newest valid assistant reply
// reported (its prompt plus its output) plus an estimate of what came after it. Replies that
// ended in error or abort report no useful usage, and replies older than a compaction summary
// in msgs report the size of a context that no longer exists; both are skipped.
func ContextTokens(msgs []provider.Message) int {
	var compactedAt int64 = -1
	for i := range msgs {
		if msgs[i].Role == RoleCompactionSummary {
			compactedAt = msgs[i].Timestamp
		}
	}
	total := 0
	for i := len(msgs) - 1; i >= 0; i-- {
		m := &msgs[i]
		if u := usableUsage(m, compactedAt); u > 0 {
			return total + u
		}
		total += EstimateTokens(m)
	}
	return total
}

func usableUsage(m *provider.Message, compactedAt int64) int {
	if m.Role != provider.RoleAssistant || m.Usage == nil || m.StopReason == provider.StopError ||
		m.StopReason == provider.StopAborted || compactedAt >= 0 && m.Timestamp <= compactedAt {
		return 0
	}
	u := m.Usage
	if u.TotalTokens > 0 {
		return u.TotalTokens
	}
	return u.Input + u.Output + u.CacheRead + u.CacheWrite
}

// CutPoint says where a compaction cuts a path.
type CutPoint struct {
	FirstKept int // index of the first kept entry
	TurnStart int // index of the user message starting the turn the cut splits, or -1
}

// Split reports whether the cut falls inside a turn.
func (c CutPoint) Split() bool { return c.TurnStart >= 0 }

// FindCutPoint chooses where to cut path[start:end] so that about keep tokens of the newest
// messages stay: walking back from the end it sums message estimates until keep is reached,
// then cuts at the nearest valid point at or after there. Valid points are user, assistant,
// custom and bashExecution messages and custom_message/branch_summary entries, never a tool
// result, and never a point with a tool call before it whose result comes after it: a call
// and its result are always kept or summarised together. Settings entries just before the cut
// are kept with it.
func FindCutPoint(path []*Entry, start, end, keep int) CutPoint {
	valid := validCuts(path, start, end)
	if len(valid) == 0 {
		return CutPoint{FirstKept: start, TurnStart: -1}
	}
	cut := valid[0]
	acc := 0
	for i := end - 1; i >= start; i-- {
		if path[i].Type != TypeMessage || path[i].Message == nil {
			continue
		}
		if acc += EstimateTokens(path[i].Message); acc >= keep {
			j := sort.SearchInts(valid, i)
			if j < len(valid) {
				cut = valid[j]
			} else {
				cut = valid[len(valid)-1]
			}
			break
		}
	}
	for cut > start && path[cut-1].Type != TypeMessage && path[cut-1].Type != TypeCompaction {
		cut--
	}
	cp := CutPoint{FirstKept: cut, TurnStart: -1}
	if e := path[cut]; e.Type != TypeMessage || e.Message == nil || e.Message.Role != provider.RoleUser {
		cp.TurnStart = turnStart(path, cut, start)
	}
	return cp
}

// validCuts lists the indices in [start, end) where a cut may fall, ascending.
func validCuts(path []*Entry, start, end int) []int {
	open := map[string]bool{} // tool calls whose result has not appeared yet
	var out []int
	for i := start; i < end; i++ {
		e := path[i]
		switch e.Type {
		case TypeCustomMessage, TypeBranchSummary:
			if len(open) == 0 {
				out = append(out, i)
			}
		case TypeMessage:
			m := e.Message
			if m == nil {
				continue
			}
			if m.Role != provider.RoleToolResult && len(open) == 0 {
				out = append(out, i)
			}
			trackCalls(open, m)
		}
	}
	return out
}

// trackCalls updates the set of calls awaiting results. A reply that failed or was aborted
// never gets results for its calls, and a user message closes whatever was left open.
func trackCalls(open map[string]bool, m *provider.Message) {
	switch m.Role {
	case provider.RoleAssistant:
		if m.StopReason == provider.StopError || m.StopReason == provider.StopAborted {
			return
		}
		for _, c := range m.ToolCalls() {
			open[c.ID] = true
		}
	case provider.RoleToolResult:
		delete(open, m.ToolCallID)
	case provider.RoleUser:
		clear(open)
	}
}

// turnStart finds the message that began the turn holding index i: the nearest user or
// bashExecution message, custom_message or branch_summary at or before it, or -1.
func turnStart(path []*Entry, i, start int) int {
	for ; i >= start; i-- {
		e := path[i]
		if e.Type == TypeCustomMessage || e.Type == TypeBranchSummary {
			return i
		}
		if e.Type == TypeMessage && e.Message != nil &&
			(e.Message.Role == provider.RoleUser || e.Message.Role == RoleBashExecution) {
			return i
		}
	}
	return -1
}
