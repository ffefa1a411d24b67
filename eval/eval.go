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
// does it set up process groups itself: that will be pi/internal/proc's; for now a check runs
// with exec.CommandContext.
//
// A task is a folder (documented in the README's pi eval section):
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
	"context"
	"embed"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"pi/provider"
	"pi/provider/anthropic"
	"pi/provider/ollama"
	"pi/provider/openai"

	"github.com/BurntSushi/toml"
)

// goldenTasks is the built-in task set, so that `pi eval` works outside the source tree. "all:"
// keeps dotfiles such as a fixture's .gitignore.
//
//go:embed all:testdata/golden
var goldenTasks embed.FS

const (
	goldenRoot      = "testdata/golden"
	taskFileName    = "task.toml"
	fixtureDirName  = "fixture"
	scriptFileName  = "script.json"
	answerEnv       = "PI_EVAL_ANSWER"
	taskDirEnv      = "PI_EVAL_TASK"
	defaultMaxTurns = 12
	defaultTimeout  = 5 * time.Minute
	checkTimeout    = 2 * time.Minute
	// fixtureGoMod is how a fixture stores its go.mod: a folder holding a real go.mod is a module
	// of its own, which the Go tool leaves out of embedding. Copies get the real name back.
	fixtureGoMod = "_go.mod"
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
}

// SetupError is a Drive's error when the agent could not be set up, so nothing ran. Log is what
// setting up printed (configuration warnings, say); a failure reason quotes its start.
type SetupError struct {
	Err error
	Log string
}

func (e *SetupError) Error() string { return "setup: " + e.Err.Error() }
func (e *SetupError) Unwrap() error { return e.Err }

// task is one task folder.
type task struct {
	Name           string   `toml:"-"`
	Dir            string   `toml:"-"` // absolute
	Description    string   `toml:"description"`
	Category       string   `toml:"category"`
	Prompt         string   `toml:"prompt"`
	Check          string   `toml:"check"`
	MaxTurns       int      `toml:"max_turns"`
	TimeoutSeconds int      `toml:"timeout_seconds"`
	Tools          []string `toml:"tools"`
}

func (t *task) timeout() time.Duration {
	if t.TimeoutSeconds > 0 {
		return time.Duration(t.TimeoutSeconds) * time.Second
	}
	return defaultTimeout
}

// loadTask reads dir/task.toml. Unknown keys are errors: a misspelt max_turns would otherwise
// silently give the default budget.
func loadTask(dir string) (*task, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("task %s: %w", dir, err)
	}
	t := &task{Name: filepath.Base(abs), Dir: abs}
	path := filepath.Join(abs, taskFileName)
	md, err := toml.DecodeFile(path, t)
	if err != nil {
		return nil, fmt.Errorf("task %s: %w", path, err)
	}
	if und := md.Undecoded(); len(und) > 0 {
		return nil, fmt.Errorf("task %s: unknown key %q (known: description, category, prompt, check, max_turns, timeout_seconds, tools)", path, und[0].String())
	}
	switch {
	case strings.TrimSpace(t.Prompt) == "":
		return nil, fmt.Errorf("task %s: prompt is empty", path)
	case strings.TrimSpace(t.Check) == "":
		return nil, fmt.Errorf("task %s: check is empty: give a shell command that exits 0 when the outcome is right", path)
	case t.MaxTurns < 0 || t.TimeoutSeconds < 0:
		return nil, fmt.Errorf("task %s: max_turns and timeout_seconds must not be negative", path)
	}
	if t.MaxTurns == 0 {
		t.MaxTurns = defaultMaxTurns
	}
	return t, nil
}

