package remote

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"pi/provider"
	"pi/session"
	"pi/tui"
)

// sessions.go moves an attached terminal between sessions and within one: /resume and /new
// attach to another session of pi serve (the one left goes on there), /fork and /tree move
// within the session's tree, /label names an entry of it.

// fork starts a new session from an earlier user message, which comes back for editing.
func (v *view) fork() {
	data, err := v.rpc("get_fork_messages", nil)
	msgs, _ := data["messages"].([]any)
	if err != nil || len(msgs) == 0 {
		v.ui.Notify(tui.LevelWarning, "nothing to fork from yet")
		return
	}
	labels := make([]string, len(msgs))
	for i, m := range msgs {
		labels[i] = strings.ReplaceAll(str(m.(map[string]any)["text"]), "\n", " ")
	}
	i, err := v.ui.Select(v.ctx, "Fork from which message?", labels)
	if err != nil {
		return
	}
	data, err = v.rpc("fork", map[string]any{"entryId": str(msgs[i].(map[string]any)["entryId"])})
	if err != nil {
		v.ui.Notify(tui.LevelError, "/fork: "+err.Error())
		return
	}
	v.ui.SetEditorText(str(data["text"]))
}

// pickTreeRow shows the session tree in a picker, opened on where the conversation is.
func (v *view) pickTreeRow(title string) ([]session.TreeRow, int, bool) {
	data, err := v.rpc("get_tree", nil)
	if err != nil {
		v.ui.Notify(tui.LevelError, err.Error())
		return nil, 0, false
	}
	var entries []session.TreeEntry
	b, _ := json.Marshal(data["entries"])
	json.Unmarshal(b, &entries)
	rows := session.TreeRows(entries, str(data["leafId"]))
	if len(rows) == 0 {
		v.ui.Notify(tui.LevelWarning, "the session is empty: nothing to pick yet")
		return nil, 0, false
	}
	texts, current := session.RowTexts(rows)
	i, err := v.ui.SelectFrom(v.ctx, title, texts, current)
	return rows, i, err == nil
}

// tree moves to another point of the session, with a summary of the branch left if asked.
func (v *view) tree() {
	rows, i, ok := v.pickTreeRow("Continue from which point? (● is where you are)")
	if !ok {
		return
	}
	if rows[i].Current {
		v.ui.Notify(tui.LevelInfo, "already there")
		return
	}
	summarize, focus, ok := v.askBranchSummary(rows[i].ID)
	if !ok {
		return
	}
	if summarize {
		v.setBashing(1) // working, so that Escape reaches the summary
		v.ui.SetStatus("Summarising the branch… (esc to cancel)")
	}
	data, err := v.rpc("navigate_tree", map[string]any{"targetId": rows[i].ID, "summarize": summarize, "customInstructions": focus})
	if summarize {
		v.ui.SetStatus("")
		v.setBashing(-1)
	}
	if err != nil {
		v.ui.Notify(tui.LevelError, "/tree: "+err.Error())
		return
	}
	v.ui.Notify(tui.LevelInfo, "moved; the conversation goes on from there")
	v.ui.SetEditorText(str(data["editorText"]))
}

// askBranchSummary offers a summary of what the move leaves behind, when the session says it
// leaves messages; ok is false when the user cancelled.
func (v *view) askBranchSummary(targetID string) (summarize bool, focus string, ok bool) {
	if data, err := v.rpc("leaves_conversation", map[string]any{"targetId": targetID}); err == nil && data["leaves"] != true {
		return false, "", true
	}
	choice, err := v.ui.Select(v.ctx, "Summarise the branch you are leaving?",
		[]string{"No summary", "Summarise it", "Summarise it with a focus…"})
	if err != nil {
		return false, "", false
	}
	if choice == 2 {
		if focus, err = v.ui.Input(v.ctx, "What should the summary focus on?"); err != nil {
			return false, "", false
		}
	}
	return choice > 0, focus, true
}

// label is /label: name an entry of the session tree (an empty name clears it).
func (v *view) label() error {
	rows, i, ok := v.pickTreeRow("Label which entry?")
	if !ok {
		return nil
	}
	label, err := v.ui.Input(v.ctx, "Label (empty to clear)")
	if err != nil {
		return nil
	}
	_, err = v.rpcShown("set_label", map[string]any{"entryId": rows[i].ID, "label": label}, "labelled")
	return err
}

