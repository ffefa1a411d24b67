package remote

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"pi/provider"
	"pi/tui"
)

// commands.go is what `pi attach` does beyond protocol v1, through the server's pi_rpc:
// slash commands, follow-ups and !commands, each one of pi's RPC commands run on the
// session.

// commands are the slash commands an attached terminal offers; the session's scripts' own
// join them once listed (loadCommands).
func commands() []tui.Command {
	return []tui.Command{
		{Name: "model", Description: "pick the model"},
		{Name: "settings", Description: "change the session's settings and this screen's (saved)"},
		{Name: "scoped-models", Description: "the models Ctrl+P cycles through", ArgHint: "[patterns]"},
		{Name: "compact", Description: "summarise the conversation to free context", ArgHint: "[instructions]"},
		{Name: "new", Description: "start a new session in pi serve and attach to it"},
		{Name: "clone", Description: "copy this session and go on in the copy"},
		{Name: "tree", Description: "continue from another point of this session"},
		{Name: "label", Description: "label an entry of the session tree"},
		{Name: "fork", Description: "start a new session from an earlier message"},
		{Name: "resume", Description: "attach to another session of pi serve"},
		{Name: "name", Description: "name the session", ArgHint: "<name>"},
		{Name: "export", Description: "write the session as HTML", ArgHint: "[file]"},
		{Name: "session", Description: "the session's file, messages and tokens"},
		{Name: "copy", Description: "copy the last reply to the clipboard"},
		{Name: "hotkeys", Description: "show the keys"},
		{Name: "reload", Description: "load the session's Lua scripts again, on the server"},
		{Name: "trust", Description: "whose decision it is whether this project's .pi/init.lua runs"},
		{Name: "detach", Description: "leave the session running in pi serve"},
	}
}

// builtins are what the commands do; name is the command, args what follows it.
func (v *view) builtins() map[string]func(args string) error {
	return map[string]func(string) error{
		"model":         func(string) error { v.pickModel(); return nil },
		"settings":      func(string) error { v.settings(); return nil },
		"scoped-models": v.scopedModels,
		"compact": func(args string) error {
			_, err := v.rpcShown("compact", map[string]any{"customInstructions": args}, "compacted")
			return err
		},
		"new": func(string) error {
			return v.switchTo(map[string]any{"command": "create", "cwd": v.sessionCwd()}, "new session")
		},
		"clone":   func(string) error { _, err := v.rpc("clone", nil); return err },
		"tree":    func(string) error { v.tree(); return nil },
		"label":   func(string) error { return v.label() },
		"fork":    func(string) error { v.fork(); return nil },
		"resume":  func(string) error { return v.resume() },
		"name":    func(args string) error { _, err := v.rpc("set_session_name", map[string]any{"name": args}); return err },
		"export":  v.export,
		"session": func(string) error { v.stats(); return nil },
		"copy":    func(string) error { return v.copyLast() },
		"hotkeys": func(string) error { v.ui.Notify(tui.LevelInfo, v.keys.Help()+v.ui.ShortcutHelp()); return nil },
		"detach":  func(string) error { v.cancel(); return nil },
		"reload":  func(string) error { return v.reload() },
		"trust":   func(string) error { v.ui.Notify(tui.LevelInfo, v.trustNote()); return nil },
	}
}

// command runs one slash command. Any other /name goes to the session as typed, where its
// scripts' commands (and skills) pick it up, steering while the session works, as the local
// terminal UI does.
func (v *view) command(name, args string) {
	if name == "quit" || name == "exit" {
		name = "detach"
	}
	run, ok := v.builtins()[name]
	if !ok {
		run = func(args string) error {
			_, err := v.rpc("prompt", map[string]any{"message": strings.TrimSpace("/" + name + " " + args), "streamingBehavior": "steer"})
			return err
		}
	}
	if err := run(args); err != nil {
		v.ui.Notify(tui.LevelError, "/"+name+": "+err.Error())
	}
}

// loadCommands offers the session's scripts' commands with the terminal's own.
func (v *view) loadCommands() {
	if !v.c.HasPi() {
		return
	}
	data, err := v.rpc("get_commands", nil)
	if err != nil {
		return
	}
	cmds := commands()
	list, _ := data["commands"].([]any)
	for _, c := range list {
		m, _ := c.(map[string]any)
		if name := str(m["name"]); name != "" {
			cmds = append(cmds, tui.Command{Name: name, Description: str(m["description"])})
		}
	}
	v.ui.SetCommands(cmds)
	v.loadShortcuts()
}

// loadShortcuts binds the session's scripts' shortcut keys on this screen, with this
// machine's keymap (a key one of its actions has stays the action's, as locally); pressing
// one runs the script on the server.
func (v *view) loadShortcuts() {
	data, err := v.rpc("get_shortcuts", nil)
	if err != nil {
		return // an older pi serve: no shortcuts
	}
	var scs []tui.Shortcut
	list, _ := data["shortcuts"].([]any)
	for _, s := range list {
		m, _ := s.(map[string]any)
		if key := str(m["key"]); key != "" {
			scs = append(scs, tui.Shortcut{Key: key, Description: str(m["description"])})
		}
	}
	v.ui.SetShortcuts(scs)
}

// shortcut runs the script shortcut bound to key, on the server.
func (v *view) shortcut(key string) {
	if _, err := v.rpc("run_shortcut", map[string]any{"key": key}); err != nil {
		v.ui.Notify(tui.LevelError, key+": "+err.Error())
	}
}

// reload loads the served session's scripts again on the server, then lists their commands
// and shortcuts afresh.
func (v *view) reload() error {
	if _, err := v.rpc("reload", nil); err != nil {
		return err
	}
	v.loadCommands()
	v.ui.Notify(tui.LevelInfo, "scripts reloaded on the server")
	return nil
}

// trustNote says where trust is decided: pi serve runs a project's .pi/init.lua when the
// server's machine trusts the session's folder, so it is changed there.
func (v *view) trustNote() string {
	cwd := cmp.Or(v.sessionCwd(), "the session's folder")
	return "Whether " + cwd + "/.pi/init.lua runs is pi serve's decision, not this terminal's. " +
		"To change it, run `pi trust " + cwd + "` (or `pi untrust`) on the server's machine, then /reload here."
}

func (v *view) export(path string) error {
	data, err := v.rpc("export_html", map[string]any{"outputPath": path})
	if err == nil {
		v.ui.Notify(tui.LevelInfo, "exported to "+str(data["path"]))
	}
	return err
}

func (v *view) copyLast() error {
	data, err := v.rpc("get_last_assistant_text", nil)
	text, ok := data["text"].(string)
	switch {
	case err != nil:
		return err
	case !ok:
		v.ui.Notify(tui.LevelWarning, "no reply to copy yet")
		return nil
	}
	if err := v.ui.SetClipboard(text); err != nil {
		return err
	}
	v.ui.Notify(tui.LevelInfo, "copied the last reply")
	return nil
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

// followUp queues text (and pictures) for when the agent has finished.
func (v *view) followUp(text string, imgs []provider.Block) {
	if name, args, _ := strings.Cut(strings.TrimPrefix(text, "/"), " "); strings.HasPrefix(text, "/") && v.builtins()[name] != nil {
		v.command(name, strings.TrimSpace(args)) // the terminal's own command, as the local UI does
		return
	}
	f := map[string]any{"message": text}
	if len(imgs) > 0 {
		f["images"] = imgs
	}
	if _, err := v.rpc("follow_up", f); err != nil {
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
	v.mu.Unlock()
	v.showWorking()
}