// loadTasks reads a task folder, or a folder of task folders (in name order).
func loadTasks(dir string) ([]*task, error) {
	if _, err := os.Stat(filepath.Join(dir, taskFileName)); err == nil {
		t, err := loadTask(dir)
		if err != nil {
			return nil, err
		}
		return []*task{t}, nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("tasks %s: %w", dir, err)
	}
	var out []*task
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		if _, err := os.Stat(filepath.Join(dir, e.Name(), taskFileName)); err != nil {
			continue
		}
		t, err := loadTask(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("tasks %s: no task folders (each needs a %s)", dir, taskFileName)
	}
	return out, nil
}

// copyTree copies the files under src (a folder of fsys) into dst, renaming _go.mod to go.mod
// and keeping the executable bit. A missing src makes an empty dst: a task may start from
// nothing.
func copyTree(fsys fs.FS, src, dst string) error {
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return fmt.Errorf("fixture copy %s: %w", dst, err)
	}
	if _, err := fs.Stat(fsys, src); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return fs.WalkDir(fsys, src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("fixture %s: %w", p, err)
		}
		rel, _ := filepath.Rel(src, p)
		if d.Name() == fixtureGoMod {
			rel = filepath.Join(filepath.Dir(rel), "go.mod")
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		return copyFile(fsys, p, target, d)
	})
}

func copyFile(fsys fs.FS, src, dst string, d fs.DirEntry) error {
	data, err := fs.ReadFile(fsys, src)
	if err != nil {
		return fmt.Errorf("fixture %s: %w", src, err)
	}
	mode := fs.FileMode(0o644)
	if info, err := d.Info(); err == nil && info.Mode()&0o111 != 0 {
		mode = 0o755
	}
	if err := os.WriteFile(dst, data, mode); err != nil {
		return fmt.Errorf("fixture copy %s: %w", dst, err)
	}
	return nil
}

// scratchRun is one run's scratch space: work is the fixture copy the agent works in.
type scratchRun struct {
	root, work, sessions, answer string
}

func newScratch(t *task) (*scratchRun, error) {
	root, err := os.MkdirTemp("", "pi-eval-"+t.Name+"-")
	if err != nil {
		return nil, fmt.Errorf("task %s: scratch folder: %w", t.Name, err)
	}
	s := &scratchRun{root: root, work: filepath.Join(root, "work"), sessions: filepath.Join(root, "sessions"),
		answer: filepath.Join(root, "answer.txt")}
	if err := copyTree(os.DirFS(t.Dir), fixtureDirName, s.work); err != nil {
		os.RemoveAll(root)
		return nil, fmt.Errorf("task %s: %w", t.Name, err)
	}
	return s, nil
}

// checkOutcome runs the task's check in the work folder. It reports whether it passed and,
// when not, the end of its output; err is for a check that could not be run at all.
func checkOutcome(ctx context.Context, t *task, s *scratchRun, answer string) (bool, string, error) {
	if err := os.WriteFile(s.answer, []byte(answer), 0o644); err != nil {
		return false, "", fmt.Errorf("task %s: writing the answer: %w", t.Name, err)
	}
	ctx, cancel := context.WithTimeout(ctx, checkTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", t.Check)
	cmd.Dir = s.work
	cmd.Env = append(os.Environ(), answerEnv+"="+s.answer, taskDirEnv+"="+t.Dir)
	cmd.WaitDelay = 5 * time.Second // a check's children (go test) may hold the pipes
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return true, "", nil
	case errors.As(err, &exit) && ctx.Err() == nil:
		return false, checkFailure(exit.ExitCode(), t.Check, string(out)), nil
	case ctx.Err() != nil:
		return false, fmt.Sprintf("check did not finish within %s", checkTimeout), nil
	}
	return false, "", fmt.Errorf("task %s: running check %q: %w", t.Name, t.Check, err)
}

