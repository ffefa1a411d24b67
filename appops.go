package main

// appops.go holds the operations on the session and the model that every front end offers
// (RPC commands, slash commands and keys in the terminal UI): new, switch, fork and clone a
// session; change model, thinking level and queue modes; run a shell command whose output the
// model sees with the next prompt; statistics and export. Each one records what it changes in
// the session, as pi does, so that a resumed session comes back the way it was left.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"pi/agent"
	"pi/config"
	"pi/provider"
	"pi/session"
	"pi/tools"
)

// opsState is what the operations remember between calls. Its zero value is ready; the
// mutex guards every field but flushOnce.
type opsState struct {
	mu          sync.Mutex
	pendingBash []provider.Message // run while the agent was working; recorded at agent_end
	flushOnce   sync.Once
	bashCancel  context.CancelFunc
	steerMode   agent.QueueMode // "" means the configured mode
	followMode  agent.QueueMode
	retryOff    bool
	compaction  *bool // set_auto_compaction; nil means as configured
}

// stopRun aborts the current run, if any, and waits until it has ended, so that nothing is
// appended to a session while it is being replaced.
func (a *app) stopRun() {
	a.agent.Abort()
	a.agent.WaitIdle()
}

// replaceSession makes s the current session: the agent gets its transcript, model and
// thinking level, and recording moves to it. The old session is closed. Scripts see
// session_shutdown and session_start with reason (new, resume or fork), as in pi.
func (a *app) replaceSession(s *session.Session, reason string) error {
	a.stopRun()
	old := a.sess
	a.emitSessionEvent("session_shutdown", map[string]any{"reason": reason})
	a.agent.ClearQueues()
	a.ops.mu.Lock()
	a.ops.pendingBash = nil
	a.ops.mu.Unlock()
	if err := a.attachSession(s, &cliOptions{}); err != nil {
		a.sess = old
		s.Close()
		return fmt.Errorf("opening session %s: %w", s.ID(), err)
	}
	if old != nil && old != s {
		if err := old.Close(); err != nil {
			fmt.Fprintln(a.stderr, "pi: closing the previous session:", err)
		}
	}
	start := map[string]any{"reason": reason}
	if old != nil && old.Path() != "" {
		start["previous_session_file"] = old.Path()
	}
	a.emitSessionEvent("session_start", start)
	return nil
}

func (a *app) emitSessionEvent(event string, payload map[string]any) {
	if rt := a.lua.rt; rt != nil {
		rt.Emit(context.Background(), event, payload)
	}
}

// newSession starts an empty session beside the current one (in memory when the current one
// is). A parentSession is named in the new file's header.
func (a *app) newSession(parentSession string) error {
	var s *session.Session
	if p := a.sess.Path(); p != "" {
		s = session.CreateChild(filepath.Dir(p), a.cwd, parentSession)
	} else {
		s = session.InMemory(a.cwd)
	}
	return a.replaceSession(s, "new")
}

// switchSession continues the session in the file at path.
func (a *app) switchSession(ctx context.Context, path string) error {
	if path == "" {
		return errors.New("switch_session: no session path given")
	}
	if abs, err := filepath.Abs(path); err == nil && a.sess.Path() != "" && abs == a.sess.Path() {
		a.stopRun()
		return nil // already there; opening it again would trip over our own lock
	}
	s, err := session.Open(ctx, path)
	if err != nil {
		return fmt.Errorf("switching to session %s: %w", path, err)
	}
	return a.replaceSession(s, "resume")
}

// forkAt starts a new session holding the conversation before the user message entryID, and
// returns that message's text so a front end can offer it for editing (pi's /fork).
func (a *app) forkAt(entryID string) (string, error) {
	e, err := a.sess.Entry(entryID)
	if err != nil {
		return "", fmt.Errorf("fork at %q: %w", entryID, err)
	}
	if e.Type != session.TypeMessage || e.Message == nil || e.Message.Role != provider.RoleUser {
		return "", fmt.Errorf("fork at %q: not a user message", entryID)
	}
	text := withoutContextBlock(e.Message.TextContent())
	if e.ParentID == "" {
		return text, a.newSession(a.sess.Path())
	}
	s, err := a.sess.ForkAt(e.ParentID)
	if err != nil {
		return "", fmt.Errorf("fork at %q: %w", entryID, err)
	}
	return text, a.replaceSession(s, "fork")
}

