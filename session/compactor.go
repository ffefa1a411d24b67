package session

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"time"

	"pi/provider"
)

// Reason says why a compaction runs; it is reported in compaction_start/compaction_end.
type Reason string

const (
	ReasonManual    Reason = "manual"    // /compact or the RPC compact command
	ReasonThreshold Reason = "threshold" // the context passed window minus reserve
	ReasonOverflow  Reason = "overflow"  // the provider refused the prompt as too long
)

// Errors a compaction can end with besides a provider failure.
var (
	ErrDisabled          = errors.New("compaction is disabled (compaction.enabled = false)")
	ErrNothingToCompact  = errors.New("nothing to compact: the conversation already fits in the kept tail")
	ErrCompactionAborted = errors.New("compaction cancelled by a hook")
)

// HookResult is what a BeforeCompact hook decides: cancel the compaction, or supply the
// summary (and optionally where the kept part starts and the details to store) instead of
// asking the model. The zero value lets the compaction go ahead as prepared.
type HookResult struct {
	Cancel           bool
	Summary          string
	FirstKeptEntryID string // "" keeps the prepared cut
	Details          any    // stored in the entry; nil stores nothing
}

// Compactor summarises the older part of a session with a model. The caller (the agent's
// PrepareNextTurn hook, the overflow handler, /compact) emits compaction_start/end around it
// and replaces the agent's transcript with Result.Context.Messages afterwards.
//
// Overflow protocol for the caller: on a reply for which provider.IsContextOverflow holds,
// drop that reply from the transcript, Compact with ReasonOverflow, and retry the turn once; a
// second overflow in the same prompt is reported to the user, not compacted again.
type Compactor struct {
	Provider provider.Provider
	Model    provider.Model // the session's model; its ContextWindow sizes the budgets
	Settings Settings
	Thinking string // thinking level for the summary calls; "" is off

	// BeforeCompact, when set, runs after the preparation and before any model call (the Lua
	// session_before_compact event).
	BeforeCompact func(ctx context.Context, reason Reason, p *Preparation) (HookResult, error)
}

// Result is a finished compaction.
type Result struct {
	EntryID          string
	Summary          string
	FirstKeptEntryID string
	TokensBefore     int
	TokensAfter      int // estimate of the rebuilt context
	FromHook         bool
	Context          Context // the context at the new leaf, to hand to the agent
}

// NeedsCompaction reports whether the context at the session's leaf passes the threshold.
func (c *Compactor) NeedsCompaction(s *Session) (bool, int, error) {
	ctx, err := s.Context()
	if err != nil {
		return false, 0, err
	}
	tokens := ContextTokens(ctx.Messages)
	return c.Settings.ShouldCompact(tokens, c.Model.ContextWindow), tokens, nil
}

// Compact summarises the session up to about Keep tokens from its leaf and appends the
// compaction entry. Threshold and overflow compactions return ErrDisabled when compaction is
// off; a manual one runs regardless, because the user asked for it. focus adds instructions
// to the summary prompt (/compact <focus>).
func (c *Compactor) Compact(ctx context.Context, s *Session, reason Reason, focus string) (*Result, error) {
	if !c.Settings.Enabled && reason != ReasonManual {
		return nil, ErrDisabled
	}
	path, err := s.activePath()
	if err != nil {
		return nil, err
	}
	window := c.Model.ContextWindow
	prep := Prepare(path, c.Settings.Keep(window))
	if prep == nil {
		// The estimate says everything fits in the kept tail, yet we are here: the model's
		// tokens run denser than characters/4, or the system prompt and tools take much of the
		// window. Summarise all but the latest exchange.
		prep = Prepare(path, 0)
	}
	if prep == nil {
		return nil, ErrNothingToCompact
	}
	summary, fromHook, err := c.summary(ctx, reason, prep, focus)
	if err != nil {
		return nil, fmt.Errorf("compaction (%s): %w", reason, err)
	}
	details := CompactionDetails{ReadFiles: prep.ReadFiles, ModifiedFiles: prep.ModifiedFiles}
	comp := Compaction{Summary: summary.text, FirstKeptEntryID: prep.FirstKeptEntryID,
		TokensBefore: prep.TokensBefore, Details: details, FromHook: fromHook}
	if fromHook {
		comp.Details = summary.details
		if summary.firstKept != "" {
			comp.FirstKeptEntryID = summary.firstKept
		}
	}
	id, err := s.AppendCompaction(comp)
	if err != nil {
		return nil, err
	}
	after, err := s.Context()
	if err != nil {
		return nil, err
	}
	return &Result{EntryID: id, Summary: comp.Summary, FirstKeptEntryID: comp.FirstKeptEntryID,
		TokensBefore: prep.TokensBefore, TokensAfter: ContextTokens(after.Messages), FromHook: fromHook,
		Context: after}, nil
}

