package subagent

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"pi/internal/gitsafe"
)

// worktree is a child's own checkout: a new branch at the parent's HEAD, in a temporary
// folder, so the parent's files stay as they are.
type worktree struct {
	repo   string // the parent's checkout (its top folder)
	dir    string // the worktree
	cwd    string // the child's working directory in it (the parent's, relatively)
	branch string
}

// git runs as pi, unconfined, in a repository the child's confined commands may have changed:
// gitsafe keeps its hooks and the programs its config names from running.
func git(ctx context.Context, dir string, args ...string) (string, error) {
	return gitsafe.Run(ctx, dir, nil, args...)
}

func addWorktree(ctx context.Context, cwd, id string) (*worktree, error) {
	top, err := git(ctx, cwd, "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, fmt.Errorf("isolation = worktree needs a git checkout: %w", err)
	}
	tmp, err := os.MkdirTemp("", "pi-"+id+"-")
	if err != nil {
		return nil, fmt.Errorf("making a folder for the worktree: %w", err)
	}
	w := &worktree{repo: top, dir: filepath.Join(tmp, "wt"), branch: "pi/" + id + "-" + time.Now().Format("20060102-150405")}
	if _, err := git(ctx, top, "worktree", "add", "-b", w.branch, w.dir, "HEAD"); err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	w.cwd = w.dir
	if real, err := filepath.EvalSymlinks(cwd); err == nil {
		if rel, err := filepath.Rel(top, real); err == nil && !strings.HasPrefix(rel, "..") {
			w.cwd = filepath.Join(w.dir, rel)
		}
	}
	return w, nil
}

// finish commits what the child changed on its branch and reports the files; a worktree
// with no changes is removed with its branch (kept reports false).
func (w *worktree) finish(ctx context.Context, message string) (files []string, kept bool, err error) {
	if _, err := git(ctx, w.dir, "add", "-A"); err != nil {
		return nil, true, err
	}
	names, err := git(ctx, w.dir, "diff", "--cached", "--name-only", "--no-ext-diff", "--no-textconv")
	if err != nil {
		return nil, true, err
	}
	if names == "" {
		_, err := git(ctx, w.repo, "worktree", "remove", "--force", w.dir)
		if err == nil {
			_, err = git(ctx, w.repo, "branch", "-D", w.branch)
			os.RemoveAll(filepath.Dir(w.dir))
		}
		return nil, false, err
	}
	args := []string{"commit", "-q", "-m", "pi " + message}
	if who, _ := git(ctx, w.dir, "config", "user.email"); who == "" {
		args = append([]string{"-c", "user.name=pi", "-c", "user.email=pi@localhost"}, args...)
	}
	_, err = git(ctx, w.dir, append(args, "--no-verify")...)
	return strings.Split(names, "\n"), true, err
}
