package live

// tree.go moves the conversation to another point of the session tree (pi's /tree): the
// operation every front end shares, the entries get_tree sends, and the picker's text
// rendering of the tree.

import (
	"context"
	"errors"
	"fmt"

	"pi/session"
)

// navigateTree moves the leaf to targetID, as pi's navigateTree does. A user message or a
// custom message is not kept: the leaf goes to its parent and its text is returned, so that a
// front end can put it in the editor to be changed and sent again. Any other entry becomes the
// leaf. With summarize, what the move leaves behind is summarised by the model (focus adds
// instructions) and recorded as a branch_summary at the new leaf; when nothing is left behind
// the move is a plain one. The agent's transcript becomes the context at the new leaf. A run
// in progress is stopped first, as for the other session operations.
func (h *Session) NavigateTree(ctx context.Context, targetID string, summarize bool, focus string) (string, error) {
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
	if h.scripts.cancelled("session_before_tree", map[string]any{"target_id": targetID, "old_leaf_id": oldLeaf}) {
		return "", errors.New("tree: a script's session_before_tree handler cancelled the move")
	}
	newLeaf, text := session.LandingPoint(&target)
	if err := h.moveLeaf(ctx, oldLeaf, targetID, newLeaf, summarize, focus); err != nil {
		return "", err
	}
	h.scripts.emit("session_tree", map[string]any{"new_leaf_id": sess.Leaf(), "old_leaf_id": oldLeaf})
	restored, err := sess.Context()
	if err != nil {
		return "", fmt.Errorf("tree: rebuilding the conversation at %q: %w", targetID, err)
	}
	h.agent.ReplaceMessages(restored.Messages)
	defer h.prewarm() // once the slot is given up: the conversation is another one now
	return text, nil
}

// moveLeaf moves the leaf to newLeaf ("" for before the first entry), with a branch summary
// of what the move from oldLeaf towards targetID leaves behind when asked. A failed summary
// leaves the leaf where it was.
func (h *Session) moveLeaf(ctx context.Context, oldLeaf, targetID, newLeaf string, summarize bool, focus string) error {
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