type summaryOut struct {
	text      string
	firstKept string
	details   any
}

func (c *Compactor) summary(ctx context.Context, reason Reason, prep *Preparation, focus string) (summaryOut, bool, error) {
	if c.BeforeCompact != nil {
		h, err := c.BeforeCompact(ctx, reason, prep)
		if err != nil {
			return summaryOut{}, false, fmt.Errorf("compaction hook: %w", err)
		}
		if h.Cancel {
			return summaryOut{}, false, ErrCompactionAborted
		}
		if h.Summary != "" {
			return summaryOut{text: h.Summary, firstKept: h.FirstKeptEntryID, details: h.Details}, true, nil
		}
	}
	text, err := c.generate(ctx, prep, focus)
	if err != nil {
		return summaryOut{}, false, err
	}
	return summaryOut{text: text + fileListText(prep.ReadFiles, prep.ModifiedFiles)}, false, nil
}

// generate asks the model for the history summary and, for a split turn, the summary of the
// turn's start; the two requests run concurrently.
func (c *Compactor) generate(ctx context.Context, prep *Preparation, focus string) (string, error) {
	reserve := c.Settings.Reserve(c.Model.ContextWindow)
	var history, prefix string
	var herr, perr error
	var wg sync.WaitGroup
	if len(prep.TurnPrefix) > 0 {
		wg.Go(func() {
			prompt := summaryPrompt(serialize(prep.TurnPrefix, toolResultLimit), "", turnPrefixTask, "", c.inputBudget(reserve/2))
			prefix, perr = c.complete(ctx, prompt, reserve/2)
		})
	}
	previous := stripFileLists(prep.PreviousSummary)
	switch {
	case len(prep.ToSummarize) > 0:
		task := firstSummaryTask
		if previous != "" {
			task = updateSummaryTask
		}
		prompt := summaryPrompt(serialize(prep.ToSummarize, toolResultLimit), previous, task, focus, c.inputBudget(reserve*4/5))
		history, herr = c.complete(ctx, prompt, reserve*4/5)
	case previous != "":
		history = previous // nothing new before the split turn: the previous summary stands
	default:
		history = "(No earlier history: the session starts with the turn below.)"
	}
	wg.Wait()
	if err := errors.Join(herr, perr); err != nil {
		return "", err
	}
	if prefix != "" {
		history += splitTurnSeparator + prefix
	}
	return history, nil
}

// inputBudget is how many tokens a summary request may spend on its prompt: the window minus
// the answer and a margin for the system prompt and the chat template.
func (c *Compactor) inputBudget(maxTokens int) int {
	w := c.Model.ContextWindow
	if w <= 0 {
		return 1 << 30
	}
	return max(w-maxTokens-512, 256)
}

// complete sends one summary request (compaction or branch summary); callers say which.
func (c *Compactor) complete(ctx context.Context, prompt string, maxTokens int) (string, error) {
	req := &provider.Request{Model: c.Model, SystemPrompt: summarySystemPrompt,
		Messages: []provider.Message{{Role: provider.RoleUser, Content: []provider.Block{provider.Text(prompt)},
			Timestamp: time.Now().UnixMilli()}},
		Options: provider.Options{MaxTokens: maxTokens, Thinking: c.Thinking}}
	reply := c.Provider.Stream(ctx, req, func(provider.Event) {})
	switch reply.StopReason {
	case provider.StopError, provider.StopAborted:
		return "", fmt.Errorf("the summary from %s/%s failed: %s", c.Model.Provider, c.Model.ID, reply.ErrorMessage)
	}
	text := strings.TrimSpace(reply.TextContent())
	if text == "" {
		return "", fmt.Errorf("the summary from %s/%s was empty", c.Model.Provider, c.Model.ID)
	}
	return text, nil
}

// stripFileLists removes the file lists from a previous summary: they are carried in the
// entry's details and appended afresh, and a model asked to keep them would repeat them.
func stripFileLists(s string) string {
	if !strings.Contains(s, "-files>") {
		return strings.TrimSpace(s)
	}
	// Compiled here, not at package init: only a summary with file lists needs it.
	fileListPattern := regexp.MustCompile(`(?s)\s*<(read|modified)-files>.*?</(read|modified)-files>`)
	return strings.TrimSpace(fileListPattern.ReplaceAllString(s, ""))
}

// activePath returns the path to the leaf from the latest compaction's first kept entry on
// (with the settings entries before it), reading only those entries.
func (s *Session) activePath() ([]*Entry, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.leaf < 0 {
		return nil, nil
	}
	return s.activePathLocked(s.leaf)
}
