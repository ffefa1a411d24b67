package termui

import (
	"cmp"
	"context"
	"errors"
	"fmt"

	"pi/session"
	"pi/tui"
)

// sessions.go moves between sessions (/new, /clone, /fork, /resume) and within one (/tree,
// /label).

func (c *Controller) newSession(string) {
	sw, err := c.sess.NewSession(c.ctx)
	c.switched("new session", sw, err)
}

func (c *Controller) clone(string) {
	sw, err := c.sess.Clone(c.ctx)
	c.switched("cloned session", sw, err)
}

// switched reports a session switch and shows the session now in force.
func (c *Controller) switched(what string, sw Switch, err error) bool {
	if err != nil {
		c.ui.Notify(tui.LevelError, err.Error())
		return false
	}
	msg := what + ": " + sw.ID
	if sw.Note != "" {
		msg += " (" + sw.Note + ")"
	}
	c.ui.Notify(tui.LevelInfo, msg)
	c.sess.ShowSession(c.ctx)
	c.LoadCommands()
	return true
}

// fork starts a new session from an earlier user message, which comes back for editing.
func (c *Controller) fork(string) {
	msgs, err := c.sess.ForkPoints(c.ctx)
	if err != nil || len(msgs) == 0 {
		c.ui.Notify(tui.LevelWarning, "nothing to fork from yet")
		return
	}
	labels := make([]string, len(msgs))
	for i, m := range msgs {
		labels[i] = session.Title(m.Text, 200)
	}
	i, err := c.ui.Select(c.ctx, "Fork from which message?", labels)
	if err != nil {
		return
	}
	text, sw, err := c.sess.Fork(c.ctx, msgs[i].EntryID)
	if c.switched("forked into a new session", sw, err) {
		c.ui.SetEditorText(text)
	}
}

// resume is /resume: switch to another session, this folder's first; typing searches what the
// sessions hold (resumesearch.go).
func (c *Controller) resume(string) {
	list, err := c.sess.Resumable(c.ctx)
	if err != nil || len(list) == 0 {
		c.ui.Notify(tui.LevelWarning, cmp.Or(c.sess.Notes(c.ctx).NoResume, "no sessions to resume"))
		return
	}
	labels := make([]string, len(list))
	for i, r := range list {
		labels[i] = resumeLabel(r)
	}
	search := newResumeSearch(c.ctx, c.sess, list)
	i, err := c.ui.SelectSearch(c.ctx, "Resume which session?", labels, search.query)
	search.stop()
	if err != nil {
		return
	}
	sw, err := c.sess.Resume(c.ctx, list[i])
	c.switched("resumed session", sw, err)
}

// resumeLabel is a row of /resume: when, the name (else the user's first words, not the
// context block) after its mark (a child below its parent), how many messages and, for
// another folder's session, where.
func resumeLabel(r Resumable) string {
	title := cmp.Or(r.Name, session.Title(r.FirstPrompt, 80), r.ID)
	label := r.Modified.Format("2006-01-02 15:04") + "  " + r.Mark + title
	if r.Counted {
		label += fmt.Sprintf(" · %d message%s", r.Messages, map[bool]string{true: "s"}[r.Messages != 1])
	}
	if r.Cwd != "" {
		label += " · " + r.Cwd
	}
	return label
}

// Tree is /tree: pick a point of the session tree, say whether to summarise the branch being
// left, and continue from there.
func (c *Controller) Tree() {
	rows, i, ok := c.pickTreeRow("Continue from which point? (● is where you are)")
	if !ok {
		return
	}
	if rows[i].Current {
		// The marked row may stand for a hidden leaf (a model change recorded at resume);
		// moving onto it would drop that entry from the path for nothing.
		c.ui.Notify(tui.LevelInfo, "already there")
		return
	}
	summarize, focus, ok := c.askBranchSummary(rows[i].ID)
	if !ok {
		return
	}
	c.navigate(rows[i].ID, summarize, focus)
}

// pickTreeRow shows the session tree in a picker, opened on where the conversation is.
func (c *Controller) pickTreeRow(title string) ([]session.TreeRow, int, bool) {
	entries, leaf, err := c.sess.Tree(c.ctx)
	if err != nil {
		c.ui.Notify(tui.LevelError, err.Error())
		return nil, 0, false
	}
	rows := session.TreeRows(entries, leaf)
	if len(rows) == 0 {
		c.ui.Notify(tui.LevelWarning, "the session is empty: nothing to pick yet")
		return nil, 0, false
	}
	texts, current := session.RowTexts(rows)
	i, err := c.ui.SelectFrom(c.ctx, title, texts, current)
	return rows, i, err == nil
}

// askBranchSummary offers a summary of what the move leaves behind, when it leaves messages;
// ok is false when the user cancelled.
func (c *Controller) askBranchSummary(targetID string) (summarize bool, focus string, ok bool) {
	if leaves, err := c.sess.LeavesConversation(c.ctx, targetID); err == nil && !leaves {
		return false, "", true
	}
	choice, err := c.ui.Select(c.ctx, "Summarise the branch you are leaving?",
		[]string{"No summary", "Summarise it", "Summarise it with a focus…"})
	if err != nil {
		return false, "", false
	}
	if choice == 2 {
		if focus, err = c.ui.Input(c.ctx, "What should the summary focus on?"); err != nil {
			return false, "", false
		}
	}
	return choice > 0, focus, true
}

// navigate carries out the move and shows the conversation now in force. While the summary
// is written the screen shows it is working, so Escape reaches the session's Abort.
func (c *Controller) navigate(targetID string, summarize bool, focus string) {
	release := func() {}
	if summarize {
		release = c.sess.Hold()
		c.ui.SetStatus("Summarising the branch… (esc to cancel)")
	}
	text, err := c.sess.NavigateTree(c.ctx, targetID, summarize, focus)
	if summarize {
		c.ui.SetStatus("")
	}
	release()
	switch {
	case errors.Is(err, context.Canceled) && c.ctx.Err() == nil:
		c.ui.Notify(tui.LevelInfo, "branch summary cancelled: the conversation stays where it was")
		return
	case err != nil:
		c.ui.Notify(tui.LevelError, err.Error())
		return
	}
	c.ui.Notify(tui.LevelInfo, "moved in the session tree; the conversation now reads:")
	c.sess.ShowSession(c.ctx)
	if text != "" {
		c.ui.SetEditorText(text)
	}
}

// label is /label: name an entry of the session tree (an empty name clears it).
func (c *Controller) label(string) {
	rows, i, ok := c.pickTreeRow("Label which entry?")
	if !ok {
		return
	}
	label, err := c.ui.Input(c.ctx, "Label (empty to clear)")
	if err != nil {
		return
	}
	if err := c.sess.SetLabel(c.ctx, rows[i].ID, label); err != nil {
		c.ui.Notify(tui.LevelError, err.Error())
		return
	}
	c.ui.Notify(tui.LevelInfo, "labelled")
}
