package live

// api.go is what front ends may do to a live session besides Send: one method per operation
// (the RPC command set names them), each a call into the part that owns it.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"pi/agent"
	"pi/config"
	"pi/export"
	"pi/internal/proc"
	"pi/internal/safefile"
	"pi/lua"
	"pi/provider"
	"pi/session"
	"pi/subagent"
)

// Agent is the session's loop: front ends subscribe to its events and read its transcript.
func (h *Session) Agent() *agent.Agent { return h.agent }

// Config is the configuration the session was built with; it never changes.
func (h *Session) Config() *config.Config { return h.cfg }

// Cwd is the folder the session works in.
func (h *Session) Cwd() string { return h.cwd }

// PiHome is the pi home folder the session reads its settings from.
func (h *Session) PiHome() string { return h.piHome }

// ModelProblem says why no model could be set up ("" when one was), for the terminal UI.
func (h *Session) ModelProblem() string { return h.start.problemText() }

// Close stops the work in flight, the scripts and the children, and closes the session file.
func (h *Session) Close() { h.close() }

// SetUI sends the scripts' questions and notices to ui (nil: nobody can be asked).
func (h *Session) SetUI(ui UI) { h.scripts.setUI(ui) }

// TakeFlagWords removes from words the values of the scripts' string flags (--name value).
func (h *Session) TakeFlagWords(words []string) []string { return h.scripts.rt.TakeFlagWords(words) }

// Settle waits for the messages the scripts' handlers sent to go through Send, and, with
// children, for the background children and the turns their notices start.
func (h *Session) Settle(ctx context.Context, children bool) {
	h.scriptSends.wait(ctx)
	for children && h.scripts.children.Wait(ctx) {
		h.scriptSends.wait(ctx)
	}
}

// Children is the Agent tools' children of this session, for a front end that shows them.
func (h *Session) Children() *subagent.Manager { return h.scripts.children }

// Confine is the sandbox the session's commands run in (nil: none).
func (h *Session) Confine() proc.Confiner { return h.shell.confine }

// The scripts' side.

// Commands are the scripts' slash commands, once the scripts have loaded.
func (h *Session) Commands(ctx context.Context) ([]lua.Command, error) {
	if err := h.scripts.rt.Ready(ctx); err != nil {
		return nil, err
	}
	return h.scripts.rt.Commands(), nil
}

// SlashCommands is get_commands' list: the scripts' commands, templates and skills.
func (h *Session) SlashCommands() []lua.SlashCommand { return h.scripts.rt.SlashCommands() }

// Shortcuts are the keys the scripts bound.
func (h *Session) Shortcuts() []lua.Shortcut { return h.scripts.rt.Shortcuts() }

// RunShortcut runs the script bound to key.
func (h *Session) RunShortcut(ctx context.Context, key string) error {
	return h.scripts.rt.RunShortcut(ctx, key)
}

// RenderMessage draws a custom message as the script that sent it wants (ok false: pi draws it).
func (h *Session) RenderMessage(ctx context.Context, m *provider.Message, expanded bool) ([]string, bool) {
	return h.scripts.rt.RenderMessage(ctx, m, expanded)
}

// ThemeDirs are the folders the scripts' packages bring themes in.
func (h *Session) ThemeDirs() []string { return h.scripts.rt.ThemeDirs() }

// Reload loads the scripts again.
func (h *Session) Reload(ctx context.Context) error { return h.scripts.reload(ctx) }

// The session file.

// Header is the session file's header.
func (h *Session) Header() session.Header { return h.rec.session().Header() }

// Name is the session's name ("" before one is given). Unlike State it takes no lock of the
// agent's: pi serve asks it for every snapshot, holding its own.
func (h *Session) Name() string { return h.rec.session().Name() }

// SetName names the session ("" clears the name).
func (h *Session) SetName(name string) error { return session.Rename(h.rec.session(), name) }

// Stats are the session's message counts, tokens and cost.
func (h *Session) Stats() session.Stats {
	return session.StatsOf(h.rec.session(), h.agent.MessagesView())
}

