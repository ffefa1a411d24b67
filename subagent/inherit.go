package subagent

// inherit.go is inherit_context: the child's session starts with the parent's conversation,
// compacted to fit the child's window by the session package's compaction (a summary the
// child's model writes of the older part, as /compact does, and the newest messages).

import (
	"context"
	"fmt"
	"os"

	"pi/provider"
	"pi/session"
)

// Inheritance is what a child that inherits the parent's conversation needs of its host.
type Inheritance struct {
	Messages []provider.Message // the parent's conversation, as its agent holds it
	// Compactor summarises with the child's provider and model; the model's window sizes
	// what the child gets.
	Compactor session.Compactor
	Dir, Cwd  string // where the child's session file goes, and its working directory
	Parent    string // the parent's session file, for the child's header; "" has none
}

// Inherit writes the child's session file, which begins with the parent's conversation: as
// it is when it fits in half the child's window, else compacted. The child is then started on
// that file. When there is no file to write (the parent has none, or nothing but user
// messages, which pi does not write alone) or the summary fails, the child's first prompt
// carries a digest of the newest messages instead (WithContext), and its outcome says why.
func (c *SessionChild) Inherit(ctx context.Context, in Inheritance) (file string) {
	file, err := inherit(ctx, c.launch.Prompt, in)
	if err != nil {
		c.prompt = WithContext(c.launch.Prompt, in.Messages, in.Compactor.Model.ContextWindow)
		c.note = fmt.Sprintf("inherit_context: %v; the agent got the newest messages' text instead", err)
	}
	return file
}

func inherit(ctx context.Context, task string, in Inheritance) (string, error) {
	msgs := Settled(in.Messages)
	if in.Parent == "" {
		return "", fmt.Errorf("the session has no file to start the agent's from")
	}
	if !hasAssistant(msgs) {
		return "", fmt.Errorf("the conversation has no reply yet")
	}
	s := session.CreateChild(in.Dir, in.Cwd, in.Parent)
	for _, m := range msgs {
		if _, err := s.AppendMessage(m); err != nil {
			s.Close()
			return "", fmt.Errorf("writing the agent's session: %w", err)
		}
	}
	window := in.Compactor.Model.ContextWindow
	if window > 0 && session.ContextTokens(msgs) > window/2 {
		focus := "The summary is for a helper agent that will do this task, so keep what it needs: " + clip(task, 600)
		if _, err := in.Compactor.Compact(ctx, s, session.ReasonManual, focus); err != nil {
			s.Close()
			os.Remove(s.Path())
			return "", fmt.Errorf("compacting the conversation for the agent's window failed: %w", err)
		}
	}
	if err := s.Close(); err != nil {
		return "", fmt.Errorf("writing the agent's session: %w", err)
	}
	return s.Path(), nil
}

// Settled is msgs without the turn still going on: it ends before the last reply whose tool
// calls do not all have results yet (the Agent call that starts the child is one of them).
func Settled(msgs []provider.Message) []provider.Message {
	for i := len(msgs) - 1; i >= 0; i-- {
		calls := msgs[i].ToolCalls()
		if msgs[i].Role != provider.RoleAssistant || len(calls) == 0 {
			continue
		}
		answered := map[string]bool{}
		for _, m := range msgs[i+1:] {
			if m.Role == provider.RoleToolResult {
				answered[m.ToolCallID] = true
			}
		}
		for _, call := range calls {
			if !answered[call.ID] {
				return msgs[:i]
			}
		}
		return msgs
	}
	return msgs
}

func hasAssistant(msgs []provider.Message) bool {
	for i := range msgs {
		if msgs[i].Role == provider.RoleAssistant {
			return true
		}
	}
	return false
}

func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
