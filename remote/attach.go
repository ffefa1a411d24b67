package remote

import (
	"context"

	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"sync"

	"pi/provider"
	"pi/server"
	"pi/tui"
)

// Attach is `pi attach [--socket PATH] [SESSION]`: SESSION is an id or its start; without
// one, the most recently active session of this folder, else a new one. It returns the exit
// code.
func Attach(ctx context.Context, args []string, piHome string, stderr io.Writer) int {
	cmd, rest, err := server.ParseCommand(args, piHome)
	if err == nil && len(rest) > 1 {
		err = fmt.Errorf("pi attach takes one session id, not %q", strings.Join(rest, " "))
	}
	if err != nil {
		fmt.Fprintln(stderr, "pi attach:", err)
		return 2
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	c, err := server.DialToken(ctx, cmd.Socket, cmd.Token)
	if err != nil {
		fmt.Fprintln(stderr, "pi attach:", err)
		return 1
	}
	defer c.Close()
	ref := ""
	if len(rest) == 1 {
		ref = rest[0]
	}
	snap, err := open(ctx, c, ref)
	if err != nil {
		fmt.Fprintln(stderr, "pi attach:", err)
		return 1
	}
	v := &view{c: c, ctx: ctx, id: str(snap["id"]), cancel: cancel}
	err = tui.Run(ctx, v.callbacks(), tui.Options{Cwd: str(snap["cwd"])}, func(ui *tui.App) {
		v.ui = ui
		v.show(snap)
		ui.Notify(tui.LevelInfo, "pi attach · session "+v.id+" · enter send · esc abort · ctrl+d detach (the run goes on)")
		go v.follow()
	})
	c.Request(context.WithoutCancel(ctx), map[string]any{"command": "detach", "sessionId": v.id})
	if err != nil {
		fmt.Fprintln(stderr, "pi attach:", err)
		return 1
	}
	fmt.Fprintln(stderr, "pi attach: detached from", v.id, "(re-attach: pi attach "+v.id+")")
	return 0
}

// open attaches to the session ref names, or picks one; it returns the session's snapshot.
func open(ctx context.Context, c *server.Client, ref string) (map[string]any, error) {
	res, err := c.Request(ctx, map[string]any{"command": "list"})
	if err != nil {
		return nil, err
	}
	list, _ := res["sessions"].([]any)
	id, err := pick(list, ref)
	if err != nil {
		return nil, err
	}
	cmd := map[string]any{"command": "attach", "sessionId": id}
	if id == "" {
		wd, _ := os.Getwd()
		cmd = map[string]any{"command": "create", "cwd": wd}
	}
	if res, err = c.Request(ctx, cmd); err != nil {
		return nil, err
	}
	snap, _ := res["session"].(map[string]any)
	return snap, nil
}

// pick finds the session whose id starts with ref; without ref, this folder's most recently
// updated one ("" when it has none).
func pick(list []any, ref string) (string, error) {
	var ids []string
	wd, _ := os.Getwd()
	type cand struct {
		id      string
		updated int64
	}
	var here []cand
	for _, v := range list {
		m, _ := v.(map[string]any)
		id := str(m["id"])
		if ref != "" && strings.HasPrefix(id, ref) {
			ids = append(ids, id)
		}
		if ref == "" && str(m["cwd"]) == wd {
			u, _ := m["updatedAt"].(int64)
			here = append(here, cand{id, u})
		}
	}
	if ref == "" {
		sort.Slice(here, func(i, j int) bool { return here[i].updated > here[j].updated })
		if len(here) == 0 {
			return "", nil
		}
		return here[0].id, nil
	}
	switch len(ids) {
	case 0:
		return "", fmt.Errorf("no session of pi serve starts with %q", ref)
	case 1:
		return ids[0], nil
	}
	return "", fmt.Errorf("session id prefix %q is ambiguous: %s", ref, strings.Join(ids, ", "))
}

// view is the screen of one attached session.
type view struct {
	c      *server.Client
	ctx    context.Context
	cancel context.CancelFunc
	id     string
	ui     *tui.App

	mu      sync.Mutex
	partial *provider.Message // the reply being streamed
}

func (v *view) callbacks() tui.Callbacks {
	send := func(command, text string) {
		go func() {
			_, err := v.c.Request(v.ctx, map[string]any{"command": command, "sessionId": v.id, "text": text})
			if err != nil && v.ctx.Err() == nil {
				v.ui.Notify(tui.LevelError, command+": "+err.Error())
			}
		}()
	}
	unavailable := func(what string) {
		v.ui.Notify(tui.LevelWarning, what+" is not available while attached to pi serve")
	}
	return tui.Callbacks{
		OnSubmit:   func(text string) { send("prompt", text) },
		OnSteer:    func(text string) { send("steer", text) },
		OnFollowUp: func(string) { unavailable("a follow-up") },
		OnAbort: func() {
			go v.c.Request(v.ctx, map[string]any{"command": "abort", "sessionId": v.id})
		},
		OnCommand: func(name, _ string) { unavailable("/" + name) },
		OnBash:    func(string, bool) { unavailable("!command") },
		OnQuit:    v.cancel,
	}
}

// follow applies the server's events to the screen until the connection ends.
func (v *view) follow() {
	for ev := range v.c.Events() {
		switch ev["type"] {
		case "session_snapshot":
			if snap, _ := ev["snapshot"].(map[string]any); str(snap["id"]) == v.id {
				v.state(snap)
			}
		case "session_progress":
			if str(ev["sessionId"]) == v.id {
				p, _ := ev["progress"].(map[string]any)
				v.progress(p)
			}
		}
	}
	if v.ctx.Err() == nil {
		v.ui.Notify(tui.LevelError, "the connection to pi serve ended; ctrl+d to leave")
	}
}

// state shows what a snapshot says besides the transcript: working or not, the queue.
func (v *view) state(snap map[string]any) {
	v.ui.SetWorking(str(snap["phase"]) != "idle")
	var steer []string
	queued, _ := snap["queuedSteer"].([]any)
	for _, q := range queued {
		m, _ := q.(map[string]any)
		steer = append(steer, textOf(m))
	}
	v.ui.SetQueue(steer, nil)
	model, _ := snap["model"].(map[string]any)
	v.ui.SetFooter(tui.FooterInfo{Cwd: str(snap["cwd"]), Session: str(snap["name"]),
		Model: str(model["provider"]) + "/" + str(model["id"]), Thinking: str(snap["thinkingLevel"])})
}

// show draws a whole transcript: the one the session has when the client attaches.
func (v *view) show(snap map[string]any) {
	items, _ := snap["transcript"].([]any)
	for _, it := range items {
		item, _ := it.(map[string]any)
		switch str(item["role"]) {
		case "user":
			v.ui.AddUserMessage(textOf(item))
		case "assistant":
			m := messageOf(item)
			if str(item["status"]) == "streaming" {
				v.mu.Lock()
				v.partial = &m
				v.mu.Unlock()
				v.ui.UpdateAssistant(&m)
				continue
			}
			v.ui.StartAssistant()
			v.ui.EndAssistant(&m)
		case "tool":
			v.toolStarted(item)
			if str(item["status"]) != "running" {
				v.toolFinished(item)
			}
		}
	}
	v.state(snap)
}
