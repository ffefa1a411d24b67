package checkpoint

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
)

// Change is one path that differs between two snapshots.
type Change struct {
	Path string
	Op   string // "added", "deleted", "modified" (content, mode or kind)
	// Added and Removed count lines for text files (lines of one side matched with the
	// other's as a multiset: a short summary, not a minimal diff); Binary says they are not
	// counted.
	Added, Removed int
	Binary         bool
	from, to       File
}

// Diff lists what differs from snapshot from to snapshot to, by path. Folders appear only
// when added or deleted empty or as a whole (their files are listed too).
func (s *Store) Diff(ctx context.Context, from, to string) ([]Change, error) {
	unlock, err := s.lock(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	changes, err := s.diffTrees(from, to)
	if err != nil {
		return nil, err
	}
	for i := range changes {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		s.countLines(&changes[i])
	}
	return changes, nil
}

// DiffNow is Diff from snapshot from to the files as they are, which it snapshots without
// listing that snapshot in the log.
func (s *Store) DiffNow(ctx context.Context, from string) ([]Change, error) {
	unlock, err := s.lock(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	cur, err := s.snapshotLocked(ctx)
	if err != nil {
		return nil, err
	}
	changes, err := s.diffTrees(from, cur.ID)
	for i := range changes {
		s.countLines(&changes[i])
	}
	return changes, err
}

// diffTrees compares two snapshots folder by folder, reading only the folders whose trees
// differ (an unchanged folder has the same hash in both).
func (s *Store) diffTrees(from, to string) ([]Change, error) {
	var out []Change
	if err := s.diffTree(from, to, "", &out); err != nil {
		return nil, fmt.Errorf("checkpoint: comparing %s with %s: %w", short(from), short(to), err)
	}
	slices.SortFunc(out, func(x, y Change) int { return strings.Compare(x.Path, y.Path) })
	return out, nil
}

// treeFiles are the entries of one folder's tree (none for ""), by path under prefix.
func (s *Store) treeFiles(hash, prefix string) (map[string]File, error) {
	m := map[string]File{}
	if hash == "" {
		return m, nil
	}
	data, err := s.get("tree", hash)
	if err != nil {
		return nil, err
	}
	es, err := decodeTree(data)
	for _, e := range es {
		m[prefix+e.name] = File{Path: prefix + e.name, Kind: e.kind, Mode: e.mode, Hash: e.hash, Size: e.size}
	}
	return m, err
}

func (s *Store) diffTree(a, b, prefix string, out *[]Change) error {
	if a == b {
		return nil
	}
	fa, err := s.treeFiles(a, prefix)
	if err != nil {
		return err
	}
	fb, err := s.treeFiles(b, prefix)
	if err != nil {
		return err
	}
	for _, c := range diffFiles(fa, fb) {
		*out = append(*out, c)
		sub := map[string]File{}
		var err error
		switch {
		case c.Op == "modified" || c.from.Kind == KindDir && c.to.Kind == KindDir:
		case c.Op == "deleted" && c.from.Kind == KindDir:
			err = s.flatten(c.from.Hash, c.Path+"/", sub)
		case c.Op == "added" && c.to.Kind == KindDir:
			err = s.flatten(c.to.Hash, c.Path+"/", sub)
		}
		if err != nil {
			return err
		}
		for _, f := range sub {
			ch := Change{Path: f.Path, Op: c.Op}
			if c.Op == "deleted" {
				ch.from = f
			} else {
				ch.to = f
			}
			if f.Kind != KindSkipped {
				*out = append(*out, ch)
			}
		}
		if c.Op == "modified" && (c.from.Kind == KindDir || c.to.Kind == KindDir) {
			if err := s.kindChange(c, out); err != nil {
				return err
			}
		}
	}
	for p, f := range fa { // folders in both whose trees differ
		if g, ok := fb[p]; ok && f.Kind == KindDir && g.Kind == KindDir && f.Hash != g.Hash {
			if err := s.diffTree(f.Hash, g.Hash, p+"/", out); err != nil {
				return err
			}
		}
	}
	return nil
}

// kindChange lists the paths below a path that became or stopped being a folder.
func (s *Store) kindChange(c Change, out *[]Change) error {
	if c.from.Kind == KindDir {
		return s.diffTree(c.from.Hash, "", c.Path+"/", out)
	}
	return s.diffTree("", c.to.Hash, c.Path+"/", out)
}

// diffFiles compares two flattened snapshots; a skipped file is never a change.
func diffFiles(a, b map[string]File) []Change {
	var out []Change
	for p, fa := range a {
		fb, ok := b[p]
		switch {
		case !ok && fa.Kind != KindSkipped:
			out = append(out, Change{Path: p, Op: "deleted", from: fa})
		case ok && fa.Kind != KindSkipped && fb.Kind != KindSkipped && differ(fa, fb):
			out = append(out, Change{Path: p, Op: "modified", from: fa, to: fb})
		}
	}
	for p, fb := range b {
		if _, ok := a[p]; !ok && fb.Kind != KindSkipped {
			out = append(out, Change{Path: p, Op: "added", to: fb})
		}
	}
	slices.SortFunc(out, func(x, y Change) int { return strings.Compare(x.Path, y.Path) })
	return out
}

// Kind names what the path is where it exists last: "file", "symlink" or "dir".
func (c Change) Kind() string {
	f := c.to
	if c.Op == "deleted" {
		f = c.from
	}
	switch f.Kind {
	case KindDir:
		return "dir"
	case KindSymlink:
		return "symlink"
	}
	return "file"
}

func differ(a, b File) bool {
	if a.Kind != b.Kind {
		return true
	}
	if a.Kind == KindDir {
		return false // a folder differs through its entries
	}
	return a.Hash != b.Hash || a.Mode&0o111 != b.Mode&0o111
}

func (s *Store) countLines(c *Change) {
	old, okOld := s.textOf(c.from)
	new, okNew := s.textOf(c.to)
	if !okOld || !okNew {
		c.Binary = true
		return
	}
	count := map[string]int{}
	for _, l := range lines(old) {
		count[l]++
	}
	for _, l := range lines(new) {
		if count[l] > 0 {
			count[l]--
		} else {
			c.Added++
		}
	}
	for _, n := range count {
		c.Removed += n
	}
}

// textOf is a file's content when it is text (no NUL in it); false for binary.
func (s *Store) textOf(f File) ([]byte, bool) {
	if f.Kind != KindFile {
		return nil, true
	}
	data, err := s.get("blob", f.Hash)
	if err != nil || bytes.IndexByte(data, 0) >= 0 {
		return nil, false
	}
	return data, true
}

func lines(b []byte) []string {
	if len(b) == 0 {
		return nil
	}
	return strings.SplitAfter(strings.TrimSuffix(string(b), "\n"), "\n")
}
