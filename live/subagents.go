package live

// subagents.go builds the children of the Agent tools (package subagent): each is one more
// live session in this process, on the parent's provider and model unless the call names others,
// with its session file in the parent's folder and the parent named in its header.

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"pi/internal/sandbox"
	"pi/packages"
	"pi/provider"
	"pi/session"
	"pi/subagent"
)

func newSubagents(o *Options, p parts, parent *Session) subagent.Scripted {
	warn := p.stderr
	if o.Child != nil { // its warnings would repeat the parent's
		warn = io.Discard
	}
	trusted := ProjectTrusted(o.Trust, p.piHome, p.cwd)
	types, _ := subagent.LoadTypes(p.piHome, p.cwd, trusted, packages.Enabled(p.piHome, p.cwd, trusted, o.NoExtensions), warn)
	tree, depth := subagent.NewTree(p.cfg.Subagents.MaxDepth, p.cfg.Subagents.MaxChildren), 0
	if o.Child != nil { // the top-level session's limits, never a child's own configuration
		tree, depth = o.Child.Tree, o.Child.Depth
	}
	sessions := cmp.Or(o.Session.Dir, p.cfg.SessionDir, session.Dir(p.piHome, p.cwd)) // where a session_file may be
	m := subagent.New(subagent.Options{Types: types, Cwd: p.cwd, SessionsDir: sessions, MaxConcurrent: p.cfg.Subagents.MaxConcurrent,
		Tree: tree, Depth: depth, Scheduling: p.cfg.Subagents.SchedulingOn() && o.Child == nil, Clock: o.Clock,
		ScheduleFailed: func(s subagent.Scheduled) { parent.notifyChildren(subagent.ScheduleNotice(s)) },
		Factory: func(ctx context.Context, l subagent.Launch) (subagent.Child, error) {
			return startChild(ctx, *o, p, parent, l)
		},
		Finished: func(r subagent.Result) { parent.notifyChildren(subagent.Notice(r)) }})
	return subagent.NewScripted(m, p.cfg.Subagents.On(), append(append([]string(nil), o.Tools...), p.cfg.Tools...), o.Child)
}

// notifyChildren tells the session about its children (a background child's end, a schedule's
// run that could not start): a steer while it works, else a follow-up that starts a turn. It
// is the session's own word, not the user's: a custom message of type subagent.NoticeType.
func (h *Session) notifyChildren(text string) {
	in := Input{Text: text, Source: SourceExtension, Deliver: DeliverFollowUp, CustomType: subagent.NoticeType}
	if h.Busy() {
		in.Deliver = DeliverSteer
	}
	h.scriptSends.add()                                            // print mode waits for the turn it starts
	go func() { defer h.scriptSends.done(); h.Send(h.life, in) }() //nolint:errcheck // a closed parent needs no notice
}

// restoreSchedules sets the Agent tool's schedules that s keeps (when scheduling is on) and
// keeps their later changes in s; the previous session's stop.
func (h *Session) restoreSchedules(s *session.Session) {
	m := h.scripts.children
	if m == nil || !m.Scheduling() {
		return
	}
	list, err := subagent.LoadSchedules(s)
	problems := m.RestoreSchedules(list, func(l []subagent.Scheduled) error { return subagent.SaveSchedules(s, l) })
	for _, p := range append([]error{err}, problems...) {
		if p != nil {
			fmt.Fprintln(h.stderr, "pi: warning:", p)
		}
	}
}

func startChild(ctx context.Context, o Options, p parts, parent *Session, l subagent.Launch) (subagent.Child, error) {
	m, sess := parent.agent.Model(), parent.rec.session()
	c := subagent.NewSessionChild(l)
	o.Cwd, o.Session.Continue, o.Session.Ref, o.Session.Fork, o.Child = l.Cwd, false, l.SessionFile, "", c.Self(o.Child, parent.scripts.children.Tree())
	o.Model, o.Thinking = cmp.Or(l.Model, m.Provider+"/"+m.ID), cmp.Or(l.Thinking, parent.agent.Thinking())
	o.Session.Parent, o.Session.Dir, o.Session.InMemory = sess.Path(), filepath.Dir(sess.Path()), sess.Path() == ""
	o.SystemPrompt, o.NoTools = cmp.Or(l.Type.Prompt, o.SystemPrompt), false
	o.Tools = subagent.ChildTools(l.Type, toolNames(parent.agent.State().Tools))
	o.InheritedTools = l.Type.Tools == nil
	o.NoContextFiles, o.NoExtensions = o.NoContextFiles || l.Isolated, o.NoExtensions || l.Isolated
	p.stopAfter = func(context.Context, *provider.Message, []provider.Message) bool { return c.StopAfterTurn() }
	var err error
	if p.sandbox != nil && parent.scripts.rt != nil {
		p.loadedScripts = parentScripts(parent.scripts.rt.Sources(), p.cwd, l.Cwd)
	}
	if l.Cwd != p.cwd && p.sandbox != nil { // a worktree child's commands may write in its worktree, not in the parent's project
		if p.sandbox, _, err = sandbox.New(p.cfg.Sandbox, l.Cwd, sandbox.Options{Mode: o.Sandbox}); err != nil {
			return nil, err
		}
	}
	switch p.cwd, p.provider, p.model, p.thinking = l.Cwd, parent.agent.Provider(), m, o.Thinking; {
	case l.Model != "" && m.Provider == "faux": // the scripted model plays every part
		p.model.ID = strings.TrimPrefix(l.Model, "faux/")
	case l.Model != "":
		if p.provider, p.model, _, err = resolveProvider(ctx, &o, p.cfg); err != nil {
			return nil, err
		}
	}
	if l.InheritContext && l.SessionFile == "" { // its session opens with the parent's conversation, compacted to fit
		o.Session.Ref = c.Inherit(ctx, subagent.Inheritance{Messages: parent.agent.MessagesView(), Dir: o.Session.Dir, Cwd: l.Cwd,
			Parent: o.Session.Parent, Compactor: session.Compactor{Provider: p.provider, Model: p.model, Settings: parent.settings.compactionSettings()}})
	}
	o.Interactive, o.Prewarm = false, false
	h, err := setupScripts(ctx, &o, p)
	if err != nil {
		return nil, err
	}
	h.agent.Subscribe(c.Forward(parent.agent.Emit))
	h.scripts.parent, h.scripts.childID = parent.scripts, l.ID
	c.Attach(subagent.Session{Close: h.close, Messages: h.agent.MessagesView, Path: h.rec.session().Path,
		Send: func(ctx context.Context, text string) error {
			return h.Send(ctx, Input{Text: text, Source: SourceExtension})
		},
		Steer: func(text string) error {
			return h.Send(h.life, Input{Text: text, Source: SourceExtension, Deliver: DeliverSteer, Queue: true})
		}})
	return c, nil
}

// parentScripts gives a child under the sandbox its parent's scripts as the parent read them,
// never the files as they are now: scripts run unconfined in pi, and the parent's confined
// commands could have rewritten them (.pi/init.lua in the project, or committed for a worktree
// child's checkout) to do what the sandbox denies them. A path in the child's folder is the
// same path in the parent's (a worktree child's folder stands for the parent's).
func parentScripts(sources map[string]string, parentCwd, childCwd string) func(string) (string, bool) {
	return func(path string) (string, bool) {
		if rel, err := filepath.Rel(childCwd, path); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
			path = filepath.Join(parentCwd, rel)
		}
		src, ok := sources[path]
		return src, ok
	}
}
