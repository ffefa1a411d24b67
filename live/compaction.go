package live

// compaction.go compacts the conversation when the context nears the model's window: between
// the turns of a tool loop too, once after a provider reports an overflow (then the reply is
// retried), and at the user's request.

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"pi/agent"
	"pi/provider"
	"pi/session"
)

// ErrOverflowAfterCompaction is the answer when a compacted conversation still does not fit.
var ErrOverflowAfterCompaction = errors.New("the conversation is still too long for the model's context window " +
	"after compacting it once")

// compactor runs compactions for one session. Callers hold a slot of the work registry that
// owns the transcript (a run or a manual compaction).
type compactor struct {
	agent    *agent.Agent
	cwd      string // names the files of a request too big, relative to it
	rec      *recorder
	settings *settings
	scripts  *scripts
	active   atomic.Int32 // compactions under way: manual, threshold or overflow
}

// running reports whether a compaction is under way (get_state's isCompacting).
func (c *compactor) running() bool { return c.active.Load() > 0 }

// prepareNextTurn compacts before a model call when the context has passed the threshold, so
// a long tool loop compacts before the provider refuses it. A request whose fixed part alone
// is estimated bigger than the window is not sent: the run ends saying what is too big.
func (c *compactor) prepareNextTurn(ctx context.Context, ag *agent.Agent) error {
	settings := c.settings.compactionSettings()
	model := ag.Model()
	if model.ContextWindow <= 0 {
		return nil
	}
	size := c.measureRequest()
	if size.fixed() > model.ContextWindow {
		return size.tooBig(c.cwd)
	}
	if !settings.ShouldCompact(session.ContextTokens(ag.MessagesView()), model.ContextWindow) || size.compactionCannotHelp() {
		return nil
	}
	if _, err := c.compact(ctx, session.ReasonThreshold, "", false); err != nil && ctx.Err() != nil {
		return err
	}
	return nil // a failed threshold compaction is reported in its event; the turn goes on
}

// compact runs one compaction with its events and hands the new context to the agent.
func (c *compactor) compact(ctx context.Context, reason session.Reason, focus string, willRetry bool) (*session.Result, error) {
	c.active.Add(1)
	defer c.active.Add(-1)
	c.agent.Emit(agent.Event{Type: agent.EvCompactionStart, Compaction: &agent.CompactionInfo{Reason: string(reason)}})
	st := c.agent.State()
	sc := &session.Compactor{Provider: c.agent.Provider(), Model: st.Model, Settings: c.settings.compactionSettings(),
		Thinking: st.Thinking, BeforeCompact: c.scripts.beforeCompact}
	if reason == session.ReasonManual {
		sc.Settings.Enabled = true
	}
	res, err := sc.Compact(ctx, c.rec.session(), reason, focus)
	info := &agent.CompactionInfo{Reason: string(reason), WillRetry: willRetry && err == nil, Aborted: ctx.Err() != nil}
	if err != nil {
		info.Error = err.Error()
	} else {
		info.Result = &agent.CompactionResult{Summary: res.Summary, FirstKeptEntryID: res.FirstKeptEntryID,
			TokensBefore: res.TokensBefore, TokensAfter: res.TokensAfter}
		c.agent.ReplaceMessages(res.Context.Messages)
	}
	c.agent.Emit(agent.Event{Type: agent.EvCompactionEnd, Compaction: info})
	if err == nil {
		c.scripts.emit("session_compact", map[string]any{"from_extension": res.FromHook,
			"tokens_before": res.TokensBefore, "tokens_after": res.TokensAfter, "summary": res.Summary})
	}
	return res, err
}

// recoverOverflow follows a run that ended with the model refusing the context as too long:
// it compacts and continues the run once.
func (c *compactor) recoverOverflow(ctx context.Context) error {
	if !c.overflowed() || !c.settings.compactionSettings().Enabled {
		return nil // without compaction the provider's error stands, as the user asked
	}
	if size := c.measureRequest(); size.compactionCannotHelp() {
		return size.tooBig(c.cwd) // a new session, or the part no compaction touches
	}
	if _, err := c.compact(ctx, session.ReasonOverflow, "", true); err != nil {
		return nil // reported in compaction_end; the provider's error stands
	}
	c.dropFailedTail()
	if err := c.agent.Continue(ctx); err != nil {
		return err
	}
	if c.overflowed() {
		return fmt.Errorf("%w: %s", ErrOverflowAfterCompaction, c.measureRequest().advice(c.cwd))
	}
	return nil
}

func (c *compactor) overflowed() bool {
	msgs := c.agent.MessagesView()
	if len(msgs) == 0 {
		return false
	}
	last := &msgs[len(msgs)-1]
	return last.Role == provider.RoleAssistant && provider.IsContextOverflow(last)
}

// dropFailedTail removes a failed reply from the end of the transcript the model sees; the
// session file keeps it.
func (c *compactor) dropFailedTail() {
	msgs := c.agent.State().Messages
	for len(msgs) > 0 && msgs[len(msgs)-1].Failed() {
		msgs = msgs[:len(msgs)-1]
	}
	c.agent.ReplaceMessages(msgs)
}