// checkFailure says why a check failed: the first lines of its output that say something, or
// the command itself when it printed nothing (a grep for the expected answer, typically).
func checkFailure(code int, check, out string) string {
	var keep []string
	for _, line := range strings.Split(out, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || checkNoise.MatchString(line) {
			continue
		}
		if keep = append(keep, line); len(keep) == 2 {
			break
		}
	}
	if len(keep) == 0 {
		return fmt.Sprintf("check exited %d without output; it was: %s", code, oneLine(check, 200))
	}
	return fmt.Sprintf("check exited %d: %s", code, oneLine(strings.Join(keep, " | "), 200))
}

// checkNoise matches the summary lines of go test and the shell, which say only that
// something failed: "FAIL", "ok  pkg 0.1s", "FAIL pkg 0.1s", "# pkg", "exit status 1".
var checkNoise = regexp.MustCompile(`^(FAIL|PASS|ok)(\s|$)|^# |^exit status \d+$`)

// flags are the options of `pi eval`.
type flags struct {
	model    string
	tasksDir string
	runs     int
	jsonOut  string
	filter   string
	keep     bool
	compare  bool
}

func parseArgs(args []string, stderr io.Writer) (*flags, []string, error) {
	f := &flags{}
	fs := flag.NewFlagSet("pi eval", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&f.model, "model", "", "model to evaluate, as provider/model (faux replays each task's script.json)")
	fs.StringVar(&f.tasksDir, "tasks", "", "folder of task folders, or one task folder (default: the built-in set)")
	fs.IntVar(&f.runs, "runs", 1, "runs per task; more than one gives a pass rate")
	fs.StringVar(&f.jsonOut, "json", "", "write the results as JSON to this file")
	fs.StringVar(&f.filter, "run", "", "only tasks whose name matches this regular expression")
	fs.BoolVar(&f.keep, "keep", false, "keep each run's scratch folder (fixture copy, session, answer) and print its path")
	fs.BoolVar(&f.compare, "compare", false, "compare two result files: pi eval --compare a.json b.json")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: pi eval --model provider/model [--tasks dir] [--runs N] [--json out.json]")
		fmt.Fprintln(stderr, "       pi eval --compare a.json b.json")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return nil, nil, err
	}
	return f, fs.Args(), nil
}

