package remote

import (
	"context"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

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
	v := &view{c: c, ctx: ctx, id: str(snap["id"]), cancel: cancel, piHome: piHome}
	v.setModels(c.Hello["snapshot"])
	opts, problem := screenOptions(piHome, str(snap["cwd"]))
	v.keys = opts.Keys
	if c.HasPi() {
		opts.Commands = commands()
	}
	err = tui.Run(ctx, v.callbacks(), opts, func(ui *tui.App) {
		v.ui = ui
		v.show(snap)
		ui.Notify(tui.LevelInfo, "pi attach · session "+v.id+" · enter send · alt+enter follow-up · esc abort · ctrl+d detach (the run goes on)")
		if problem != "" {
			ui.Notify(tui.LevelWarning, problem)
		}
		go v.follow()
		go v.loadCommands()
	})
	id := v.session()
	c.Request(context.WithoutCancel(ctx), map[string]any{"command": "detach", "sessionId": id})
	if err != nil {
		fmt.Fprintln(stderr, "pi attach:", err)
		return 1
	}
	fmt.Fprintln(stderr, "pi attach: detached from", id, "(re-attach: pi attach "+id+")")
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
	ui     *tui.App
	keys   *tui.Keymap
	piHome string       // this machine's, for pi.toml
	bangs  atomic.Int64 // !commands run, for their ids on screen

	// workingMu orders showWorking's calls: each reads the state and shows it before the
	// next reads, so a stale "working" cannot land after a newer "idle".
	workingMu sync.Mutex
	mu        sync.Mutex
	id        string            // the session; a fork moves it
	partial   *provider.Message // the reply being streamed
	models    []map[string]any  // the server's, from its snapshots
	foot      tui.FooterInfo
	steer     []string
	followUps []string                      // follow-ups, from queue_update
	phase     string                        // the session's, from its last snapshot
	cwd       string                        // the session's
	dialogs   map[string]context.CancelFunc // the scripts' questions on screen, by id
	bashing   int                           // !commands running
}

func (v *view) session() string {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.id
}

func (v *view) callbacks() tui.Callbacks {
	return tui.Callbacks{
		OnSubmit:   func(text string) { imgs := v.ui.TakeImages(); go v.send(text, imgs, "") },
		OnSteer:    func(text string) { imgs := v.ui.TakeImages(); go v.send(text, imgs, "steer") },
		OnFollowUp: func(text string) { imgs := v.ui.TakeImages(); go v.followUp(text, imgs) },
		OnAbort: func() {
			go v.c.Request(v.ctx, map[string]any{"command": "abort", "sessionId": v.session()})
		},
		OnCommand:  func(name, args string) { go v.command(name, args) },
		OnBash:     func(cmd string, keep bool) { go v.bash(cmd, keep) },
		OnShortcut: func(key string) { go v.shortcut(key) },
		OnQuit:     v.cancel,
		OnKey: func(name string) bool {
			switch name {
			case "model":
				go v.pickModel()
			case "tree":
				go v.tree()
			case "thinking":
				go v.cycleThinking()
			case "cycle-model":
				go v.cycleModel(1)
			case "cycle-model-back":
				go v.cycleModel(-1)
			default:
				return false
			}
			return true
		},
	}
}

// send is Enter: a prompt, or while the session works (how "steer") a steer. Text with
// pictures goes as pi's prompt command, which carries them; v1's prompt carries text only.
func (v *view) send(text string, imgs []provider.Block, how string) {
	var err error
	command := "prompt"
	switch {
	case len(imgs) > 0 && v.c.HasPi():
		_, err = v.rpc("prompt", map[string]any{"message": text, "images": imgs, "streamingBehavior": how})
	case how == "steer":
		command = "steer"
		fallthrough
	default:
		if len(imgs) > 0 {
			v.ui.Notify(tui.LevelWarning, "this pi serve takes no pictures: the text goes alone")
		}
		_, err = v.c.Request(v.ctx, map[string]any{"command": command, "sessionId": v.session(), "text": text})
	}
	if err != nil && v.ctx.Err() == nil {
		v.ui.Notify(tui.LevelError, command+": "+err.Error())
	}
}

// follow applies the server's events to the screen until the connection ends.
func (v *view) follow() {
	for ev := range v.c.Events() {
		id := v.session()
		switch ev["type"] {
		case "server_snapshot":
			v.setModels(ev["snapshot"])
		case "session_snapshot":
			if snap, _ := ev["snapshot"].(map[string]any); str(snap["id"]) == id {
				v.state(snap)
			}
		case "session_progress":
			if str(ev["sessionId"]) == id {
				p, _ := ev["progress"].(map[string]any)
				v.progress(p)
			}
		case "pi_event":
			if str(ev["sessionId"]) == id {
				v.piEvent(str(ev["line"]))
			}
		}
	}
	if v.ctx.Err() == nil {
		v.ui.Notify(tui.LevelError, "the connection to pi serve ended; ctrl+d to leave")
	}
}

// state shows what a snapshot says besides the transcript: working or not, the queue.
func (v *view) state(snap map[string]any) {
	var steer []string
	queued, _ := snap["queuedSteer"].([]any)
	for _, q := range queued {
		m, _ := q.(map[string]any)
		steer = append(steer, textOf(m))
	}
	v.mu.Lock()
	v.phase, v.cwd = str(snap["phase"]), str(snap["cwd"])
	v.steer = steer
	follow := v.followUps
	if str(snap["phase"]) == "idle" {
		follow, v.followUps = nil, nil
	}
	v.foot = v.footerOfLocked(snap)
	foot := v.foot
	v.mu.Unlock()
	v.showWorking()
	v.ui.SetQueue(steer, follow)
	v.ui.SetFooter(foot)
}

// showWorking shows the screen working while the session is not idle or a !command runs.
func (v *view) showWorking() {
	v.workingMu.Lock()
	defer v.workingMu.Unlock()
	v.mu.Lock()
	working := v.phase != "idle" || v.bashing > 0
	v.mu.Unlock()
	v.ui.SetWorking(working)
}

// show draws a whole transcript: the one the session has when the client attaches.
func (v *view) show(snap map[string]any) {
	items, _ := snap["transcript"].([]any)
	for _, it := range items {
		item, _ := it.(map[string]any)
		switch str(item["role"]) {
		case "user":
			v.ui.AddUserMessage(userText(item))
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