// forkMessage is a user message a fork can start from.
type forkMessage struct {
	EntryID string `json:"entryId"`
	Text    string `json:"text"`
}

// forkMessages lists the user messages of the session, oldest first.
func (a *app) forkMessages() ([]forkMessage, error) {
	entries, err := a.sess.Entries()
	if err != nil {
		return nil, fmt.Errorf("listing the messages of session %s: %w", a.sess.ID(), err)
	}
	out := []forkMessage{}
	for _, e := range entries {
		if e.Type == session.TypeMessage && e.Message != nil && e.Message.Role == provider.RoleUser {
			out = append(out, forkMessage{EntryID: e.ID, Text: withoutContextBlock(e.Message.TextContent())})
		}
	}
	return out, nil
}

// cloneSession copies the current branch into a new session and continues there (pi's /clone).
func (a *app) cloneSession() error {
	s, err := a.sess.Clone()
	if err != nil {
		return fmt.Errorf("cloning session %s: %w", a.sess.ID(), err)
	}
	return a.replaceSession(s, "fork")
}

// retryPolicy is the configured policy, or none when the user switched retrying off.
func (a *app) retryPolicy() provider.RetryPolicy {
	p := a.cfg.RetryPolicy()
	a.ops.mu.Lock()
	if a.ops.retryOff {
		p.MaxRetries = 0
	}
	a.ops.mu.Unlock()
	return p
}

// setModel switches to spec ("provider/model") for the next call, records a model_change and
// clamps the thinking level to what the new model supports.
func (a *app) setModel(ctx context.Context, spec string) (provider.Model, error) {
	return a.switchModel(ctx, spec, "set")
}

// switchModel is setModel telling scripts (model_select) whether the user set or cycled it.
func (a *app) switchModel(ctx context.Context, spec, source string) (provider.Model, error) {
	p, m, err := a.cfg.ResolveModel(ctx, spec)
	if err != nil {
		return provider.Model{}, fmt.Errorf("model %q: %w", spec, err)
	}
	previous := a.agent.Model()
	a.agent.SetProvider(&provider.Retrying{Provider: p, Policy: a.retryPolicy(), Notify: a.agent.RetryNotice}, m)
	a.model = m
	a.emitSessionEvent("model_select", map[string]any{"model": m, "previous_model": previous, "source": source})
	if _, err := a.sess.AppendModelChange(m.Provider, m.ID); err != nil {
		return m, fmt.Errorf("recording the switch to %s: %w", spec, err)
	}
	_, err = a.setThinking(orOff(a.agent.State().Thinking))
	return m, err
}

// availableModels lists the models of every provider that answers, with the current model
// first when no provider lists it (the scripted test model, a model the server stopped
// listing).
func (a *app) availableModels(ctx context.Context) []provider.Model {
	cur := a.agent.Model()
	var out []provider.Model
	for _, pm := range a.cfg.ListModels(ctx) {
		out = append(out, pm.Models...)
	}
	if !slices.ContainsFunc(out, func(m provider.Model) bool { return sameModel(m, cur) }) {
		out = append([]provider.Model{cur}, out...)
	}
	return out
}

func sameModel(x, y provider.Model) bool { return x.Provider == y.Provider && x.ID == y.ID }

// cycleModel moves to the next available model; nil when there is no other.
func (a *app) cycleModel(ctx context.Context) (*provider.Model, error) {
	models := a.availableModels(ctx)
	if len(models) < 2 {
		return nil, nil
	}
	cur := a.agent.Model()
	i := slices.IndexFunc(models, func(m provider.Model) bool { return sameModel(m, cur) })
	next := models[(i+1)%len(models)]
	m, err := a.switchModel(ctx, next.Provider+"/"+next.ID, "cycle")
	if err != nil {
		return nil, err
	}
	return &m, nil
}

