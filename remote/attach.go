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
	"pi/termui"
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
	v := newView(ctx, cancel, c, snap, piHome)
	opts, problem := screenOptions(piHome, snap.Cwd)
	ctrl := termui.New(ctx, v, opts.Keys, nil)
	if c.HasPi() {
		opts.Commands = ctrl.Builtins()
	}
	err = tui.Run(ctx, ctrl.Callbacks(), opts, func(ui *tui.App) {
		v.ui = ui
		v.show(snap)
		ui.Notify(tui.LevelInfo, "pi attach · session "+v.id+" · enter send · alt+enter follow-up · esc abort · ctrl+d detach (the run goes on)")
		if problem != "" {
			ui.Notify(tui.LevelWarning, problem)
		}
		go v.follow()
		ctrl.Start(ui)
	})
	id := v.session()
	c.Detach(context.WithoutCancel(ctx), id)
	if err != nil {
		fmt.Fprintln(stderr, "pi attach:", err)
		return 1
	}
	fmt.Fprintln(stderr, "pi attach: detached from", id, "(re-attach: pi attach "+id+")")
	return 0
}

// open attaches to the session ref names, or picks one; it returns the session's snapshot.
func open(ctx context.Context, c *server.Client, ref string) (*server.SessionSnapshot, error) {
	list, err := c.List(ctx)
	if err != nil {
		return nil, err
	}
	wd, _ := os.Getwd()
	id, err := pick(list, ref, wd)
	if err != nil {
		return nil, err
	}
	if id == "" {
		return c.Create(ctx, wd)
	}
	return c.Attach(ctx, id)
}

// pick finds the session whose id starts with ref; without ref, the most recently updated
// one working in wd ("" when it has none).
func pick(list []server.SessionMetadata, ref, wd string) (string, error) {
	if ref == "" {
		var here []server.SessionMetadata
		for _, s := range list {
			if s.Cwd == wd {
				here = append(here, s)
			}
		}
		sort.SliceStable(here, func(i, j int) bool { return here[i].UpdatedAt > here[j].UpdatedAt })
		if len(here) == 0 {
			return "", nil
		}
		return here[0].ID, nil
	}
	var ids []string
	for _, s := range list {
		if strings.HasPrefix(s.ID, ref) {
			ids = append(ids, s.ID)
		}
	}
	switch len(ids) {
	case 0:
		return "", fmt.Errorf("no session of pi serve starts with %q", ref)
	case 1:
		return ids[0], nil
	}
	return "", fmt.Errorf("session id prefix %q is ambiguous: %s", ref, strings.Join(ids, ", "))
}

// view is the screen of one attached session, and the session as termui sees it.
type view struct {
	c      *server.Client
	ctx    context.Context
	cancel context.CancelFunc
	ui     *tui.App
	piHome string // this machine's, for pi.toml

	// workingMu orders showWorking's calls: each reads the state and shows it before the
	// next reads, so a stale "working" cannot land after a newer "idle".
	workingMu sync.Mutex
	mu        sync.Mutex
	id        string                  // the session; a fork moves it
	snap      *server.SessionSnapshot // its latest snapshot
	partial   *provider.Message       // the reply being streamed
	models    []server.ModelMetadata  // the server's, from its snapshots
	foot      tui.FooterInfo
	steer     []string
	followUps []string                      // follow-ups, from queue_update
	dialogs   map[string]context.CancelFunc // the scripts' questions on screen, by id
	bashing   atomic.Int64                  // holds: !commands, compactions, summaries running
}

func newView(ctx context.Context, cancel context.CancelFunc, c *server.Client, snap *server.SessionSnapshot, piHome string) *view {
	v := &view{c: c, ctx: ctx, cancel: cancel, id: snap.ID, snap: snap, piHome: piHome}
	if st, err := c.ServerState(); err == nil {
		v.models = st.Models
	}
	return v
}

func (v *view) session() string {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.id
}

// current is the session's latest snapshot.
func (v *view) current() *server.SessionSnapshot {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.snap
}

// follow applies the server's events to the screen until the connection ends.
func (v *view) follow() {
	for m := range v.c.Events() {
		ev, err := server.ReadEvent(m)
		if err != nil {
			continue // an event this client cannot read changes nothing it shows
		}
		id := v.session()
		switch {
		case ev.Server != nil:
			v.mu.Lock()
			v.models = ev.Server.Models
			v.mu.Unlock()
		case ev.Session != nil && ev.Session.ID == id:
			v.state(ev.Session)
		case ev.Progress != nil && ev.SessionID == id:
			v.progress(ev.Progress)
		case ev.Type == "pi_event" && ev.SessionID == id:
			v.piEvent(ev.Line)
		}
	}
	if v.ctx.Err() == nil {
		v.ui.Notify(tui.LevelError, "the connection to pi serve ended; ctrl+d to leave")
	}
}

// state shows what a snapshot says besides the transcript: working or not, the queue.
func (v *view) state(snap *server.SessionSnapshot) {
	steer := make([]string, 0, len(snap.QueuedSteer))
	for _, q := range snap.QueuedSteer {
		m := q.Message()
		steer = append(steer, m.TextContent())
	}
	v.mu.Lock()
	if snap.ID == v.id {
		v.snap = snap
	}
	v.steer = steer
	follow := v.followUps
	if snap.Phase == "idle" {
		follow, v.followUps = nil, nil
	}
	v.foot = v.footerOfLocked(snap)
	foot := v.foot
	v.mu.Unlock()
	v.showWorking()
	v.ui.SetQueue(steer, follow)
	v.ui.SetFooter(foot)
}

// showWorking shows the screen working while the session is not idle or a hold is on.
func (v *view) showWorking() {
	v.workingMu.Lock()
	defer v.workingMu.Unlock()
	snap := v.current()
	v.ui.SetWorking(snap != nil && snap.Phase != "idle" || v.bashing.Load() > 0)
}

// show draws a whole transcript: the one the session has when the client attaches, or
// switches to it.
func (v *view) show(snap *server.SessionSnapshot) {
	for _, item := range snap.Transcript {
		switch item.Role {
		case "user":
			v.ui.AddUserMessage(userText(item))
		case "assistant":
			m := item.Message()
			if item.Status == "streaming" {
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
			if item.Status != "running" {
				v.toolFinished(item)
			}
		}
	}
	v.state(snap)
}