// BranchAndFileStats count the session file: the current branch from the start (messages a
// compaction summarised too) and every branch, as /session and the export count them.
func (h *Session) BranchAndFileStats() (branch, file session.Stats, err error) {
	return session.BranchAndFileStats(h.rec.session())
}

// ForkPoints are the user messages a fork can start from.
func (h *Session) ForkPoints() ([]session.ForkPoint, error) {
	return session.ForkPoints(h.rec.session())
}

// Tree is every entry of the session with its parent, and the current leaf ("" before the first).
func (h *Session) Tree() ([]session.TreeEntry, string, error) {
	sess := h.rec.session()
	entries, err := session.TreeEntries(sess)
	return entries, sess.Leaf(), err
}

// SetLabel labels an entry of the session tree ("" clears it).
func (h *Session) SetLabel(entryID, label string) error {
	return session.Label(h.rec.session(), entryID, label)
}

// LeavesConversation reports whether moving to targetID leaves messages behind (then a summary
// of them can be kept).
func (h *Session) LeavesConversation(targetID string) bool {
	return session.LeavesConversation(h.rec.session(), targetID)
}

// Sessions are the sessions /resume offers, newest first: the store's of this folder, or the
// files beside this session's (this folder's) and the TypeScript pi's of this folder.
func (h *Session) Sessions(ctx context.Context) ([]session.Info, error) {
	if h.store != nil {
		return h.store.List(ctx, h.cwd)
	}
	dir := session.Dir(h.piHome, h.cwd)
	if p := h.rec.session().Path(); p != "" {
		dir = filepath.Dir(p)
	}
	return session.ListAll(ctx, dir, session.Dir(session.PiAgentDir(), h.cwd))
}

// SearchSessions calls found with the first hit of query in each session of refs (Paths that
// Sessions listed), as they are found: through the store's index when [session] names one,
// else reading the files one after the other, each only up to its first hit. It ends when
// found returns false or ctx ends; a file it cannot read is passed over and named in the error.
func (h *Session) SearchSessions(ctx context.Context, query string, refs []string, found func(session.Hit) bool) error {
	if h.store != nil {
		want := make(map[string]bool, len(refs))
		for _, r := range refs {
			want[r] = true
		}
		return h.store.Search(ctx, query, func(hit session.Hit) error {
			if !want[hit.Session] {
				return nil
			}
			delete(want, hit.Session)
			if !found(hit) || len(want) == 0 {
				return session.ErrStopSearch
			}
			return nil
		})
	}
	var errs []error
	for _, ref := range refs {
		more := true
		err := session.SearchFile(ctx, ref, query, func(hit session.Hit) error {
			more = found(hit)
			return session.ErrStopSearch
		})
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if errs = append(errs, err); !more {
			break
		}
	}
	return errors.Join(errs...)
}

// LastReply is the text of the last assistant reply; ok is false before there is one.
func (h *Session) LastReply() (text string, ok bool) {
	return session.LastAssistantText(h.agent.MessagesView())
}

// Export writes the session as an HTML page (or, for a .jsonl path, copies the session file)
// and returns the file written.
func (h *Session) Export(path string) (string, error) {
	if !strings.HasSuffix(path, ".jsonl") {
		return export.File(h.rec.session(), export.Options{Model: h.agent.Model().Label()}, h.cwd, path)
	}
	src := h.rec.session().Path()
	if src == "" {
		return "", errors.New("export: this session is not saved in a file")
	}
	if err := copyFile(src, path); err != nil {
		return "", fmt.Errorf("export to %s: %w", path, err)
	}
	return path, nil
}