// thinkingCycle is the order Shift+Tab and cycle_thinking_level go through. xhigh is left out:
// few models have it, and a cycle that lands on an unsupported level helps nobody.
func thinkingCycle() []string { return []string{"off", "minimal", "low", "medium", "high"} }

// setThinking sets the thinking level for the next call and records a change. Models without
// reasoning only have "off". It returns the level in force.
func (a *app) setThinking(level string) (string, error) {
	if !config.IsThinkingLevel(level) {
		return "", fmt.Errorf("thinking level %q: want one of %s", level, strings.Join(config.ThinkingLevels(), ", "))
	}
	st := a.agent.State()
	if !st.Model.Reasoning {
		level = "off"
	}
	if level == orOff(st.Thinking) {
		return level, nil
	}
	a.agent.SetThinking(level)
	if _, err := a.sess.AppendThinkingLevel(level); err != nil {
		return level, fmt.Errorf("recording thinking level %s: %w", level, err)
	}
	return level, nil
}

// cycleThinking moves to the next thinking level; ok is false for a model without reasoning.
func (a *app) cycleThinking() (level string, ok bool, err error) {
	if !a.agent.Model().Reasoning {
		return "", false, nil
	}
	levels := thinkingCycle()
	i := slices.Index(levels, orOff(a.agent.State().Thinking))
	level, err = a.setThinking(levels[(i+1)%len(levels)])
	return level, err == nil, err
}

// queueModes are the steering and follow-up modes in force.
func (a *app) queueModes() (steer, follow agent.QueueMode) {
	a.ops.mu.Lock()
	defer a.ops.mu.Unlock()
	steer, follow = a.ops.steerMode, a.ops.followMode
	if steer == "" {
		steer = agent.QueueMode(a.cfg.SteeringMode).OrDefault()
	}
	if follow == "" {
		follow = agent.QueueMode(a.cfg.FollowUpMode).OrDefault()
	}
	return steer, follow
}

// setQueueMode changes how one queue drains; which is "steer" or "followUp".
func (a *app) setQueueMode(which string, mode agent.QueueMode) error {
	if mode != agent.OneAtATime && mode != agent.AllAtOnce {
		return fmt.Errorf("queue mode %q: want %q or %q", mode, agent.OneAtATime, agent.AllAtOnce)
	}
	steer, follow := a.queueModes()
	if which == "steer" {
		steer = mode
	} else {
		follow = mode
	}
	a.ops.mu.Lock()
	a.ops.steerMode, a.ops.followMode = steer, follow
	a.ops.mu.Unlock()
	a.agent.SetQueueModes(steer, follow)
	return nil
}

// setAutoRetry switches automatic retrying of transient provider failures on or off, from the
// next model call on.
func (a *app) setAutoRetry(on bool) {
	a.ops.mu.Lock()
	a.ops.retryOff = !on
	a.ops.mu.Unlock()
	if r, ok := a.agent.Provider().(*provider.Retrying); ok {
		a.agent.SetProvider(&provider.Retrying{Provider: r.Provider, Policy: a.retryPolicy(), Notify: r.Notify},
			a.agent.Model())
	}
}

// setAutoCompaction switches threshold and overflow compaction on or off, from the next check
// on; a run in progress may be the one that checks.
func (a *app) setAutoCompaction(on bool) {
	a.ops.mu.Lock()
	a.ops.compaction = &on
	a.ops.mu.Unlock()
}

// autoCompactionOverride is what setAutoCompaction chose, if it was called.
func (a *app) autoCompactionOverride() (on, ok bool) {
	a.ops.mu.Lock()
	defer a.ops.mu.Unlock()
	if a.ops.compaction == nil {
		return false, false
	}
	return *a.ops.compaction, true
}

