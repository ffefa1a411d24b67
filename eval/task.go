package eval

// Tasks: task.toml, the built-in set, and choosing which tasks run.

import (
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

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
