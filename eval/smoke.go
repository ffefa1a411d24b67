package eval

// Smoke is a short `pi eval` for other commands (pi doctor): a few built-in tasks, one run
// each, with the results handed back rather than printed as a table.

import (
	"context"
	"io"
	"regexp"
	"strings"
)

// SmokeTasks are the built-in tasks a quick check runs: each needs one or two tool calls.
func SmokeTasks() []string {
	return []string{"fix-greeting-typo", "count-todos", "explain-exit-code"}
}

// SmokeRun is one task's outcome in a smoke run.
type SmokeRun struct {
	Task   string `json:"task"`
	Pass   bool   `json:"pass"`
	Reason string `json:"reason,omitempty"`
	Turns  int    `json:"turns"`
	WallMs int64  `json:"wallMs"`
}

// Smoke runs the named built-in tasks once each against model through opts.Drive, writing
// progress lines to progress. Tasks that ctx left no time for are not in the result.
func Smoke(ctx context.Context, model string, tasks []string, opts Options, progress io.Writer) ([]SmokeRun, error) {
	quoted := make([]string, len(tasks))
	for i, t := range tasks {
		quoted[i] = regexp.QuoteMeta(t)
	}
	f := &flags{model: model, runs: 1, filter: "^(" + strings.Join(quoted, "|") + ")$"}
	set, cleanup, err := taskSet(f)
	if err != nil {
		return nil, err
	}
	defer cleanup()
	if err := checkModel(ctx, opts, model); err != nil {
		return nil, err
	}
	rep := runTasks(ctx, f, set, opts.Drive, progress)
	out := make([]SmokeRun, 0, len(rep.Runs))
	for _, r := range rep.Runs {
		out = append(out, SmokeRun{Task: r.Task, Pass: r.Pass, Reason: r.Reason, Turns: r.Turns, WallMs: r.WallMs})
	}
	return out, nil
}