// sessionStats counts the messages and tokens of the conversation the agent holds.
type sessionStats struct {
	SessionFile       string      `json:"sessionFile,omitempty"`
	SessionID         string      `json:"sessionId"`
	UserMessages      int         `json:"userMessages"`
	AssistantMessages int         `json:"assistantMessages"`
	ToolCalls         int         `json:"toolCalls"`
	ToolResults       int         `json:"toolResults"`
	TotalMessages     int         `json:"totalMessages"`
	Tokens            statsTokens `json:"tokens"`
	Cost              float64     `json:"cost"`
}

type statsTokens struct {
	Input      int `json:"input"`
	Output     int `json:"output"`
	CacheRead  int `json:"cacheRead"`
	CacheWrite int `json:"cacheWrite"`
	Total      int `json:"total"`
}

func (a *app) sessionStats() sessionStats {
	st := sessionStats{SessionFile: a.sess.Path(), SessionID: a.sess.ID()}
	msgs := a.agent.MessagesView()
	st.TotalMessages = len(msgs)
	for i := range msgs {
		m := &msgs[i]
		switch m.Role {
		case provider.RoleUser:
			st.UserMessages++
		case provider.RoleToolResult:
			st.ToolResults++
		case provider.RoleAssistant:
			st.AssistantMessages++
			st.ToolCalls += len(m.ToolCalls())
			if u := m.Usage; u != nil {
				st.Tokens.Input += u.Input
				st.Tokens.Output += u.Output
				st.Tokens.CacheRead += u.CacheRead
				st.Tokens.CacheWrite += u.CacheWrite
				st.Cost += u.Cost.Total
			}
		}
	}
	t := &st.Tokens
	t.Total = t.Input + t.Output + t.CacheRead + t.CacheWrite
	return st
}

// lastAssistantText is the text of the newest assistant reply; ok is false when there is none.
// An aborted reply with nothing in it does not count.
func (a *app) lastAssistantText() (text string, ok bool) {
	msgs := a.agent.MessagesView()
	for i := len(msgs) - 1; i >= 0; i-- {
		m := &msgs[i]
		if m.Role != provider.RoleAssistant || m.StopReason == provider.StopAborted && len(m.Content) == 0 {
			continue
		}
		return m.TextContent(), true
	}
	return "", false
}

// setSessionName names the session for listings; empty names are refused.
func (a *app) setSessionName(name string) error {
	name = strings.TrimSpace(name)
	if name == "" {
		return errors.New("session name is empty")
	}
	if _, err := a.sess.SetName(name); err != nil {
		return fmt.Errorf("naming session %s %q: %w", a.sess.ID(), name, err)
	}
	return nil
}

// compactNow compacts the conversation at the user's request, with optional instructions on
// what the summary should keep. A run in progress is aborted first, as in pi.
func (a *app) compactNow(ctx context.Context, instructions string) (*session.Result, error) {
	a.stopRun()
	res, err := a.compact(ctx, session.ReasonManual, instructions, false)
	if err != nil {
		return nil, fmt.Errorf("compacting session %s: %w", a.sess.ID(), err)
	}
	return res, nil
}

// compactionJSON is pi's CompactionResult, with the details stored in the session entry.
func (a *app) compactionJSON(r *session.Result) map[string]any {
	var details any = map[string]any{}
	if e, err := a.sess.Entry(r.EntryID); err == nil && len(e.Details) > 0 {
		details = e.Details
	}
	return map[string]any{"summary": r.Summary, "firstKeptEntryId": r.FirstKeptEntryID,
		"tokensBefore": r.TokensBefore, "tokensAfter": r.TokensAfter, "details": details}
}

// bashResult is pi's BashResult: what a shell command the user ran printed and how it ended.
type bashResult struct {
	Output         string `json:"output"`
	ExitCode       *int   `json:"exitCode"` // nil when the command was killed
	Cancelled      bool   `json:"cancelled"`
	Truncated      bool   `json:"truncated"`
	FullOutputPath string `json:"fullOutputPath,omitempty"`
}