// Main is `pi eval` (args follow the word eval). It exits 0 only when every run passed, 1 when
// some failed, 2 on usage errors.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer, opts Options) int {
	f, rest, err := parseArgs(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		return 2
	}
	if f.compare {
		return runCompare(rest, stdout, stderr)
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
	if f.jsonOut != "" {
		if err := writeReport(f.jsonOut, rep); err != nil {
			fmt.Fprintln(stderr, "pi eval:", err)
			return 1
		}
	}
	if ctx.Err() != nil || rep.Totals.Passed < rep.Totals.Runs {
		return 1
	}
	return 0
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

// taskSet loads --tasks, or unpacks the built-in set into a temporary folder (checks may
// run files of their task folder, so it must exist on disk). cleanup removes that folder.
func taskSet(f *flags) (tasks []*task, cleanup func(), err error) {
	cleanup = func() {}
	defer func() {
		if err != nil {
			cleanup()
			cleanup = func() {}
		}
	}()
	dir := f.tasksDir
	if dir == "" {
		if dir, err = os.MkdirTemp("", "pi-eval-tasks-"); err != nil {
			return nil, cleanup, fmt.Errorf("unpacking the built-in tasks: %w", err)
		}
		tmp := dir
		cleanup = func() { os.RemoveAll(tmp) }
		if err = os.CopyFS(dir, mustSub(goldenTasks, goldenRoot)); err != nil {
			return nil, cleanup, fmt.Errorf("unpacking the built-in tasks into %s: %w", dir, err)
		}
	}
	if tasks, err = loadTasks(dir); err != nil || f.filter == "" {
		return tasks, cleanup, err
	}
	re, err := regexp.Compile(f.filter)
	if err != nil {
		return nil, cleanup, fmt.Errorf("--run %q: %w", f.filter, err)
	}
	tasks = slices.DeleteFunc(tasks, func(t *task) bool { return !re.MatchString(t.Name) })
	if len(tasks) == 0 {
		return nil, cleanup, fmt.Errorf("--run %q matches no task in %s", f.filter, dir)
	}
	return tasks, cleanup, nil
}

// mustSub is fs.Sub of a path the embed directive guarantees.
func mustSub(fsys fs.FS, dir string) fs.FS {
	sub, err := fs.Sub(fsys, dir)
	if err != nil {
		panic(fmt.Sprintf("embedded %s: %v", dir, err))
	}
	return sub
}

// runResult is the outcome of one run of one task.
type runResult struct {
	Task       string `json:"task"`
	Run        int    `json:"run"`
	Pass       bool   `json:"pass"`
	Reason     string `json:"reason,omitempty"`
	Turns      int    `json:"turns"`
	ToolCalls  int    `json:"toolCalls"`
	ToolErrors int    `json:"toolErrors"`
	TokensIn   int    `json:"tokensIn"`
	TokensOut  int    `json:"tokensOut"`
	CacheRead  int    `json:"cacheRead"`
	// Reprocessed is the prompt tokens the server evaluated rather than took from its cache;
	// nil when the provider gives no way to know. ReprocessedSource says how it was found:
	// "reported" by the server, "estimated" (Ollama, see reprocessed), or "n/a".
	Reprocessed       *int   `json:"reprocessed"`
	ReprocessedSource string `json:"reprocessedSource"`
	WallMs            int64  `json:"wallMs"`
	Answer            string `json:"answer,omitempty"`
	Scratch           string `json:"scratch,omitempty"`
}

// report is what --json writes and --compare reads.
type report struct {
	Model   string      `json:"model"`
	Started time.Time   `json:"started"`
	Tasks   string      `json:"tasks"`
	Runs    []runResult `json:"runs"`
	Totals  totals      `json:"totals"`
}

type totals struct {
	Runs        int   `json:"runs"`
	Passed      int   `json:"passed"`
	Turns       int   `json:"turns"`
	ToolErrors  int   `json:"toolErrors"`
	TokensIn    int   `json:"tokensIn"`
	TokensOut   int   `json:"tokensOut"`
	Reprocessed *int  `json:"reprocessed"` // nil when no run could tell
	WallMs      int64 `json:"wallMs"`
}

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
			fmt.Fprintf(progress, "  %s in %d turns, %.1fs%s\n", passWord(res.Pass), res.Turns,
				float64(res.WallMs)/1000, reasonSuffix(res.Reason))
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

func totalsOf(runs []runResult) totals {
	var t totals
	for _, r := range runs {
		t.add(r)
	}
	return t
}

// add counts one run into the totals.
func (t *totals) add(r runResult) {
	t.Runs++
	if r.Pass {
		t.Passed++
	}
	t.Turns += r.Turns
	t.ToolErrors += r.ToolErrors
	t.TokensIn += r.TokensIn
	t.TokensOut += r.TokensOut
	t.WallMs += r.WallMs
	if r.Reprocessed != nil {
		t.Reprocessed = addPtr(t.Reprocessed, *r.Reprocessed)
	}
}

func addPtr(p *int, n int) *int {
	v := n
	if p != nil {
		v += *p
	}
	return &v
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
	answer, reason := driveTask(ctx, drive, runFor(f.model, t, s), t, &res, progress)
	res.Answer = oneLine(answer, 300)
	if reason != "" {
		res.Reason = reason
		return res
	}
	pass, why, err := checkOutcome(ctx, t, s, answer)
	res.Pass = pass
	res.Reason = why
	if err != nil {
		res.Reason = err.Error()
	}
	if !pass && answer != "" && strings.Contains(why, "check exited") {
		res.Reason += fmt.Sprintf(" (answer: %q)", oneLine(answer, 80))
	}
	return res
}

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
func driveTask(ctx context.Context, drive Drive, run Run, t *task, res *runResult, progress io.Writer) (string, string) {
	tctx, cancel := context.WithTimeout(ctx, t.timeout())
	defer cancel()
	turns := &turnWatch{max: t.MaxTurns, progress: progress}
	run.OnTurn = turns.onTurn
	out, err := drive(tctx, run)
	var setupErr *SetupError
	if errors.As(err, &setupErr) {
		return "", setupErr.Error() + reasonSuffix(oneLine(setupErr.Log, 200))
	}
	res.WallMs = out.Wall.Milliseconds()
	measure(res, out.Messages, out.API)
	last := lastAssistant(out.Messages)
	answer := ""
	if last != nil {
		answer = last.TextContent()
	}
	switch {
	case ctx.Err() != nil:
		return answer, "interrupted"
	case tctx.Err() != nil:
		return answer, fmt.Sprintf("time budget of %s used up", t.timeout())
	case err != nil:
		return answer, "run: " + err.Error()
	case failed(last):
		return answer, "model error: " + errorText(last)
	case turns.exceeded:
		return answer, fmt.Sprintf("turn budget of %d used up while the model still called tools", t.MaxTurns)
	case last == nil:
		return answer, "the model gave no reply"
	}
	return answer, ""
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
	case failed(m):
		what = string(m.StopReason)
	case len(names) > 0:
		what = strings.Join(names, ", ")
	}
	if errs > 0 {
		what += fmt.Sprintf(" (%d failed)", errs)
	}
	return what
}