// copyFile copies a session file without holding it in memory (sessions reach hundreds of MB).
func copyFile(src, dst string) error {
	in, err := safefile.OpenFile(src, os.O_RDONLY)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// CompactionDetails are the details the compaction's entry stores ({} when none).
func (h *Session) CompactionDetails(res *session.Result) json.RawMessage {
	return session.CompactionDetailsOf(h.rec.session(), res)
}

// The user's shell.

// Bash runs a !cmd line (excluded: !!cmd, kept out of the context) and returns its result.
func (h *Session) Bash(ctx context.Context, command string, excluded bool, onUpdate func(session.BashResult)) (session.BashResult, error) {
	return h.shell.run(ctx, command, excluded, onUpdate)
}

// StartBash claims the shell at once and returns the run to wait for, so that a second command
// sent meanwhile is refused and AbortBash reaches this one.
func (h *Session) StartBash(ctx context.Context, command string, excluded bool) (func() (session.BashResult, error), error) {
	return h.shell.start(ctx, command, excluded, nil)
}

// AbortBash cancels the user's shell command, if one runs.
func (h *Session) AbortBash() { h.work.cancel(workBash) }

// AbortRetry stops a run that is waiting to retry a failed call; the failure then stands.
func (h *Session) AbortRetry() {
	if h.settings.retryWaiting() {
		h.work.stop(workRun)
	}
}

// Compacting reports whether a compaction runs (one the user asked for, or an automatic one).
func (h *Session) Compacting() bool { return h.compactor.running() }

// StartCompact refuses at once while a compaction the user asked for runs; otherwise it returns
// the compaction to run (Compact), for a front end that answers when it is done.
func (h *Session) StartCompact(ctx context.Context, instructions string) (func() (*session.Result, error), error) {
	if h.work.running(workCompaction) {
		return nil, errors.New("a compaction is already running")
	}
	return func() (*session.Result, error) { return h.Compact(ctx, instructions) }, nil
}

// The settings: model, thinking, queues, retries, compaction.

// AvailableModels are every configured and discovered model.
func (h *Session) AvailableModels(ctx context.Context) []provider.Model {
	return h.settings.availableModels(ctx)
}

// SetModel switches to the model spec names (provider/id[:thinking]).
func (h *Session) SetModel(ctx context.Context, spec string) (provider.Model, error) {
	m, err := h.settings.setModel(ctx, spec, "set")
	if err == nil {
		h.prewarm()
	}
	return m, err
}

// CycleModel steps through the scope's models (step -1 steps back); nil when there is no other.
func (h *Session) CycleModel(ctx context.Context, step int) (*provider.Model, error) {
	m, err := h.settings.cycleModel(ctx, step)
	if m != nil && err == nil {
		h.prewarm()
	}
	return m, err
}

// SetScope sets the models CycleModel steps through (patterns; nil: every available model).
func (h *Session) SetScope(patterns []string) error { return h.settings.setScoped(patterns) }

// ScopedModels are the models CycleModel steps through; scoped is false when that is every one.
func (h *Session) ScopedModels(ctx context.Context) (models []provider.Model, scoped bool) {
	return h.settings.scopedModels(ctx)
}

// SetThinking sets the thinking level and returns the one in force (the model's nearest).
func (h *Session) SetThinking(level string) (string, error) { return h.settings.setThinking(level) }

// CycleThinking steps the thinking level; ok is false on a model that does not think.
func (h *Session) CycleThinking() (level string, ok bool, err error) {
	return h.settings.cycleThinking()
}

// SetQueueMode sets how the steering ("steer") or follow-up ("followUp") queue delivers.
func (h *Session) SetQueueMode(which string, mode agent.QueueMode) error {
	return h.settings.setQueueMode(which, mode)
}

// SetAutoRetry turns retrying failed provider calls on or off.
func (h *Session) SetAutoRetry(on bool) { h.settings.setAutoRetry(on) }

// SetAutoCompaction turns compaction at the threshold on or off.
func (h *Session) SetAutoCompaction(on bool) { h.settings.setAutoCompaction(on) }

// CompactionSettings are the compaction settings in force.
func (h *Session) CompactionSettings() session.Settings { return h.settings.compactionSettings() }

// State is a snapshot of what a front end shows of the session: get_state's answer, the
// footer, the server's snapshot.
type State struct {
	Model          provider.Model
	Thinking       string // "off" on a model that does not think
	Streaming      bool
	Compacting     bool
	SteeringMode   agent.QueueMode
	FollowUpMode   agent.QueueMode
	SessionID      string
	SessionFile    string // "" for a session kept in memory
	SessionName    string
	Leaf           string // the entry the conversation ends at ("" before the first)
	AutoCompaction bool
	Scoped         bool // CycleModel steps through a scope, not every model
	MessageCount   int
	PendingCount   int // messages waiting in the steering and follow-up queues
}

// State is the session as it is now.
func (h *Session) State() State {
	st, sess := h.agent.State(), h.rec.session()
	steerMode, followMode := h.settings.queueModes()
	steer, follow := h.agent.QueuedMessages()
	return State{Model: st.Model, Thinking: config.LevelOrOff(st.Thinking), Streaming: h.Streaming(),
		Compacting: h.Compacting(), SteeringMode: steerMode, FollowUpMode: followMode,
		SessionID: sess.ID(), SessionFile: sess.Path(), SessionName: sess.Name(), Leaf: sess.Leaf(),
		AutoCompaction: h.settings.compactionSettings().Enabled, Scoped: h.settings.isScoped(),
		MessageCount: len(st.Messages), PendingCount: len(steer) + len(follow)}
}

// Trust

// TrustUndecided reports whether the project brings a script (or MCP servers) and nobody has
// said yet whether it may run; the terminal UI then asks.
func (h *Session) TrustUndecided() bool { return trustUndecided(h) }

// SetTrust records whether the project's script may run and loads, or unloads, it at once. It
// returns a sentence for the user.
func (h *Session) SetTrust(ctx context.Context, trusted bool) (string, error) {
	return setTrust(ctx, h, trusted)
}

// Import opens the pi or Claude Code session file at path as a new session of this folder and
// continues there: in the store when [session] names one, else a file beside this session's;
// skipped counts the lines of a Claude Code file it could not use.
func (h *Session) Import(ctx context.Context, path string) (skipped int, err error) {
	var s *session.Session
	if h.store != nil {
		s, skipped, err = session.ImportInto(ctx, h.store, path, h.cwd)
	} else {
		dir := session.Dir(h.piHome, h.cwd)
		if p := h.rec.session().Path(); p != "" {
			dir = filepath.Dir(p)
		}
		s, skipped, err = session.Import(ctx, path, dir, h.cwd)
	}
	if err != nil {
		return skipped, err
	}
	return skipped, h.replaceSession(s, "resume")
}

// DebugReport is the session's part of /debug: where it is, the model, the sizes of what the
// next request sends, the configuration and every message, with key values redacted.
func (h *Session) DebugReport() string {
	st, req := h.State(), h.agent.RequestPrefix()
	var b strings.Builder
	fmt.Fprintf(&b, "## The session\n\nid %s\nfile %s\nfolder %s\nmodel %s (window %d), thinking %s\n\n",
		st.SessionID, st.SessionFile, h.cwd, st.Model.Label(), st.Model.ContextWindow, st.Thinking)
	tools, _ := json.Marshal(req.Tools)
	msgs, _ := json.Marshal(req.Messages)
	fmt.Fprintf(&b, "## The next request\n\nsystem prompt %d bytes, %d tools in %d bytes, %d messages in %d bytes, "+
		"about %d tokens of context as the last reply counted\n\n", len(req.SystemPrompt), len(req.Tools), len(tools),
		len(req.Messages), len(msgs), provider.ContextTokens(h.agent.MessagesView()))
	cfg, _ := json.MarshalIndent(headersRedacted(h.cfg), "", "  ")
	fmt.Fprintf(&b, "## The configuration (files: %s)\n\n%s\n\n## The messages\n\n", strings.Join(h.cfg.Files, ", "), cfg)
	for _, m := range h.agent.MessagesView() {
		line, _ := json.Marshal(m)
		b.Write(append(line, '\n'))
	}
	report, _ := h.cfg.SecretPolicy().Redact(b.String())
	return report
}

// headersRedacted is cfg with the values of the providers' extra headers left out: a token
// written literally in pi.toml is no key the secret policy knows.
func headersRedacted(cfg *config.Config) *config.Config {
	shown := *cfg
	shown.Providers = map[string]*config.ProviderConfig{}
	for name, p := range cfg.Providers {
		c := *p
		if len(c.Headers) > 0 {
			c.Headers = map[string]string{}
			for k := range p.Headers {
				c.Headers[k] = "[redacted]"
			}
		}
		shown.Providers[name] = &c
	}
	return &shown
}