// runBash runs a shell command for the user (pi's !cmd and the RPC bash command) with the bash
// tool's limits, and adds a bashExecution message that the next prompt's context shows the
// model, unless excludeFromContext (!!cmd). One command runs at a time; abortBash stops it.
func (a *app) runBash(ctx context.Context, command string, excludeFromContext bool) (bashResult, error) {
	command = strings.TrimSpace(command)
	if command == "" {
		return bashResult{}, errors.New("bash: the command is empty")
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	a.ops.mu.Lock()
	if a.ops.bashCancel != nil {
		a.ops.mu.Unlock()
		return bashResult{}, fmt.Errorf("bash %q: another command is still running", command)
	}
	a.ops.bashCancel = cancel
	a.ops.mu.Unlock()
	defer func() {
		a.ops.mu.Lock()
		a.ops.bashCancel = nil
		a.ops.mu.Unlock()
	}()
	res, err := execShell(ctx, a.bashShell(), a.cwd, command, a.bashTimeout())
	if err != nil {
		return res, fmt.Errorf("bash %q: %w", command, err)
	}
	a.recordBash(bashMessage(command, res, excludeFromContext, time.Now()))
	return res, nil
}

// abortBash stops the command runBash is running, if any.
func (a *app) abortBash() {
	a.ops.mu.Lock()
	defer a.ops.mu.Unlock()
	if a.ops.bashCancel != nil {
		a.ops.bashCancel()
	}
}

func (a *app) bashShell() string {
	if a.cfg.Bash.Shell != "" {
		return a.cfg.Bash.Shell
	}
	if p, err := exec.LookPath("bash"); err == nil {
		return p
	}
	return "sh"
}

func (a *app) bashTimeout() time.Duration {
	if a.cfg.Bash.TimeoutSeconds > 0 {
		return time.Duration(a.cfg.Bash.TimeoutSeconds) * time.Second
	}
	return tools.DefaultBashTimeout
}

// execShell runs command in its own process group so that cancelling kills its children too.
func execShell(ctx context.Context, shell, dir, command string, timeout time.Duration) (bashResult, error) {
	runCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	out := &bashCapture{}
	defer out.close()
	cmd := exec.CommandContext(runCtx, shell, "-c", command)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = out, out
	ownProcessGroup(cmd)
	// A background child may hold the output pipe open for ever; stop reading soon after the
	// shell itself has exited.
	cmd.WaitDelay = 250 * time.Millisecond
	err := cmd.Run()
	res := out.result()
	switch {
	case runCtx.Err() != nil:
		res.Cancelled = true
	case cmd.ProcessState == nil:
		return res, err // it never started
	default:
		code := cmd.ProcessState.ExitCode()
		res.ExitCode = &code
	}
	return res, nil
}

// bashCapture keeps the tail of a command's output in memory and, once the output passes the
// limits, all of it in a temporary file the result points to.
type bashCapture struct {
	mu       sync.Mutex
	buf      []byte
	total    int
	spill    *os.File
	spillErr error
}

func (c *bashCapture) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.total += len(p)
	if c.spill == nil && c.spillErr == nil && c.total > tools.DefaultMaxBytes {
		c.openSpill()
	}
	if c.spill != nil {
		c.spill.Write(p) // a failing spill file costs only the full copy, never the command
	}
	c.buf = append(c.buf, p...)
	if keep := 2 * tools.DefaultMaxBytes; len(c.buf) > keep {
		c.buf = append(c.buf[:0], c.buf[len(c.buf)-keep:]...)
	}
	return len(p), nil
}

// openSpill starts the full-output file with what is held so far. c.mu must be held.
func (c *bashCapture) openSpill() {
	if c.spill, c.spillErr = os.CreateTemp("", "pi-bash-*.log"); c.spillErr == nil {
		c.spill.Write(c.buf)
	}
}