// lastAssistant is the transcript's last reply, nil when there is none.
func lastAssistant(msgs []provider.Message) *provider.Message {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == provider.RoleAssistant {
			return &msgs[i]
		}
	}
	return nil
}

// failed says whether a reply is a failed or aborted model call.
func failed(m *provider.Message) bool {
	return m != nil && (m.StopReason == provider.StopError || m.StopReason == provider.StopAborted)
}

// errorText is why a failed reply failed.
func errorText(m *provider.Message) string {
	if m.ErrorMessage != "" {
		return m.ErrorMessage
	}
	return "the model call ended with " + string(m.StopReason)
}

// oneLine is s on one line (newlines and tabs become spaces), cut to limit runes with an
// ellipsis.
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

// measure counts turns, tool calls and errors, and tokens over the run's messages.
func measure(res *runResult, msgs []provider.Message, api string) {
	var replies []provider.Message
	for _, m := range msgs {
		switch m.Role {
		case provider.RoleAssistant:
			replies = append(replies, m)
			res.Turns++
			res.ToolCalls += len(m.ToolCalls())
			if m.Usage != nil {
				res.TokensIn += m.Usage.Input + m.Usage.CacheRead + m.Usage.CacheWrite
				res.TokensOut += m.Usage.Output
				res.CacheRead += m.Usage.CacheRead
			}
		case provider.RoleToolResult:
			if m.IsError {
				res.ToolErrors++
			}
		}
	}
	res.Reprocessed, res.ReprocessedSource = reprocessed(api, replies)
}

// reprocessed is how many prompt tokens the server evaluated instead of reading its cache.
//
//   - anthropic: reported; input tokens (the uncached part) plus cache writes.
//   - openai: reported only when the server names cached tokens in any reply (OpenAI, vLLM and
//     others do; many local servers do not, and then it is n/a): prompt minus cached.
//   - ollama: prompt_eval_count is the whole prompt, cached or not, so it is estimated as the
//     growth of each prompt over the previous request's prompt and output — what a server that
//     keeps the unchanged prefix in cache must evaluate. The first request counts whole. It is a
//     lower bound: a template that rewrites earlier turns (e.g. drops old thinking) costs more.
func reprocessed(api string, replies []provider.Message) (*int, string) {
	switch api {
	case anthropic.API:
		n := 0
		for _, m := range replies {
			if m.Usage != nil {
				n += m.Usage.Input + m.Usage.CacheWrite
			}
		}
		return &n, "reported"
	case openai.API:
		n, cached := 0, false
		for _, m := range replies {
			if m.Usage != nil {
				n += m.Usage.Input + m.Usage.CacheWrite
				cached = cached || m.Usage.CacheRead > 0
			}
		}
		if !cached {
			return nil, "n/a"
		}
		return &n, "reported"
	case ollama.API:
		return ollamaGrowth(replies), "estimated"
	}
	return nil, "n/a"
}

