package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// ErrConflict is returned by Restore when it would overwrite changes made since the expected
// snapshot (by hand, or by anything but the agent) and was not forced.
var ErrConflict = errors.New("files changed since the snapshot")

// RestoreOptions qualify a restore.
type RestoreOptions struct {
	// Expected is the snapshot the files should match now (where the session left them); a
	// path that differs from it and that the restore would change is a conflict. "" checks
	// nothing.
	Expected string
	Force    bool // overwrite conflicts
	DryRun   bool // compute, change nothing
	Note     string
}

// RestoreResult says what a restore did or would do.
type RestoreResult struct {
	Before    string   // snapshot of the files as they were just before (what a redo returns to)
	Changes   []Change // from Before to the target
	Conflicts []Change // changes since Expected that the restore overwrites (or would)
}

// Restore makes the project's files those of snapshot target: files and symlinks written
// with their modes, folders made, paths the target lacks removed (a folder only once empty:
// ignored files in it stay). Ignored and skipped files are never touched. Before anything
// changes, the files as they are are snapshotted (RestoreResult.Before); the log lists that
// snapshot, then the target, only when the restore goes ahead.
func (s *Store) Restore(ctx context.Context, target string, opts RestoreOptions) (RestoreResult, error) {
	unlock, err := s.lock(ctx)
	if err != nil {
		return RestoreResult{}, err
	}
	defer unlock()
	if _, err := s.get("tree", target); err != nil {
		return RestoreResult{}, fmt.Errorf("checkpoint: snapshot %s: %w", short(target), err)
	}
	cur, err := s.snapshotLocked(ctx)
	if err != nil {
		return RestoreResult{}, err
	}
	res := RestoreResult{Before: cur.ID}
	if res.Changes, err = s.diffTrees(cur.ID, target); err != nil {
		return res, err
	}
	if opts.Expected != "" && opts.Expected != cur.ID {
		if res.Conflicts, err = s.conflicts(opts.Expected, cur.ID, res.Changes); err != nil {
			return res, err
		}
	}
	for i := range res.Changes {
		s.countLines(&res.Changes[i])
	}
	if len(res.Conflicts) > 0 && !opts.Force {
		return res, fmt.Errorf("checkpoint: restoring %s would overwrite %d changed path(s) (%s): %w",
			short(target), len(res.Conflicts), res.Conflicts[0].Path, ErrConflict)
	}
	if opts.DryRun {
		return res, nil
	}
	if err := s.appendLog(cur, "before restoring "+short(target)+" "+opts.Note); err != nil {
		return res, err
	}
	if err := s.apply(ctx, res.Changes); err != nil {
		return res, err
	}
	// The files are now the target's: the log's newest record says so, for the next
	// restore's idea of where the files were left.
	return res, s.appendLog(Snapshot{ID: target, Time: time.Now()}, "restored "+opts.Note)
}

// conflicts are the changes of a restore to paths (or below folders) that differ between the
// expected snapshot and the files now.
func (s *Store) conflicts(expected, have string, changes []Change) ([]Change, error) {
	hand, err := s.diffTrees(expected, have)
	if err != nil {
		return nil, err
	}
	touched := map[string]bool{}
	for _, c := range hand {
		touched[c.Path] = true
	}
	var out []Change
	for _, c := range changes {
		if touched[c.Path] {
			out = append(out, c)
		}
	}
	return out, nil
}

// apply removes what goes, deepest first, then writes what comes, parents first.
func (s *Store) apply(ctx context.Context, changes []Change) error {
	var gone, come []Change
	for _, c := range changes {
		if c.Op == "deleted" || c.Op == "modified" && c.from.Kind != c.to.Kind {
			gone = append(gone, c)
		}
		if c.Op != "deleted" {
			come = append(come, c)
		}
	}
	slices.SortFunc(gone, func(a, b Change) int { return strings.Compare(b.Path, a.Path) })
	for _, c := range gone {
		if err := s.remove(c); err != nil {
			return err
		}
	}
	for _, c := range come {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("checkpoint: restore stopped before %s: %w", c.Path, err)
		}
		if err := s.write(c.Path, c.to); err != nil {
			return err
		}
	}
	return nil
}

func (s *Store) remove(c Change) error {
	p, err := s.safePath(c.Path)
	if err != nil {
		return err
	}
	err = os.Remove(p)
	if err != nil && !errors.Is(err, fs.ErrNotExist) && c.from.Kind != KindDir {
		return fmt.Errorf("checkpoint: removing %s: %w", c.Path, err)
	}
	return nil // a folder that still holds ignored files stays
}

func (s *Store) write(rel string, f File) error {
	p, err := s.safePath(rel)
	if err != nil {
		return err
	}
	switch f.Kind {
	case KindDir:
		if err := os.MkdirAll(p, 0o755); err != nil {
			return fmt.Errorf("checkpoint: making folder %s: %w", rel, err)
		}
		return os.Chmod(p, f.Mode.Perm()|0o700)
	case KindSymlink:
		target, err := s.get("blob", f.Hash)
		if err != nil {
			return err
		}
		os.Remove(p)
		if err := os.Symlink(string(target), p); err != nil {
			return fmt.Errorf("checkpoint: making symlink %s: %w", rel, err)
		}
		return nil
	}
	data, err := s.get("blob", f.Hash)
	if err != nil {
		return fmt.Errorf("checkpoint: restoring %s: %w", rel, err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(p), ".pi-restore-*")
	if err != nil {
		return fmt.Errorf("checkpoint: restoring %s: %w", rel, err)
	}
	_, err = tmp.Write(data)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), f.Mode.Perm())
	}
	if err == nil {
		err = os.Rename(tmp.Name(), p)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("checkpoint: restoring %s: %w", rel, err)
	}
	return nil
}

// safePath is rel inside the project, refusing a path whose folders are not real folders
// (a symlink among them would let a restore write outside the project).
func (s *Store) safePath(rel string) (string, error) {
	if rel == "" || path.IsAbs(rel) || strings.HasPrefix(path.Clean(rel), "..") {
		return "", fmt.Errorf("checkpoint: %q is not a path inside the project", rel)
	}
	dir := s.root
	parts := strings.Split(path.Dir(rel), "/")
	for _, part := range parts {
		if part == "." {
			break
		}
		dir = filepath.Join(dir, part)
		info, err := os.Lstat(dir)
		if err == nil && !info.IsDir() {
			return "", fmt.Errorf("checkpoint: not restoring %s: %s is not a folder", rel, dir)
		}
	}
	return filepath.Join(s.root, filepath.FromSlash(rel)), nil
}