func (c *bashCapture) result() bashResult {
	c.mu.Lock()
	defer c.mu.Unlock()
	text, tr := tools.TruncateTail(string(c.buf), tools.DefaultMaxLines, tools.DefaultMaxBytes)
	res := bashResult{Output: strings.ToValidUTF8(text, "\uFFFD"), Truncated: tr.Truncated || c.total > len(c.buf)}
	if res.Truncated && c.spill == nil && c.spillErr == nil {
		c.openSpill() // cut by lines only: everything is still in buf
	}
	if res.Truncated && c.spill != nil {
		res.FullOutputPath = c.spill.Name()
	}
	return res
}

func (c *bashCapture) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.spill != nil {
		c.spill.Close()
	}
}

// bashMessage is pi's bashExecution message; session.ToLLM words it for the model.
func bashMessage(command string, r bashResult, exclude bool, now time.Time) provider.Message {
	extra := map[string]json.RawMessage{"command": jsonValue(command), "output": jsonValue(r.Output),
		"exitCode": jsonValue(r.ExitCode), "cancelled": jsonValue(r.Cancelled), "truncated": jsonValue(r.Truncated)}
	if r.FullOutputPath != "" {
		extra["fullOutputPath"] = jsonValue(r.FullOutputPath)
	}
	if exclude {
		extra["excludeFromContext"] = jsonValue(true)
	}
	return provider.Message{Role: session.RoleBashExecution, Timestamp: now.UnixMilli(), Extra: extra}
}

// jsonValue encodes strings, bools and int pointers, which always encode.
func jsonValue(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}

// recordBash adds a bashExecution message to the transcript and the session. While a run is
// going it waits for the run's end, so that it never lands between a tool call and its
// result; a run that starts first takes it in at its agent_start, ahead of the new prompt.
func (a *app) recordBash(m provider.Message) {
	a.ops.flushOnce.Do(func() {
		a.agent.Subscribe(func(_ context.Context, ev agent.Event) {
			if ev.Type == agent.EvAgentStart || ev.Type == agent.EvAgentEnd {
				a.flushBash()
			}
		})
	})
	a.ops.mu.Lock()
	a.ops.pendingBash = append(a.ops.pendingBash, m)
	a.ops.mu.Unlock()
	if !a.agent.IsRunning() {
		a.flushBash()
	}
}

func (a *app) flushBash() {
	a.ops.mu.Lock()
	pending := a.ops.pendingBash
	a.ops.pendingBash = nil
	a.ops.mu.Unlock()
	if len(pending) == 0 {
		return
	}
	a.agent.ReplaceMessages(append(a.agent.State().Messages, pending...))
	for _, m := range pending {
		if _, err := a.sess.AppendMessage(m); err != nil {
			fmt.Fprintln(a.stderr, "pi: recording a shell command in the session:", err)
		}
	}
}

// exportHTML writes the conversation as one self-contained HTML page (no scripts, no outside
// resources) and returns its path. An empty path means pi-session-<session file>.html in the
// working directory.
func (a *app) exportHTML(path string) (string, error) {
	if path == "" {
		base := strings.TrimSuffix(filepath.Base(a.sess.Path()), ".jsonl")
		if a.sess.Path() == "" {
			base = a.sess.ID()
		}
		path = filepath.Join(a.cwd, "pi-session-"+base+".html")
	}
	path, err := filepath.Abs(path)
	if err != nil {
		return "", fmt.Errorf("export to %q: %w", path, err)
	}
	page := exportPage{Title: "pi session " + a.sess.ID(), Model: a.agent.Model().ID,
		Items: exportItems(a.agent.MessagesView())}
	if name := a.sess.Name(); name != "" {
		page.Title = name
	}
	var buf strings.Builder
	if err := exportTemplate().Execute(&buf, page); err != nil {
		return "", fmt.Errorf("export to %s: %w", path, err)
	}
	if err := os.WriteFile(path, []byte(buf.String()), 0o644); err != nil {
		return "", fmt.Errorf("export to %s: %w", path, err)
	}
	return path, nil
}

type exportPage struct {
	Title, Model string
	Items        []exportItem
}

