package main

// localsession.go is termui.Session over the live session in this process: the terminal UI's
// commands and dialogs (package termui) run the same code locally as under pi attach, and this
// file is only the calls they make.

import (
	"context"
	"path/filepath"

	"pi/agent"
	"pi/live"
	"pi/lua"
	"pi/provider"
	"pi/rpcwire"
	"pi/session"
	"pi/termui"
	"pi/tui"
)

var _ termui.Session = localSession{}

// localSession is the live session as the terminal UI's controller sees it.
type localSession struct{ ic *interactive }

func (l localSession) h() *live.Session { return l.ic.h }

func (l localSession) Notes(context.Context) termui.Notes {
	h := l.h()
	return termui.Notes{NoResume: "no sessions to resume in " + l.sessionsDir(), Project: h.Cwd(),
		SettingsSaved: true, SettingsFile: filepath.Join(h.PiHome(), "pi.toml")}
}

// Send delivers a typed line through the front door: a prompt while idle, steering while the
// agent works (Enter and a /name alike), a follow-up for Alt+Enter.
func (l localSession) Send(ctx context.Context, in termui.Input) error {
	deliver := live.DeliverSteer
	if in.How == termui.SendFollowUp {
		deliver = live.DeliverFollowUp
	}
	return l.h().Send(ctx, live.Input{Text: in.Text, Images: in.Images, Source: live.SourceInteractive, Deliver: deliver})
}

// Abort stops what runs; the screen has put the queued text back into the editor.
func (l localSession) Abort() {
	l.h().ClearQueues()
	l.h().Abort()
}

func (l localSession) RunShortcut(ctx context.Context, key string) error {
	return l.h().RunShortcut(ctx, key)
}
func (l localSession) Quit() { l.ic.cancel() }

func (l localSession) State(context.Context) (rpcwire.State, error) {
	st := l.h().State()
	return rpcwire.State{Model: st.Model, ThinkingLevel: st.Thinking, IsStreaming: st.Streaming, IsCompacting: st.Compacting,
		SteeringMode: string(st.SteeringMode), FollowUpMode: string(st.FollowUpMode), SessionFile: st.SessionFile,
		SessionID: st.SessionID, SessionName: st.SessionName, AutoCompactionEnabled: st.AutoCompaction,
		MessageCount: st.MessageCount, PendingMessageCount: st.PendingCount}, nil
}

func (l localSession) Models(ctx context.Context) ([]provider.Model, error) {
	return l.h().AvailableModels(ctx), nil
}

func (l localSession) SetModel(ctx context.Context, providerName, id string) (provider.Model, error) {
	return l.h().SetModel(ctx, providerName+"/"+id)
}

func (l localSession) CycleModel(ctx context.Context, step int) (*provider.Model, error) {
	return l.h().CycleModel(ctx, step)
}

func (l localSession) CycleThinking(context.Context) (string, bool, error) {
	return l.h().CycleThinking()
}

func (l localSession) SetThinking(_ context.Context, level string) error {
	_, err := l.h().SetThinking(level)
	return err
}

func (l localSession) SetQueueMode(_ context.Context, which, mode string) error {
	return l.h().SetQueueMode(which, agent.QueueMode(mode))
}

func (l localSession) SetAutoCompaction(_ context.Context, on bool) error {
	l.h().SetAutoCompaction(on)
	return nil
}

func (l localSession) SetScope(_ context.Context, patterns []string) error {
	return l.h().SetScope(patterns)
}

func (l localSession) ScopedModels(ctx context.Context) ([]provider.Model, bool, error) {
	models, scoped := l.h().ScopedModels(ctx)
	return models, scoped, nil
}

func (l localSession) Compact(ctx context.Context, instructions string) (int, int, error) {
	res, err := l.h().Compact(ctx, instructions)
	if err != nil {
		return 0, 0, err
	}
	return res.TokensBefore, res.TokensAfter, nil
}

// switched is where a session switch went: the session now in force.
func (l localSession) switched(err error) (termui.Switch, error) {
	return termui.Switch{ID: l.h().State().SessionID}, err
}

func (l localSession) NewSession(context.Context) (termui.Switch, error) {
	return l.switched(l.h().NewSession(""))
}
func (l localSession) Clone(context.Context) (termui.Switch, error) { return l.switched(l.h().Clone()) }

func (l localSession) ForkPoints(context.Context) ([]session.ForkPoint, error) {
	return l.h().ForkPoints()
}

func (l localSession) Fork(_ context.Context, entryID string) (string, termui.Switch, error) {
	text, err := l.h().ForkAt(entryID)
	sw, err := l.switched(err)
	return text, sw, err
}

// sessionsDir is the folder of this session's file (of this folder's sessions when it has none).
func (l localSession) sessionsDir() string {
	h := l.h()
	if p := h.State().SessionFile; p != "" {
		return filepath.Dir(p)
	}
	return session.Dir(h.PiHome(), h.Cwd())
}