// resume is /resume: attach to another session of pi serve or of the session's folder on
// this machine (pi serve opens any session file it can find by id), this folder's first.
func (v *view) resume() error {
	res, err := v.c.Request(v.ctx, map[string]any{"command": "list"})
	if err != nil {
		return err
	}
	list, _ := res["sessions"].([]any)
	choices := resumeChoices(v.ctx, list, v.sessionCwd(), v.session(), session.Dir(v.piHome, v.sessionCwd()))
	if len(choices) == 0 {
		v.ui.Notify(tui.LevelWarning, "pi serve has no other session")
		return nil
	}
	labels := make([]string, len(choices))
	for i, c := range choices {
		labels[i] = c.label
	}
	i, err := v.ui.Select(v.ctx, "Resume which session?", labels)
	if err != nil {
		return nil
	}
	return v.switchTo(map[string]any{"command": "attach", "sessionId": choices[i].id}, "resumed session")
}

// choice is a row of /resume.
type choice struct {
	id, label string
	here      bool
	updated   time.Time
}

// resumeChoices are the server's sessions and the session files in dir, but current, this
// folder's first, the latest first.
func resumeChoices(ctx context.Context, list []any, here, current, dir string) []choice {
	files, _ := session.List(ctx, dir) // a folder that is not there (or the server's elsewhere) adds nothing
	byID := map[string]session.Info{}
	for _, in := range files {
		byID[in.ID] = in
	}
	var out []choice
	add := func(id, name, cwd string, updated time.Time) {
		if id == current || slices.ContainsFunc(out, func(c choice) bool { return c.id == id }) {
			return
		}
		title, in := cmp.Or(name, id), byID[id]
		if in.ID != "" {
			title = cmp.Or(name, provider.OneLine(session.WithoutContextBlock(in.FirstPrompt), 80), id) +
				fmt.Sprintf(" · %d messages", in.MessageCount)
		}
		label := updated.Format("2006-01-02 15:04") + "  " + title
		if cwd != here {
			label += " · " + cwd
		}
		out = append(out, choice{id: id, label: label, here: cwd == here, updated: updated})
	}
	for _, s := range list {
		m, _ := s.(map[string]any)
		add(str(m["id"]), str(m["sessionName"]), str(m["cwd"]), time.UnixMilli(int64(integer(m["updatedAt"]))))
	}
	for _, in := range files {
		add(in.ID, in.Name, in.Cwd, in.Modified)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].here != out[j].here {
			return out[i].here
		}
		return out[i].updated.After(out[j].updated)
	})
	return out
}

// switchTo attaches to the session cmd (attach or create) gives, detaches from this one
// (whose run goes on in pi serve) and shows the new one's conversation.
func (v *view) switchTo(cmd map[string]any, what string) error {
	res, err := v.c.Request(v.ctx, cmd)
	if err != nil {
		return err
	}
	snap, _ := res["session"].(map[string]any)
	v.mu.Lock()
	old := v.id
	v.id, v.partial, v.steer, v.followUps = str(snap["id"]), nil, nil, nil
	v.mu.Unlock()
	v.c.Request(v.ctx, map[string]any{"command": "detach", "sessionId": old})
	v.ui.Notify(tui.LevelInfo, fmt.Sprintf("%s: %s (left %s in pi serve)", what, str(snap["id"]), old))
	v.show(snap)
	v.loadCommands()
	return nil
}

func (v *view) sessionCwd() string {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.cwd
}

// stats shows get_session_stats.
func (v *view) stats() {
	data, err := v.rpc("get_session_stats", nil)
	if err != nil {
		v.ui.Notify(tui.LevelError, "/session: "+err.Error())
		return
	}
	tokens, _ := data["tokens"].(map[string]any)
	v.ui.Notify(tui.LevelInfo, fmt.Sprintf("session %s\nfile %s\n%v messages · %v tokens in, %v out · $%.4f",
		str(data["sessionId"]), str(data["sessionFile"]), data["totalMessages"], tokens["input"], tokens["output"], num(data["cost"])))
}

func num(v any) float64 { f, _ := v.(float64); return f }
