package live

// recorder.go ties the agent to its session file: one subscription records every message,
// and the session operations every front end offers (new, switch, fork, clone) move the
// recording to another session. Each records what it changes, as pi does, so that a resumed
// session comes back the way it was left.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sync"

	"pi/agent"
	"pi/config"
	"pi/provider"
	"pi/session"
)

// recorder writes the agent's messages to the current session. It subscribes once, for the
// life of the live session; switching sessions only swaps the file it writes to.
type recorder struct {
	stderr      io.Writer
	unsubscribe func()

	mu   sync.Mutex
	sess *session.Session
}

func newRecorder(ag *agent.Agent, stderr io.Writer) *recorder {
	r := &recorder{stderr: stderr}
	r.unsubscribe = ag.Subscribe(r.onEvent)
	return r
}

func (r *recorder) onEvent(_ context.Context, ev agent.Event) {
	if ev.Type == agent.EvMessageEnd {
		r.append(*ev.Message)
	}
}

// append records one message in the current session.
func (r *recorder) append(m provider.Message) {
	if _, err := r.session().AppendMessage(m); err != nil {
		fmt.Fprintln(r.stderr, "pi: recording the session:", err)
	}
}

func (r *recorder) session() *session.Session {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.sess
}

// swap makes s the session recorded to and returns the previous one.
func (r *recorder) swap(s *session.Session) *session.Session {
	r.mu.Lock()
	defer r.mu.Unlock()
	old := r.sess
	r.sess = s
	return old
}

func (r *recorder) close() {
	r.unsubscribe()
	if s := r.swap(nil); s != nil {
		if err := s.Close(); err != nil {
			fmt.Fprintln(r.stderr, "pi: closing the session:", err)
		}
	}
}

// restore says which of a session's recorded settings the command line overrides.
type restore struct{ keepModel, keepThinking bool }

// attachSession makes s the recorded session and gives the agent its transcript, model and
// thinking level (unless the command line named them), recording any difference.
func (h *Session) attachSession(s *session.Session, keep restore) error {
	for _, w := range s.Warnings() {
		fmt.Fprintln(h.stderr, "pi: warning:", w)
	}
	restored, err := s.Context()
	if err != nil {
		return err
	}
	h.agent.ReplaceMessages(restored.Messages)
	cur := h.agent.Model()
	if !keep.keepModel && restored.ModelID != "" && (restored.Provider != cur.Provider || restored.ModelID != cur.ID) {
		h.settings.restoreModel(restored.Provider + "/" + restored.ModelID)
	}
	if !keep.keepThinking && restored.Thinking != "" && len(restored.Messages) > 0 {
		h.agent.SetThinking(restored.Thinking)
	}
	h.rec.swap(s)
	st := h.agent.Model()
	if restored.ModelID != st.ID || restored.Provider != st.Provider {
		if _, err := s.AppendModelChange(st.Provider, st.ID); err != nil {
			return err
		}
	}
	if level := config.LevelOrOff(h.settings.thinking()); level != config.LevelOrOff(restored.Thinking) {
		if _, err := s.AppendThinkingLevel(level); err != nil {
			return err
		}
	}
	h.restoreSchedules(s) // subagents.go: the schedules this file keeps run again
	return nil
}

// replaceSession makes s the current session once everything in flight has stopped. The old
// session is closed. Scripts see session_shutdown and session_start with the reason (new,
// resume or fork), as in pi; session_before_switch may cancel a new or resumed one (a fork
// asks session_before_fork before it is made).
func (h *Session) replaceSession(s *session.Session, reason string) error {
	if reason != "fork" && h.scripts.cancelled("session_before_switch", map[string]any{"reason": reason, "target_session_file": s.Path()}) {
		s.Close()
		return fmt.Errorf("%s session: a script's session_before_switch handler cancelled it", reason)
	}
	h.Quiesce()
	_, end, err := h.work.begin(context.Background(), workSession)
	if err != nil {
		s.Close()
		return err
	}
	defer h.shell.release(end)
	h.scripts.emit("session_shutdown", map[string]any{"reason": reason})
	h.agent.ClearQueues()
	h.shell.drop()
	old := h.rec.session()
	// A fork or clone goes on with the model in use; a resumed session comes back as it was.
	keep := restore{keepModel: reason == "fork", keepThinking: reason == "fork"}
	if err := h.attachSession(s, keep); err != nil {
		h.rec.swap(old)
		s.Close()
		return fmt.Errorf("opening session %s: %w", s.ID(), err)
	}
	if old != nil && old != s {
		if err := old.Close(); err != nil {
			fmt.Fprintln(h.stderr, "pi: closing the previous session:", err)
		}
	}
	start := map[string]any{"reason": reason}
	if old != nil && old.Path() != "" {
		start["previous_session_file"] = old.Path()
	}
	h.scripts.emit("session_start", start)
	h.queueChanged()
	h.prewarm()
	return nil
}

// NewSession starts an empty session beside the current one (in memory when the current one
// is). A parentSession is named in the new file's header.
func (h *Session) NewSession(parentSession string) error {
	var s *session.Session
	if cur := h.rec.session(); cur.Path() != "" {
		s = session.NewBeside(cur, h.cwd, parentSession)
	} else {
		s = session.InMemory(h.cwd)
	}
	return h.replaceSession(s, "new")
}

// SwitchSession continues the session in the file at path.
func (h *Session) SwitchSession(ctx context.Context, path string) error {
	if path == "" {
		return errors.New("switch_session: no session path given")
	}
	if abs, err := filepath.Abs(path); err == nil && h.rec.session().Path() != "" && abs == h.rec.session().Path() {
		h.Quiesce()
		return nil // already there; opening it again would trip over our own lock
	}
	open := session.Open
	if h.store != nil {
		open = h.store.Open
	}
	s, err := open(ctx, path)
	if err != nil {
		return fmt.Errorf("switching to session %s: %w", path, err)
	}
	return h.replaceSession(s, "resume")
}

// ForkAt starts a new session holding the conversation before the user message entryID, and
// returns that message's text so a front end can offer it for editing (pi's /fork).
func (h *Session) ForkAt(entryID string) (string, error) {
	sess := h.rec.session()
	e, err := sess.Entry(entryID)
	if err != nil {
		return "", fmt.Errorf("fork at %q: %w", entryID, err)
	}
	if e.Type != session.TypeMessage || e.Message == nil || e.Message.Role != provider.RoleUser {
		return "", fmt.Errorf("fork at %q: not a user message", entryID)
	}
	if h.scripts.cancelled("session_before_fork", map[string]any{"reason": "fork", "entry_id": entryID, "position": "before"}) {
		return "", errors.New("fork: a script's session_before_fork handler cancelled it")
	}
	text := session.EditableText(e.Message)
	if e.ParentID == "" {
		return text, h.NewSession(sess.Path())
	}
	s, err := sess.ForkAt(e.ParentID)
	if err != nil {
		return "", fmt.Errorf("fork at %q: %w", entryID, err)
	}
	return text, h.replaceSession(s, "fork")
}

// Clone copies the current branch into a new session and continues there (pi's /clone).
func (h *Session) Clone() error {
	sess := h.rec.session()
	if h.scripts.cancelled("session_before_fork", map[string]any{"reason": "fork", "entry_id": sess.Leaf(), "position": "at"}) {
		return errors.New("clone: a script's session_before_fork handler cancelled it")
	}
	s, err := sess.Clone()
	if err != nil {
		return fmt.Errorf("cloning session %s: %w", sess.ID(), err)
	}
	return h.replaceSession(s, "fork")
}
