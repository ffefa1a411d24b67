package eval

// Scratch copies of a task's fixture, and the check that judges the outcome in one.

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"pi/internal/proc"
	"pi/provider"
	"regexp"
	"strings"
)

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

// checkOutcome runs the task's check in the work folder, confined as the run's commands were
// (it runs what the model wrote). It reports whether it passed and, when not, the end of its
// output; err is for a check that could not be run at all.
func checkOutcome(ctx context.Context, t *task, s *scratchRun, answer string, confine proc.Confiner) (bool, string, error) {
	if err := os.WriteFile(s.answer, []byte(answer), 0o644); err != nil {
		return false, "", fmt.Errorf("task %s: writing the answer: %w", t.Name, err)
	}
	res, err := proc.Capture(ctx, proc.CaptureSpec{Command: t.Check, Dir: s.work, Timeout: checkTimeout, Combined: true,
		Env: append(os.Environ(), answerEnv+"="+s.answer, taskDirEnv+"="+t.Dir), Confine: confine})
	switch {
	case err != nil:
		return false, "", fmt.Errorf("task %s: %w", t.Name, err)
	case res.Killed && ctx.Err() == nil:
		return false, fmt.Sprintf("check did not finish within %s", checkTimeout), nil
	case res.Killed:
		return false, "", fmt.Errorf("task %s: check %q: %w", t.Name, t.Check, ctx.Err())
	case res.Code != 0:
		return false, checkFailure(res.Code, t.Check, res.Stdout), nil
	}
	return true, "", nil
}

// checkFailure says why a check failed: the first lines of its output that say something, or
// the command itself when it printed nothing (a grep for the expected answer, typically).
func checkFailure(code int, check, out string) string {
	// checkNoise matches the summary lines of go test and the shell, which say only that
	// something failed: "FAIL", "ok  pkg 0.1s", "FAIL pkg 0.1s", "# pkg", "exit status 1".
	// Compiled here, not at package init: only a failed check needs it.
	checkNoise := regexp.MustCompile(`^(FAIL|PASS|ok)(\s|$)|^# |^exit status \d+$`)
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
		return fmt.Sprintf("check exited %d without output; it was: %s", code, provider.OneLine(check, 200))
	}
	return fmt.Sprintf("check exited %d: %s", code, provider.OneLine(strings.Join(keep, " | "), 200))
}
