// Package eval is `pi eval`: it runs small coding tasks against a model and reports how it
// did — whether the outcome was right, and what it cost in turns, tool errors, tokens and time.
// The same tasks, with recorded scripts instead of a model, are pi's regression test
// (golden_test.go).
//
// It owns the tasks (task.toml, the built-in set in testdata/golden), the scratch copies they
// run in, the checks that judge them, the measurements, and the reports (the table, --json,
// --compare). It does not own the agent: it must not import the root package (nothing may).
// Package main hands Main a Drive in its Options instead, which sets an agent up for one run and
// gives it the prompt — the hook that cmd/go/internal/base declares for package main to fill
// in, but as a field rather than a package variable (eval keeps no mutable package state). Nor
// does it set up process groups itself: a check runs through pi/internal/proc.
//
// A task is a folder (documented in docs/eval.md):
//
//	task.toml    prompt, check, max_turns, timeout_seconds, and optionally tools, description
//	fixture/     the tiny project the task starts from; copied fresh for every run
//	script.json  optional: faux replies that solve the task (pi --faux-script format)
//
// Each run works in a scratch copy of the fixture with its own session folder, inside the same
// process: the Drive wires the agent as for any other mode, with the copy as its working
// directory. The check is a shell command run in the copy afterwards; it finds the final answer
// in the file named by $PI_EVAL_ANSWER and the task folder in $PI_EVAL_TASK.
package eval

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"pi/provider"
	"strings"
	"time"
)

// flags are the options of `pi eval`.
type flags struct {
	model    string
	tasksDir string
	runs     int
	jsonOut  string
	htmlOut  string
	filter   string
	keep     bool
	compare  bool
}

// helpText is `pi eval -h`, in the shape of `pi -h`.
const helpText = `pi eval: run small coding tasks against a model and report how it did

Usage:
  pi eval --model provider/model [flags]  run the tasks (default: the built-in set)
  pi eval --compare a.json b.json [--html page.html]  two result files side by side

Flags:
  --model provider/model  the model to evaluate, e.g. ollama/qwen3:1.7b (faux replays each
                          task's script.json)
  --tasks folder          a folder of task folders, or one task folder
  --run regexp            only the tasks whose name matches
  --runs N                runs per task; more than one gives a pass rate (default 1)
  --json file             write the results as JSON (what --compare reads)
  --html file             write the results as one self-contained page with bar charts
  --keep                  keep each run's scratch folder (fixture copy, session, answer) and
                          print its path
  --compare               compare two result files
  -h, --help              this help

Exit status: 0 when every run passed, 1 when some failed, 2 on a usage error.
The manual: docs/eval.md.
`

func parseArgs(args []string, stdout, stderr io.Writer) (*flags, []string, error) {
	f := &flags{}
	fs := flag.NewFlagSet("pi eval", flag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors are reported in pi's words below
	fs.StringVar(&f.model, "model", "", "")
	fs.StringVar(&f.tasksDir, "tasks", "", "")
	fs.IntVar(&f.runs, "runs", 1, "")
	fs.StringVar(&f.jsonOut, "json", "", "")
	fs.StringVar(&f.htmlOut, "html", "", "")
	fs.StringVar(&f.filter, "run", "", "")
	fs.BoolVar(&f.keep, "keep", false, "")
	fs.BoolVar(&f.compare, "compare", false, "")
	err := fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprint(stdout, helpText)
	case err != nil:
		fmt.Fprintf(stderr, "pi eval: %v (pi eval -h lists the flags)\n", err)
	}
	if err != nil {
		return nil, nil, err
	}
	return f, fs.Args(), nil
}

