package eval

// The seam to the agent: what a Drive is given and reports, and how one task's run is driven
// through it within the task's budgets.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"pi/internal/proc"
	"pi/provider"
)

// Options are what Main needs of the program that embeds it, which owns the agent.
type Options struct {
	// Drive runs one task's prompt; required.
	Drive Drive
	// CheckModel resolves a model spec once before any task runs, so that a server that is down
	// or a model that is not pulled is one clear error instead of a failure per task. It is not
	// called for the faux model; nil skips the check.
	CheckModel func(ctx context.Context, model string) error
}

// Drive runs one task's prompt with an agent set up as for any other pi mode, and reports the
// transcript. ctx carries the task's time budget. An error that kept the agent from being set
// up is a *SetupError; any other error is the run's.
type Drive func(ctx context.Context, run Run) (Outcome, error)

// Run is what a Drive runs.
type Run struct {
	Model      string   // provider/model, as given to --model
	FauxScript string   // the task's script.json when Model is faux, else ""
	Cwd        string   // the scratch copy of the fixture: the tools' working directory
	SessionDir string   // where the run's session is written
	Tools      []string // the task's tool allow-list; empty means pi's default tools
	Prompt     string
	// OnTurn is to be called at the end of every turn, a failed one too, with its reply and
	// tool results, one call at a time; true stops the run after that turn. It prints the
	// progress line and enforces the turn budget.
	OnTurn func(assistant *provider.Message, toolResults []provider.Message) (stop bool)
}

// Outcome is what a Drive reports of a run that was set up.
type Outcome struct {
	Messages []provider.Message // the transcript: prompt, replies, tool results
	API      string             // the model's provider API (anthropic.API, ...), which says how to read its usage
	Wall     time.Duration      // from giving the prompt to the end of the run; setting up is not counted
	// Confine is the OS sandbox the run's commands ran in, nil for none: the check runs in it
	// too, since it runs what the model wrote.
	Confine proc.Confiner
}

// SetupError is a Drive's error when the agent could not be set up, so nothing ran. Log is what
// setting up printed (configuration warnings, say); a failure reason quotes its start.
type SetupError struct {
	Err error
	Log string
}

func (e *SetupError) Error() string { return "setup: " + e.Err.Error() }

func (e *SetupError) Unwrap() error { return e.Err }

// runFor is what a Drive is to run for a task in its scratch copy.
func runFor(model string, t *task, s *scratchRun) Run {
	run := Run{Model: model, Cwd: s.work, SessionDir: s.sessions, Tools: t.Tools, Prompt: t.Prompt}
	if isFaux(model) {
		run.FauxScript = filepath.Join(t.Dir, scriptFileName)
	}
	return run
}

// driveTask has drive run the task within its budgets, and fills in the measurements. It
// returns the final answer, and a reason when the run failed before the check could judge it.
func driveTask(ctx context.Context, drive Drive, run Run, t *task, res *runResult, progress io.Writer) (answer, reason string, confine proc.Confiner) {
	tctx, cancel := context.WithTimeout(ctx, t.timeout())
	defer cancel()
	turns := &turnWatch{max: t.MaxTurns, progress: progress}
	run.OnTurn = turns.onTurn
	out, err := drive(tctx, run)
	var setupErr *SetupError
	if errors.As(err, &setupErr) {
		return "", setupErr.Error() + reasonSuffix(provider.OneLine(setupErr.Log, 200)), nil
	}
	res.WallMs = out.Wall.Milliseconds()
	measure(res, out.Messages, out.API)
	last := provider.LastAssistant(out.Messages)
	if last != nil {
		answer = last.TextContent()
	}
	switch {
	case ctx.Err() != nil:
		return answer, "interrupted", out.Confine
	case tctx.Err() != nil:
		return answer, fmt.Sprintf("time budget of %s used up", t.timeout()), out.Confine
	case err != nil:
		return answer, "run: " + err.Error(), out.Confine
	case last.Failed():
		return answer, "model error: " + last.FailureText(), out.Confine
	case turns.exceeded:
		return answer, fmt.Sprintf("turn budget of %d used up while the model still called tools", t.MaxTurns), out.Confine
	case last == nil:
		return answer, "the model gave no reply", out.Confine
	}
	return answer, "", out.Confine
}

// turnWatch is a run's OnTurn: it prints a line per turn, and stops the run after max model
// calls when the reply still calls tools. exceeded is read only after the run has ended.
type turnWatch struct {
	progress   io.Writer
	max, turns int
	exceeded   bool
}

func (w *turnWatch) onTurn(m *provider.Message, results []provider.Message) bool {
	w.turns++
	fmt.Fprintf(w.progress, "    turn %d: %s\n", w.turns, turnSummary(m, results))
	if w.turns >= w.max && len(m.ToolCalls()) > 0 {
		w.exceeded = true
		return true
	}
	return false
}

// turnSummary is what a turn did: the tools it called and how many failed, its answer, or how
// the model call failed.
func turnSummary(m *provider.Message, results []provider.Message) string {
	var names []string
	for _, c := range m.ToolCalls() {
		names = append(names, c.Name)
	}
	errs := 0
	for _, r := range results {
		if r.IsError {
			errs++
		}
	}
	what := "answer"
	switch {
	case m.Failed():
		what = string(m.StopReason)
	case len(names) > 0:
		what = strings.Join(names, ", ")
	}
	if errs > 0 {
		what += fmt.Sprintf(" (%d failed)", errs)
	}
	return what
}
