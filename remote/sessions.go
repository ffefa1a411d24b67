package remote

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

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
	texts := make([]string, len(rows))
	current := 0
	for i, r := range rows {
		texts[i] = r.Text
		if r.Current {
			current = i
		}
	}
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

// resume is /resume: attach to another session of pi serve, this folder's first.
func (v *view) resume() error {
	res, err := v.c.Request(v.ctx, map[string]any{"command": "list"})
	if err != nil {
		return err
	}
	list, _ := res["sessions"].([]any)
	here, current := v.sessionCwd(), v.session()
	var metas []map[string]any
	for _, s := range list {
		if m, _ := s.(map[string]any); m != nil && str(m["id"]) != current {
			metas = append(metas, m)
		}
	}
	if len(metas) == 0 {
		v.ui.Notify(tui.LevelWarning, "pi serve has no other session")
		return nil
	}
	sort.SliceStable(metas, func(i, j int) bool {
		hi, hj := str(metas[i]["cwd"]) == here, str(metas[j]["cwd"]) == here
		if hi != hj {
			return hi
		}
		return integer(metas[i]["updatedAt"]) > integer(metas[j]["updatedAt"])
	})
	labels := make([]string, len(metas))
	for i, m := range metas {
		labels[i] = sessionLabel(m, here)
	}
	i, err := v.ui.Select(v.ctx, "Resume which session?", labels)
	if err != nil {
		return nil
	}
	return v.switchTo(map[string]any{"command": "attach", "sessionId": str(metas[i]["id"])}, "resumed session")
}

// sessionLabel is a row of /resume: when, the name (or the id), and the folder if not here.
func sessionLabel(m map[string]any, here string) string {
	title := str(m["sessionName"])
	if title == "" {
		title = str(m["id"])
	}
	label := time.UnixMilli(int64(integer(m["updatedAt"]))).Format("2006-01-02 15:04") + "  " + title
	if cwd := str(m["cwd"]); cwd != here {
		label += " · " + cwd
	}
	return label
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