// Main is `pi eval` (args follow the word eval). It exits 0 only when every run passed, 1 when
// some failed, 2 on usage errors.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer, opts Options) int {
	f, rest, err := parseArgs(args, stdout, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		return 2
	}
	if f.compare {
		return runCompare(rest, f.htmlOut, stdout, stderr)
	}
	if f.model == "" || len(rest) > 0 || f.runs < 1 {
		fmt.Fprintln(stderr, "pi eval: give --model provider/model (e.g. ollama/qwen3:1.7b), --runs of at least 1, and no other arguments")
		return 2
	}
	tasks, cleanup, err := taskSet(f)
	if err != nil {
		fmt.Fprintln(stderr, "pi eval:", err)
		return 2
	}
	defer cleanup()
	if err := checkModel(ctx, opts, f.model); err != nil {
		fmt.Fprintln(stderr, "pi eval:", err)
		return 1
	}
	rep := runTasks(ctx, f, tasks, opts.Drive, stderr)
	printReport(stdout, rep)
	if err := writeOutputs(f, rep); err != nil {
		fmt.Fprintln(stderr, "pi eval:", err)
		return 1
	}
	if ctx.Err() != nil || rep.Totals.Passed < rep.Totals.Runs {
		return 1
	}
	return 0
}

// writeOutputs writes the --json file and the --html page that were asked for.
func writeOutputs(f *flags, rep *report) error {
	if f.jsonOut != "" {
		if err := writeReport(f.jsonOut, rep); err != nil {
			return err
		}
	}
	if f.htmlOut != "" {
		return writeHTML(f.htmlOut, []string{cmp.Or(f.jsonOut, "this run")}, []*report{rep})
	}
	return nil
}

// checkModel resolves the model once before any task runs, so that a server that is down or a
// model that is not pulled is one clear error instead of a failure per task.
func checkModel(ctx context.Context, opts Options, model string) error {
	if isFaux(model) || opts.CheckModel == nil {
		return nil
	}
	return opts.CheckModel(ctx, model)
}

// isFaux says whether a model spec names the faux provider, which replays each task's script.
func isFaux(model string) bool { return model == "faux" || strings.HasPrefix(model, "faux/") }

func runTasks(ctx context.Context, f *flags, tasks []*task, drive Drive, progress io.Writer) *report {
	rep := &report{Model: f.model, Started: time.Now().UTC(), Tasks: f.tasksDir}
	if rep.Tasks == "" {
		rep.Tasks = "built-in"
	}
	total := len(tasks) * f.runs
	n := 0
tasks:
	for _, t := range tasks {
		for r := 1; r <= f.runs; r++ {
			n++
			if ctx.Err() != nil {
				break tasks // interrupted: report what ran
			}
			fmt.Fprintf(progress, "[%d/%d] %s (run %d/%d)\n", n, total, t.Name, r, f.runs)
			res := runOneTask(ctx, f, t, drive, progress)
			res.Run = r
			fmt.Fprintf(progress, "  %s in %d turns, %d tool calls (%d recovered from text), %.1fs%s\n", passWord(res.Pass),
				res.Turns, res.ToolCalls, res.TextCalls, float64(res.WallMs)/1000, reasonSuffix(res.Reason))
			if res.Scratch != "" {
				fmt.Fprintf(progress, "  kept in %s\n", res.Scratch)
			}
			rep.Runs = append(rep.Runs, res)
		}
	}
	rep.Totals = totalsOf(rep.Runs)
	return rep
}

func passWord(ok bool) string {
	if ok {
		return "pass"
	}
	return "FAIL"
}

func reasonSuffix(r string) string {
	if r == "" {
		return ""
	}
	return ": " + r
}

// runOneTask runs a task once in a fresh copy of its fixture and checks the outcome.
func runOneTask(ctx context.Context, f *flags, t *task, drive Drive, progress io.Writer) runResult {
	res := runResult{Task: t.Name, ReprocessedSource: "n/a"}
	s, err := newScratch(t)
	if err != nil {
		res.Reason = err.Error()
		return res
	}
	if f.keep {
		res.Scratch = s.root
	} else {
		defer os.RemoveAll(s.root)
	}
	answer, reason, confine := driveTask(ctx, drive, runFor(f.model, t, s), t, &res, progress)
	res.Answer = provider.OneLine(answer, 300)
	if reason != "" {
		res.Reason = reason
		return res
	}
	pass, why, err := checkOutcome(ctx, t, s, answer, confine)
	res.Pass = pass
	res.Reason = why
	if err != nil {
		res.Reason = err.Error()
	}
	if !pass && answer != "" && strings.Contains(why, "check exited") {
		res.Reason += fmt.Sprintf(" (answer: %q)", provider.OneLine(answer, 80))
	}
	return res
}
