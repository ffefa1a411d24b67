package remote

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"pi/provider"
	"pi/session"
	"pi/tui"
)

// commands.go is what `pi attach` does beyond protocol v1, through the server's pi_rpc:
// slash commands, follow-ups and !commands, each one of pi's RPC commands run on the
// session.

// commands are the slash commands an attached terminal offers.
func commands() []tui.Command {
	return []tui.Command{
		{Name: "model", Description: "pick the model"},
		{Name: "compact", Description: "summarise the conversation to free context", ArgHint: "[instructions]"},
		{Name: "tree", Description: "continue from another point of this session"},
		{Name: "fork", Description: "start a new session from an earlier message"},
		{Name: "name", Description: "name the session", ArgHint: "<name>"},
		{Name: "export", Description: "write the session as HTML", ArgHint: "[file]"},
		{Name: "session", Description: "the session's file, messages and tokens"},
		{Name: "detach", Description: "leave the session running in pi serve"},
	}
}

// command runs one slash command.
func (v *view) command(name, args string) {
	var err error
	switch name {
	case "model":
		v.pickModel()
	case "compact":
		_, err = v.rpcShown("compact", map[string]any{"customInstructions": args}, "compacted")
	case "tree":
		v.tree()
	case "fork":
		v.fork()
	case "name":
		_, err = v.rpc("set_session_name", map[string]any{"name": args})
	case "export":
		var data map[string]any
		if data, err = v.rpc("export_html", map[string]any{"outputPath": args}); err == nil {
			v.ui.Notify(tui.LevelInfo, "exported to "+str(data["path"]))
		}
	case "session":
		v.stats()
	case "detach", "quit", "exit":
		v.cancel()
	default:
		v.ui.Notify(tui.LevelWarning, "/"+name+" is not available while attached to pi serve")
	}
	if err != nil {
		v.ui.Notify(tui.LevelError, "/"+name+": "+err.Error())
	}
}

// rpc runs one of pi's RPC commands on the session and returns its data. A command that
// moved the session (fork) leaves the view on the new one.
func (v *view) rpc(name string, fields map[string]any) (map[string]any, error) {
	if !v.c.HasPi() {
		return nil, errors.New("this pi serve does not run pi's commands (it is too old, or not pi)")
	}
	cmd := map[string]any{"type": name, "id": "attach"}
	for k, val := range fields {
		cmd[k] = val
	}
	line, err := json.Marshal(cmd)
	if err != nil {
		return nil, err
	}
	raw, snap, err := v.c.RPC(v.ctx, v.session(), line)
	if err != nil {
		return nil, err
	}
	var resp struct {
		Success bool           `json:"success"`
		Error   string         `json:"error"`
		Data    map[string]any `json:"data"`
	}
	if err := json.Unmarshal(raw, &resp); err != nil {
		return nil, fmt.Errorf("the answer to %s: %w", name, err)
	}
	if !resp.Success {
		return nil, errors.New(resp.Error)
	}
	if id := str(snap["id"]); id != "" && id != v.session() {
		v.mu.Lock()
		v.id = id
		v.mu.Unlock()
		v.ui.Notify(tui.LevelInfo, "now in session "+id)
		v.show(snap)
	}
	return resp.Data, nil
}

// rpcShown is rpc with a notice when it worked.
func (v *view) rpcShown(name string, fields map[string]any, done string) (map[string]any, error) {
	data, err := v.rpc(name, fields)
	if err == nil {
		v.ui.Notify(tui.LevelInfo, done)
	}
	return data, err
}

// followUp queues text for when the agent has finished.
func (v *view) followUp(text string) {
	if _, err := v.rpc("follow_up", map[string]any{"message": text}); err != nil {
		v.ui.Notify(tui.LevelError, "follow-up: "+err.Error())
	}
}

