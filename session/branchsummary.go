package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"pi/provider"
)

// ErrNothingToSummarize means a move through the tree leaves no conversation behind: the
// target lies ahead of the leaf on its own path, or the abandoned entries hold no messages.
var ErrNothingToSummarize = errors.New("nothing to summarise: the move leaves no messages behind")

// branchSummaryMaxTokens caps the answer, as pi does: a branch summary is a note about a side
// trip, shorter than a compaction checkpoint.
const branchSummaryMaxTokens = 2048

// The branch-summary task, in our words. It shares the system prompt with compaction; the
// sections are the part of a checkpoint that still matters once the user has turned back.
const branchSummaryTask = `The transcript above is a line of work the user has now left: the conversation goes back to an earlier point and continues from there. Write a short record of that line of work, so that whoever continues knows what was tried and learned on it.

Use exactly these headings, in this order:

## Goal
What the user wanted from this line of work.

## Constraints & Preferences
- Requirements and preferences the user stated, or "(none)".

## Progress
### Done
- [x] What was finished.
### In Progress
- [ ] What was started and left unfinished.
### Blocked
- What stood in the way, or "(none)".

## Key Decisions
- **Decision**: the reason for it.

## Next Steps
1. What would have come next, in order.

Be brief. Quote file paths, identifiers, commands and error messages exactly.`

// AbandonedEntries returns what a move of the leaf from fromLeaf to targetID leaves behind:
// the entries on the path to fromLeaf below the deepest entry that path shares with the path
// to targetID, oldest first. targetID "" stands for the root (everything on the path is
// left); fromLeaf "" (an empty conversation) leaves nothing.
func (s *Session) AbandonedEntries(fromLeaf, targetID string) ([]Entry, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if fromLeaf == "" {
		return nil, nil
	}
	from, ok := s.byID[fromLeaf]
	if !ok {
		return nil, fmt.Errorf("branch summary: leaf %q not found", fromLeaf)
	}
	var kept []int
	if targetID != "" {
		to, ok := s.byID[targetID]
		if !ok {
			return nil, fmt.Errorf("branch summary: target %q not found", targetID)
		}
		kept = s.pathIndices(to)
	}
	left := s.pathIndices(from)
	shared := 0
	for shared < len(left) && shared < len(kept) && left[shared] == kept[shared] {
		shared++
	}
	return s.copies(left[shared:])
}

// BranchPreparation is what a branch summary is made from, computed without a model.
type BranchPreparation struct {
	Messages      []provider.Message // the newest abandoned messages that fit the budget, oldest first
	Skipped       int                // older abandoned messages left out for the budget
	ReadFiles     []string           // files only read anywhere on the abandoned path
	ModifiedFiles []string           // files written or edited there
}

// PrepareBranch picks the messages of abandoned entries (oldest first) to summarise: newest
// first, while their transcript fits budget tokens (0: no limit). A compaction on the path
// ends the walk, since its summary stands for everything before it. The file lists cover the
// whole abandoned path, including what nested summaries recorded.
func PrepareBranch(entries []Entry, budget int) BranchPreparation {
	var p BranchPreparation
	var all []provider.Message
	used := 0
	for i := len(entries) - 1; i >= 0; i-- {
		e := &entries[i]
		var msgs []provider.Message
		if e.Type == TypeCompaction {
			msgs = []provider.Message{compactionSummaryMessage(e)}
		} else {
			msgs = appendContextMessage(nil, e)
		}
		all = append(all, msgs...)
		for j := len(msgs) - 1; j >= 0; j-- {
			cost := transcriptTokens(msgs[j])
			if budget > 0 && used+cost > budget || p.Skipped > 0 {
				p.Skipped++
				continue
			}
			used += cost
			p.Messages = append(p.Messages, msgs[j])
		}
		if e.Type == TypeCompaction {
			break
		}
	}
	for l, r := 0, len(p.Messages)-1; l < r; l, r = l+1, r-1 {
		p.Messages[l], p.Messages[r] = p.Messages[r], p.Messages[l]
	}
	p.ReadFiles, p.ModifiedFiles = branchFileLists(entries, all)
	return p
}

// transcriptTokens estimates a message as the summariser will see it: serialised, with tool
// output cut, so a long tool result costs only what is sent.
func transcriptTokens(m provider.Message) int {
	n := 0
	for _, part := range serialize([]provider.Message{m}, toolResultLimit) {
		n += len(part) + 2
	}
	return (n + 3) / 4
}

// branchFileLists gathers the files the abandoned messages read and modified, and those that
// summaries on the path recorded (hook-written details are the hook's own and are skipped).
func branchFileLists(entries []Entry, msgs []provider.Message) (read, modified []string) {
	reads, mods := map[string]bool{}, map[string]bool{}
	r, m := fileLists(nil, -1, msgs)
	for _, f := range r {
		reads[f] = true
	}
	for _, f := range m {
		mods[f] = true
	}
	for i := range entries {
		e := &entries[i]
		if e.Type != TypeCompaction && e.Type != TypeBranchSummary || e.FromHook != nil && *e.FromHook || e.Details == nil {
			continue
		}
		var d CompactionDetails
		if json.Unmarshal(e.Details, &d) != nil {
			continue
		}
		for _, f := range d.ReadFiles {
			reads[f] = true
		}
		for _, f := range d.ModifiedFiles {
			mods[f] = true
		}
	}
	for f := range mods {
		delete(reads, f)
	}
	return sortedKeys(reads), sortedKeys(mods)
}

// SummarizeBranch asks the model to summarise what moving the leaf from fromLeaf to targetID
// leaves behind (pi's branch summary for /tree), with focus as extra instructions. It records
// nothing: the caller stores the result with Session.BranchWithSummary at the entry it moves
// to, details included. The summary ends with the read and modified file lists. When nothing
// is left behind the error is ErrNothingToSummarize.
func (c *Compactor) SummarizeBranch(ctx context.Context, s *Session, fromLeaf, targetID, focus string) (string, CompactionDetails, error) {
	entries, err := s.AbandonedEntries(fromLeaf, targetID)
	if err != nil {
		return "", CompactionDetails{}, err
	}
	window := c.Model.ContextWindow
	budget := 0
	if window > 0 {
		budget = max(window-c.Settings.Reserve(window), 256)
	}
	prep := PrepareBranch(entries, budget)
	if len(prep.Messages) == 0 {
		return "", CompactionDetails{}, ErrNothingToSummarize
	}
	maxTokens := branchSummaryMaxTokens
	if window > 0 {
		maxTokens = min(maxTokens, c.Settings.Reserve(window))
	}
	prompt := summaryPrompt(serialize(prep.Messages, toolResultLimit), "", branchSummaryTask,
		strings.TrimSpace(focus), c.inputBudget(maxTokens))
	text, err := c.complete(ctx, prompt, maxTokens)
	if err != nil {
		return "", CompactionDetails{}, fmt.Errorf("summarising the branch ending at %s: %w", fromLeaf, err)
	}
	details := CompactionDetails{ReadFiles: prep.ReadFiles, ModifiedFiles: prep.ModifiedFiles}
	return text + fileListText(prep.ReadFiles, prep.ModifiedFiles), details, nil
}