func ollamaGrowth(replies []provider.Message) *int {
	n, prevEnd := 0, 0
	for _, m := range replies {
		if m.Usage == nil || m.Usage.Input == 0 {
			continue // a failed request reports nothing
		}
		n += max(0, m.Usage.Input-prevEnd)
		prevEnd = m.Usage.Input + m.Usage.Output
	}
	return &n
}

func writeReport(path string, rep *report) error {
	data, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding the results: %w", err)
	}
	if err := os.WriteFile(path, append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("writing the results to %s: %w", path, err)
	}
	return nil
}

func readReport(path string) (*report, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading results %s: %w", path, err)
	}
	var rep report
	if err := json.Unmarshal(data, &rep); err != nil {
		return nil, fmt.Errorf("results %s: %w", path, err)
	}
	return &rep, nil
}

// taskSummary is one task's runs added up, in the order the tasks ran.
type taskSummary struct {
	totals
	name         string
	reprocSource string
	reason       string // the first failure's
}

func summarize(runs []runResult) []*taskSummary {
	var out []*taskSummary
	byName := map[string]*taskSummary{}
	for _, r := range runs {
		s := byName[r.Task]
		if s == nil {
			s = &taskSummary{name: r.Task, reprocSource: r.ReprocessedSource}
			byName[r.Task] = s
			out = append(out, s)
		}
		if !r.Pass && s.reason == "" {
			s.reason = r.Reason
		}
		s.add(r)
	}
	return out
}

// passCell is "pass"/"FAIL" for one run and "k/n" for several.
func (s *taskSummary) passCell() string {
	if s.Runs == 1 {
		return passWord(s.Passed == 1)
	}
	return fmt.Sprintf("%d/%d", s.Passed, s.Runs)
}

// mean divides a sum over the task's runs, so that several runs read like one.
func (s *taskSummary) mean(sum int) int { return (sum + s.Runs/2) / s.Runs }

func (s *taskSummary) reprocCell() string {
	if s.Reprocessed == nil {
		return "n/a"
	}
	if s.reprocSource == "estimated" {
		return "~" + fmt.Sprint(s.mean(*s.Reprocessed))
	}
	return fmt.Sprint(s.mean(*s.Reprocessed))
}

func seconds(ms int64) string { return fmt.Sprintf("%.1fs", float64(ms)/1000) }

// printReport writes the table: a row per task (figures per run when there are several runs),
// then the totals over every run.
func printReport(w io.Writer, rep *report) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "model %s, tasks %s\n", rep.Model, rep.Tasks)
	fmt.Fprintln(tw, "TASK\tPASS\tTURNS\tTOOL ERR\tTOK IN\tTOK OUT\tRE-PROC\tWALL\tREASON")
	for _, s := range summarize(rep.Runs) {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%s\t%s\t%s\n", s.name, s.passCell(), s.mean(s.Turns),
			s.mean(s.ToolErrors), s.mean(s.TokensIn), s.mean(s.TokensOut), s.reprocCell(),
			seconds(int64(s.mean(int(s.WallMs)))), oneLine(s.reason, 100))
	}
	t := rep.Totals
	reproc := "n/a"
	if t.Reprocessed != nil {
		reproc = fmt.Sprint(*t.Reprocessed)
	}
	fmt.Fprintf(tw, "TOTAL\t%d/%d\t%d\t%d\t%d\t%d\t%s\t%s\t%s\n", t.Passed, t.Runs, t.Turns, t.ToolErrors,
		t.TokensIn, t.TokensOut, reproc, seconds(t.WallMs), passRate(t))
	tw.Flush()
}