// Resumable lists this folder's sessions and the TypeScript pi's, newest first.
func (l localSession) Resumable(ctx context.Context) ([]termui.Resumable, error) {
	infos, err := l.h().Sessions(ctx)
	if err != nil {
		return nil, err
	}
	listed := session.Threaded(infos) // a subagent's session, a fork, a clone below the session it came from
	out := make([]termui.Resumable, len(listed))
	for i, s := range listed {
		out[i] = termui.Resumable{Ref: s.Path, Name: s.Name, FirstPrompt: s.FirstPrompt, ID: s.ID, Modified: s.Modified,
			Messages: s.MessageCount, Counted: true, Mark: session.ThreadMark(s)}
	}
	return out, nil
}

func (l localSession) Resume(ctx context.Context, r termui.Resumable) (termui.Switch, error) {
	return l.switched(l.h().SwitchSession(ctx, r.Ref))
}

func (l localSession) SearchSessions(ctx context.Context, query string, refs []string, found func(ref, line string) bool) error {
	return l.h().SearchSessions(ctx, query, refs, func(hit session.Hit) bool { return found(hit.Session, hit.Line) })
}

func (l localSession) Tree(context.Context) ([]session.TreeEntry, string, error) { return l.h().Tree() }

func (l localSession) LeavesConversation(_ context.Context, targetID string) (bool, error) {
	return l.h().LeavesConversation(targetID), nil
}

func (l localSession) NavigateTree(ctx context.Context, targetID string, summarize bool, focus string) (string, error) {
	return l.h().NavigateTree(ctx, targetID, summarize, focus)
}

func (l localSession) SetLabel(_ context.Context, entryID, label string) error {
	return l.h().SetLabel(entryID, label)
}

func (l localSession) Rename(_ context.Context, name string) error { return l.h().SetName(name) }
func (l localSession) Counts(context.Context) (termui.Counts, error) {
	branch, file, err := l.h().BranchAndFileStats()
	return termui.Counts{Branch: branch, BranchIs: "this branch, from the start", File: &file}, err
}

func (l localSession) Export(_ context.Context, path string) (string, error) {
	return l.h().Export(path)
}

func (l localSession) LastReply(context.Context) (string, bool, error) {
	text, ok := l.h().LastReply()
	return text, ok, nil
}

func (l localSession) Reload(ctx context.Context) ([]string, error) {
	if err := l.h().Reload(ctx); err != nil {
		return nil, err
	}
	return l.h().ThemeDirs(), nil
}

func (l localSession) Trust(context.Context) (bool, bool, error) {
	trusted, _, err := lua.TrustDecision(l.h().PiHome(), l.h().Cwd())
	return trusted, l.h().TrustUndecided(), err
}

func (l localSession) SetTrust(ctx context.Context, trusted bool) (string, error) {
	return l.h().SetTrust(ctx, trusted)
}

func (l localSession) Bash(ctx context.Context, command string, exclude bool, partial func(string)) (session.BashResult, error) {
	return l.h().Bash(ctx, command, exclude, func(r session.BashResult) { partial(r.Output) })
}

func (l localSession) Commands(ctx context.Context) ([]termui.Command, error) {
	scripted, err := l.h().Commands(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]termui.Command, len(scripted))
	for i, c := range scripted {
		out[i] = termui.Command{Name: c.Name, Description: c.Description, ArgHint: c.ArgumentHint}
		if c.HasComplete {
			out[i].Complete = scripted[i].Complete
		}
	}
	return out, nil
}

func (l localSession) Shortcuts(context.Context) ([]tui.Shortcut, error) {
	var out []tui.Shortcut
	for _, s := range l.h().Shortcuts() {
		out = append(out, tui.Shortcut{Key: s.Key, Description: s.Description})
	}
	return out, nil
}

func (l localSession) Import(ctx context.Context, path string) (termui.Switch, int, error) {
	skipped, err := l.h().Import(ctx, path)
	sw, err := l.switched(err)
	return sw, skipped, err
}

// DebugReport is this pi's version and the live session's report.
func (l localSession) DebugReport(context.Context) (string, error) {
	return "## pi\n\n" + versionText() + "\n\n" + l.h().DebugReport(), nil
}

// Hold shows the screen working, so that Escape reaches OnAbort, unless a run does already.
func (l localSession) Hold() func() {
	if l.h().Busy() {
		return func() {}
	}
	l.ic.ui.SetWorking(true)
	return func() {
		if !l.h().Busy() {
			l.ic.ui.SetWorking(false)
		}
	}
}

// ShowSession draws the conversation now in force, its queues and the footer.
func (l localSession) ShowSession(context.Context) {
	l.ic.ui.Replay(l.h().Agent().MessagesView(), session.ShownUserText, l.ic.custom)
	l.ic.updateQueue()
	l.ic.updateFooter()
}

func (l localSession) Refresh(context.Context) { l.ic.updateFooter() }