// bash is !cmd (keep: its output goes into the context) and !!cmd, run in the session's
// folder on the server's machine.
func (v *view) bash(cmd string, keep bool) {
	id := fmt.Sprintf("bang-%d", v.bangs.Add(1))
	v.setBashing(1) // working, so that Escape reaches the command and a run's end leaves it open
	defer v.setBashing(-1)
	v.ui.ToolStart(id, "bash", map[string]any{"command": cmd})
	data, err := v.rpc("bash", map[string]any{"command": cmd, "excludeFromContext": !keep})
	text := str(data["output"])
	code, hasCode := data["exitCode"].(float64)
	failed := err != nil || data["cancelled"] == true || !hasCode || code != 0
	switch {
	case err != nil:
		text = err.Error()
	case data["cancelled"] == true:
		text += "\n(cancelled)"
	case hasCode && code != 0:
		text += fmt.Sprintf("\n(exit code %d)", int(code))
	}
	v.ui.ToolEnd(id, []provider.Block{provider.Text(strings.TrimLeft(text, "\n"))}, nil, failed)
}

// setBashing counts the !commands running; the screen shows work while there are any.
func (v *view) setBashing(d int) {
	v.mu.Lock()
	v.bashing += d
	working := v.bashing > 0 || v.phase != "idle"
	v.mu.Unlock()
	v.ui.SetWorking(working)
}

// pickModel offers the server's models and sets the one chosen.
func (v *view) pickModel() {
	models := v.modelList()
	if len(models) == 0 {
		v.ui.Notify(tui.LevelWarning, "pi serve lists no models")
		return
	}
	labels := make([]string, len(models))
	current := 0
	for i, m := range models {
		labels[i] = str(m["provider"]) + "/" + str(m["id"])
		if labels[i] == v.footer().Model {
			current = i
		}
	}
	i, err := v.ui.SelectFrom(v.ctx, "Select a model", labels, current)
	if err != nil || i == current && labels[i] == v.footer().Model {
		return
	}
	_, err = v.c.Request(v.ctx, map[string]any{"command": "set_model", "sessionId": v.session(),
		"model": map[string]any{"provider": str(models[i]["provider"]), "id": str(models[i]["id"])}})
	if err != nil {
		v.ui.Notify(tui.LevelError, "set_model: "+err.Error())
	}
}

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

// tree moves to another point of the session, with a summary of the branch left if asked.
func (v *view) tree() {
	data, err := v.rpc("get_tree", nil)
	if err != nil {
		v.ui.Notify(tui.LevelError, "/tree: "+err.Error())
		return
	}
	var entries []session.TreeEntry
	b, _ := json.Marshal(data["entries"])
	json.Unmarshal(b, &entries)
	rows := session.TreeRows(entries, str(data["leafId"]))
	if len(rows) == 0 {
		v.ui.Notify(tui.LevelWarning, "the session is empty: nothing to pick yet")
		return
	}
	texts := make([]string, len(rows))
	current := 0
	for i, r := range rows {
		texts[i] = r.Text
		if r.Current {
			current = i
		}
	}
	i, err := v.ui.SelectFrom(v.ctx, "Continue from which point? (● is where you are)", texts, current)
	if err != nil || rows[i].Current {
		return
	}
	choice, err := v.ui.Select(v.ctx, "Summarise the branch you are leaving?",
		[]string{"No summary", "Summarise it", "Summarise it with a focus…"})
	if err != nil {
		return
	}
	focus := ""
	if choice == 2 {
		if focus, err = v.ui.Input(v.ctx, "What should the summary focus on?"); err != nil {
			return
		}
	}
	data, err = v.rpc("navigate_tree", map[string]any{"targetId": rows[i].ID, "summarize": choice > 0, "customInstructions": focus})
	if err != nil {
		v.ui.Notify(tui.LevelError, "/tree: "+err.Error())
		return
	}
	v.ui.Notify(tui.LevelInfo, "moved; the conversation goes on from there")
	v.ui.SetEditorText(str(data["editorText"]))
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
