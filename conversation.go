package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"pi/agent"
	"pi/provider"
	"pi/session"
)

// This file ties the agent to its session: choosing the file from the flags, restoring a
// transcript, recording every message, and compacting when the context nears the window —
// between the turns of a tool loop too, and once after a provider reports an overflow.

// ErrOverflowAfterCompaction is the answer when a compacted conversation still does not fit.
var ErrOverflowAfterCompaction = errors.New("the conversation is still too long for the model's context window " +
	"after compacting it once; start a new session (/new), or use a model with a larger window")

// openSession picks the session the flags ask for. A new session touches the disk only once
// the first reply arrives.
func (a *app) openSession(ctx context.Context, o *cliOptions) (*session.Session, error) {
	dir := o.sessionDir
	if dir == "" {
		dir = a.cfg.SessionDir
	}
	if dir == "" {
		dir = session.Dir(a.piHome, a.cwd)
	}
	root := session.SessionsRoot(a.piHome)
	switch {
	case o.noSession:
		return session.InMemory(a.cwd), nil
	case o.forkRef != "":
		src, err := session.Resolve(o.forkRef, dir, root)
		if err != nil {
			return nil, fmt.Errorf("--fork: %w", err)
		}
		return session.ForkFile(ctx, src, dir, a.cwd)
	case o.sessionRef != "":
		path, err := session.Resolve(o.sessionRef, dir, root)
		if errors.Is(err, os.ErrNotExist) && strings.ContainsAny(o.sessionRef, `/\`) {
			return session.CreateAt(o.sessionRef, a.cwd), nil // a new file at the user's path, as pi does
		}
		if err != nil {
			return nil, fmt.Errorf("--session: %w", err)
		}
		return session.Open(ctx, path)
	case o.continueLast:
		path, err := session.FindNewest(dir)
		if err != nil {
			return nil, fmt.Errorf("-c: %w", err)
		}
		if path != "" {
			return session.Open(ctx, path)
		}
	}
	return session.Create(dir, a.cwd), nil
}

// attachSession restores the session's transcript into the agent and records from now on.
func (a *app) attachSession(s *session.Session, o *cliOptions) error {
	a.sess = s
	for _, w := range s.Warnings() {
		fmt.Fprintln(a.stderr, "pi: warning:", w)
	}
	restored, err := s.Context()
	if err != nil {
		return err
	}
	a.agent.ReplaceMessages(restored.Messages)
	st := a.agent.State()
	if o.model == "" && restored.ModelID != "" && (restored.Provider != st.Model.Provider || restored.ModelID != st.Model.ID) {
		a.switchModelQuietly(restored.Provider + "/" + restored.ModelID)
	}
	if o.thinking == "" && restored.Thinking != "" && len(restored.Messages) > 0 {
		a.agent.SetThinking(restored.Thinking)
	}
	st = a.agent.State()
	if restored.ModelID != st.Model.ID || restored.Provider != st.Model.Provider {
		if _, err := s.AppendModelChange(st.Model.Provider, st.Model.ID); err != nil {
			return err
		}
	}
	if level := orOff(st.Thinking); level != orOff(restored.Thinking) {
		if _, err := s.AppendThinkingLevel(level); err != nil {
			return err
		}
	}
	a.agent.Subscribe(func(_ context.Context, ev agent.Event) {
		if ev.Type != agent.EvMessageEnd || a.sess != s { // s was replaced (new, switch, fork)
			return
		}
		if _, err := s.AppendMessage(*ev.Message); err != nil {
			fmt.Fprintln(a.stderr, "pi: recording the session:", err)
		}
	})
	return nil
}

func orOff(level string) string {
	if level == "" {
		return "off"
	}
	return level
}

// switchModelQuietly moves to a session's model when it can be set up, and otherwise keeps
// the current one with a warning: an old session must not be unusable.
func (a *app) switchModelQuietly(spec string) {
	p, m, err := a.cfg.ResolveModel(context.Background(), spec)
	if err != nil {
		fmt.Fprintf(a.stderr, "pi: warning: the session used %s, which is not available (%v); using %s/%s\n",
			spec, err, a.model.Provider, a.model.ID)
		return
	}
	previous := a.agent.Model()
	r := &provider.Retrying{Provider: p, Policy: a.retryPolicy(), Notify: a.agent.RetryNotice}
	a.agent.SetProvider(r, m)
	a.model = m
	a.emitSessionEvent("model_select", map[string]any{"model": m, "previous_model": previous, "source": "restore"})
}

// compactionSettings are the [compaction] table over the defaults.
func (a *app) compactionSettings() session.Settings {
	s := session.DefaultSettings()
	c := a.cfg.Compaction
	if c.Enabled != nil {
		s.Enabled = *c.Enabled
	}
	if on, ok := a.autoCompactionOverride(); ok { // set_auto_compaction, appops.go
		s.Enabled = on
	}
	s.ReserveTokens, s.KeepRecentTokens = c.ReserveTokens, c.KeepRecentTokens
	return s
}

// prepareNextTurn compacts before a model call when the context has passed the threshold, so
// a long tool loop compacts before the provider refuses it.
func (a *app) prepareNextTurn(ctx context.Context, ag *agent.Agent) error {
	settings := a.compactionSettings()
	model := ag.Model()
	if !settings.Enabled || model.ContextWindow <= 0 || a.sess == nil {
		return nil
	}
	if !settings.ShouldCompact(session.ContextTokens(ag.MessagesView()), model.ContextWindow) {
		return nil
	}
	if _, err := a.compact(ctx, session.ReasonThreshold, "", false); err != nil && ctx.Err() != nil {
		return err
	}
	return nil // a failed threshold compaction is reported in its event; the turn goes on
}

// compact runs one compaction with its events and hands the new context to the agent.
func (a *app) compact(ctx context.Context, reason session.Reason, focus string, willRetry bool) (*session.Result, error) {
	a.agent.Emit(agent.Event{Type: agent.EvCompactionStart, Compaction: &agent.CompactionInfo{Reason: string(reason)}})
	st := a.agent.State()
	c := &session.Compactor{Provider: a.agent.Provider(), Model: st.Model, Settings: a.compactionSettings(),
		Thinking: st.Thinking, BeforeCompact: a.beforeCompact}
	if reason == session.ReasonManual {
		c.Settings.Enabled = true
	}
	res, err := c.Compact(ctx, a.sess, reason, focus)
	info := &agent.CompactionInfo{Reason: string(reason), WillRetry: willRetry && err == nil, Aborted: ctx.Err() != nil}
	if err != nil {
		info.Error = err.Error()
	} else {
		info.Result = res
		a.agent.ReplaceMessages(res.Context.Messages)
	}
	a.agent.Emit(agent.Event{Type: agent.EvCompactionEnd, Compaction: info})
	if err == nil && a.lua.rt != nil {
		a.lua.rt.Emit(ctx, "session_compact", map[string]any{"from_extension": res.FromHook,
			"tokens_before": res.TokensBefore, "tokens_after": res.TokensAfter, "summary": res.Summary})
	}
	return res, err
}

// prompt runs a prompt and, when the model refused the context as too long, compacts and
// retries once.
func (a *app) prompt(ctx context.Context, msg provider.Message) error {
	if err := a.agent.Prompt(ctx, msg); err != nil {
		return err
	}
	return a.recoverOverflow(ctx)
}

func (a *app) recoverOverflow(ctx context.Context) error {
	if !a.overflowed() {
		return nil
	}
	if !a.compactionSettings().Enabled || a.sess == nil {
		return nil // the provider's error stands, as the user asked
	}
	if _, err := a.compact(ctx, session.ReasonOverflow, "", true); err != nil {
		return nil // reported in compaction_end; the provider's error stands
	}
	a.dropFailedTail()
	if err := a.agent.Continue(ctx); err != nil {
		return err
	}
	if a.overflowed() {
		return ErrOverflowAfterCompaction
	}
	return nil
}

func (a *app) overflowed() bool {
	last := lastMessage(a.agent)
	return last != nil && last.Role == provider.RoleAssistant &&
		provider.IsContextOverflow(last, a.agent.Model().ContextWindow)
}

// dropFailedTail removes a failed reply from the end of the transcript the model sees; the
// session file keeps it.
func (a *app) dropFailedTail() {
	msgs := a.agent.State().Messages
	for len(msgs) > 0 && failed(&msgs[len(msgs)-1]) {
		msgs = msgs[:len(msgs)-1]
	}
	a.agent.ReplaceMessages(msgs)
}

func lastMessage(ag *agent.Agent) *provider.Message {
	msgs := ag.MessagesView()
	if len(msgs) == 0 {
		return nil
	}
	return &msgs[len(msgs)-1]
}

// beforeCompact lets scripts cancel a compaction or write the summary; set by the Lua wiring.
func (a *app) beforeCompact(ctx context.Context, reason session.Reason, p *session.Preparation) (session.HookResult, error) {
	if a.compactHook == nil {
		return session.HookResult{}, nil
	}
	return a.compactHook(ctx, reason, p)
}

// listSessions prints this directory's sessions for `pi sessions` and `-r` outside the TUI.
func listSessions(ctx context.Context, dir string, w io.Writer) error {
	infos, err := session.List(ctx, dir)
	if err != nil {
		return err
	}
	if len(infos) == 0 {
		fmt.Fprintln(w, "no sessions in this directory yet")
		return nil
	}
	for i, in := range infos {
		title := in.Name
		if title == "" {
			title = oneLine(withoutContextBlock(in.FirstPrompt), 60)
		}
		fmt.Fprintf(w, "%2d  %s  %-60s  %4d msgs  %7s  %s\n", i+1, in.ID[:8], title, in.MessageCount,
			humanSize(in.Size), in.Modified.Format("2006-01-02 15:04"))
	}
	fmt.Fprintln(w, "\ncontinue one with: pi --session <id prefix>")
	return nil
}

// withoutContextBlock drops the date-and-folder block that opens a conversation.
func withoutContextBlock(s string) string {
	if strings.HasPrefix(s, "<context>") {
		if _, rest, ok := strings.Cut(s, "</context>"); ok {
			return strings.TrimSpace(rest)
		}
	}
	return s
}

func oneLine(s string, limit int) string {
	out := []rune{}
	for _, r := range s {
		if r == '\n' || r == '\r' || r == '\t' {
			r = ' '
		}
		out = append(out, r)
		if len(out) == limit {
			return string(out[:limit-1]) + "…"
		}
	}
	return string(out)
}

func humanSize(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1fMB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1fKB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%dB", n)
}