// exportItem is one message as the page shows it: a heading and its parts.
type exportItem struct {
	Class, Label string
	Parts        []exportPart
}

type exportPart struct{ Class, Text string }

func exportItems(msgs []provider.Message) []exportItem {
	out := make([]exportItem, 0, len(msgs))
	for i := range msgs {
		out = append(out, exportItemFor(&msgs[i]))
	}
	return out
}

func exportItemFor(m *provider.Message) exportItem {
	it := exportItem{Class: string(m.Role), Label: string(m.Role)}
	switch m.Role {
	case provider.RoleUser:
		it.Label = "You"
		it.Parts = blockParts(m.Content)
		if len(it.Parts) > 0 && strings.HasPrefix(it.Parts[0].Text, "<context>") {
			it.Parts = it.Parts[1:]
		}
	case provider.RoleAssistant:
		it.Label = "Assistant · " + m.Model
		it.Parts = blockParts(m.Content)
		if m.ErrorMessage != "" {
			it.Parts = append(it.Parts, exportPart{"error", string(m.StopReason) + ": " + m.ErrorMessage})
		}
	case provider.RoleToolResult:
		it.Label = "Result of " + m.ToolName
		it.Parts = blockParts(m.Content)
		if m.IsError {
			it.Class += " error"
		}
	case session.RoleBashExecution:
		it.Label = "Shell"
		var cmd, out string
		_ = json.Unmarshal(m.Extra["command"], &cmd)
		_ = json.Unmarshal(m.Extra["output"], &out)
		it.Parts = []exportPart{{"tool-call", "$ " + cmd}, {"text", out}}
	case session.RoleCompactionSummary, session.RoleBranchSummary:
		it.Label = "Summary of earlier conversation"
		it.Parts = []exportPart{{"text", session.Summary(m)}}
	default:
		it.Parts = blockParts(m.Content)
	}
	return it
}

func blockParts(blocks []provider.Block) []exportPart {
	var parts []exportPart
	for _, b := range blocks {
		switch b.Type {
		case provider.BlockText:
			parts = append(parts, exportPart{"text", b.Text})
		case provider.BlockThinking:
			parts = append(parts, exportPart{"thinking", b.Thinking})
		case provider.BlockToolCall:
			args, _ := json.MarshalIndent(b.Arguments, "", "  ") // decoded JSON always encodes
			parts = append(parts, exportPart{"tool-call", b.Name + " " + string(args)})
		default:
			parts = append(parts, exportPart{"note", "[" + string(b.Type) + "]"})
		}
	}
	return parts
}

// exportTemplate escapes every text it inserts (html/template). It is parsed per export, which
// is rare, rather than kept in a package variable.
func exportTemplate() *template.Template {
	return template.Must(template.New("export").Parse(exportPageHTML))
}

const exportPageHTML = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>
body{font:15px/1.5 system-ui,sans-serif;max-width:52rem;margin:2rem auto;padding:0 1rem;color:#222;background:#fafafa}
section{border-left:4px solid #bbb;background:#fff;margin:1rem 0;padding:.5rem 1rem;border-radius:4px}
section.user{border-color:#3a7bd5}section.assistant{border-color:#2e9e5b}
section.toolResult{border-color:#999}section.error{border-color:#d33}
h2{font-size:.8rem;text-transform:uppercase;letter-spacing:.05em;color:#666;margin:.2rem 0}
pre{white-space:pre-wrap;word-wrap:break-word;font:13px/1.4 ui-monospace,monospace;margin:.4rem 0}
pre.text{font:15px/1.5 system-ui,sans-serif}pre.thinking{color:#777;font-style:italic}
pre.tool-call{background:#f2f2f2;padding:.4rem}pre.error{color:#d33}
</style></head><body>
<h1>{{.Title}}</h1><p>Model: {{.Model}}</p>
{{range .Items}}<section class="{{.Class}}"><h2>{{.Label}}</h2>
{{range .Parts}}<pre class="{{.Class}}">{{.Text}}</pre>
{{end}}</section>
{{end}}</body></html>
`