func passRate(t totals) string {
	if t.Runs == 0 {
		return ""
	}
	return fmt.Sprintf("pass rate %.0f%%", 100*float64(t.Passed)/float64(t.Runs))
}

// runCompare prints two result files side by side, a row per task that either holds.
func runCompare(files []string, stdout, stderr io.Writer) int {
	if len(files) != 2 {
		fmt.Fprintln(stderr, "pi eval --compare: give two result files: pi eval --compare a.json b.json")
		return 2
	}
	var reps [2]*report
	for i, f := range files {
		rep, err := readReport(f)
		if err != nil {
			fmt.Fprintln(stderr, "pi eval:", err)
			return 1
		}
		reps[i] = rep
	}
	printCompare(stdout, files, reps)
	return 0
}

func printCompare(w io.Writer, files []string, reps [2]*report) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for i, tag := range []string{"A", "B"} {
		fmt.Fprintf(tw, "%s: %s (%s, %s)\n", tag, reps[i].Model, files[i], reps[i].Started.Format("2006-01-02 15:04"))
	}
	fmt.Fprintln(tw, "TASK\tPASS A\tPASS B\tTURNS A\tTURNS B\tTOK IN A\tTOK IN B\tWALL A\tWALL B\t")
	a, b := summaryMap(reps[0].Runs), summaryMap(reps[1].Runs)
	for _, name := range taskNames(reps) {
		sa, sb := a[name], b[name]
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", name, cell(sa, (*taskSummary).passCell), cell(sb, (*taskSummary).passCell),
			cell(sa, func(s *taskSummary) string { return fmt.Sprint(s.mean(s.Turns)) }),
			cell(sb, func(s *taskSummary) string { return fmt.Sprint(s.mean(s.Turns)) }),
			cell(sa, func(s *taskSummary) string { return fmt.Sprint(s.mean(s.TokensIn)) }),
			cell(sb, func(s *taskSummary) string { return fmt.Sprint(s.mean(s.TokensIn)) }),
			cell(sa, func(s *taskSummary) string { return seconds(int64(s.mean(int(s.WallMs)))) }),
			cell(sb, func(s *taskSummary) string { return seconds(int64(s.mean(int(s.WallMs)))) }),
			verdict(sa, sb))
	}
	ta, tb := reps[0].Totals, reps[1].Totals
	fmt.Fprintf(tw, "TOTAL\t%d/%d\t%d/%d\t%d\t%d\t%d\t%d\t%s\t%s\t\n", ta.Passed, ta.Runs, tb.Passed, tb.Runs,
		ta.Turns, tb.Turns, ta.TokensIn, tb.TokensIn, seconds(ta.WallMs), seconds(tb.WallMs))
	tw.Flush()
}

func summaryMap(runs []runResult) map[string]*taskSummary {
	m := map[string]*taskSummary{}
	for _, s := range summarize(runs) {
		m[s.name] = s
	}
	return m
}

// taskNames is every task of either report: A's order, then B's extra ones.
func taskNames(reps [2]*report) []string {
	var names []string
	for _, rep := range reps {
		for _, s := range summarize(rep.Runs) {
			if !slices.Contains(names, s.name) {
				names = append(names, s.name)
			}
		}
	}
	return names
}

func cell(s *taskSummary, f func(*taskSummary) string) string {
	if s == nil {
		return "-"
	}
	return f(s)
}

// verdict says which side passed more often, when they differ.
func verdict(a, b *taskSummary) string {
	if a == nil || b == nil {
		return ""
	}
	ra, rb := float64(a.Passed)/float64(a.Runs), float64(b.Passed)/float64(b.Runs)
	switch {
	case rb > ra:
		return "B better"
	case ra > rb:
		return "A better"
	}
	return ""
}
