package checkpoint

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Policy bounds the store. Zero values do not bound.
type Policy struct {
	MaxAge   time.Duration // snapshots older than this go
	MaxBytes int64         // then the oldest go until the objects they need fit
}

// PruneResult says what Prune removed and what is left.
type PruneResult struct {
	Snapshots, Objects int   // removed
	Freed, Left        int64 // bytes
}

// Prune drops snapshots by the policy, always keeping the newest, and deletes the objects no
// remaining snapshot needs. A session entry naming a dropped snapshot then restores nothing
// and says the snapshot was pruned.
func (s *Store) Prune(ctx context.Context, p Policy) (PruneResult, error) {
	unlock, err := s.lock(ctx)
	if err != nil {
		return PruneResult{}, err
	}
	defer unlock()
	recs, err := s.readLog()
	if err != nil || len(recs) == 0 {
		return PruneResult{}, err
	}
	sizes, err := s.objectSizes()
	if err != nil {
		return PruneResult{}, err
	}
	keep := recs
	for len(keep) > 1 && p.MaxAge > 0 && time.Since(keep[0].Time) > p.MaxAge {
		keep = keep[1:]
	}
	live, total, err := s.reachable(keep, sizes)
	for err == nil && len(keep) > 1 && p.MaxBytes > 0 && total > p.MaxBytes {
		keep = keep[1:]
		live, total, err = s.reachable(keep, sizes)
	}
	if err != nil {
		return PruneResult{}, err
	}
	res := PruneResult{Snapshots: len(recs) - len(keep), Left: total}
	for hash, size := range sizes {
		if !live[hash] {
			if err := os.Remove(s.objectPath(hash)); err == nil {
				res.Objects++
				res.Freed += size
			}
		}
	}
	if res.Snapshots > 0 {
		if err := s.rewriteLog(keep); err != nil {
			return res, err
		}
	}
	if res.Objects > 0 {
		os.Remove(s.indexPath()) // it may vouch for blobs that are gone
	}
	return res, nil
}

// reachable marks the objects the snapshots need and sums their sizes.
func (s *Store) reachable(recs []Record, sizes map[string]int64) (map[string]bool, int64, error) {
	live := map[string]bool{}
	var total int64
	var mark func(tree string) error
	mark = func(tree string) error {
		if live[tree] {
			return nil
		}
		live[tree] = true
		total += sizes[tree]
		data, err := s.get("tree", tree)
		if err != nil {
			return err
		}
		es, err := decodeTree(data)
		if err != nil {
			return err
		}
		for _, e := range es {
			switch {
			case e.kind == KindDir:
				if err := mark(e.hash); err != nil {
					return err
				}
			case e.hash != "" && !live[e.hash]:
				live[e.hash] = true
				total += sizes[e.hash]
			}
		}
		return nil
	}
	for _, r := range recs {
		if err := mark(r.ID); err != nil {
			return nil, 0, fmt.Errorf("checkpoint: snapshot %s: %w", short(r.ID), err)
		}
	}
	return live, total, nil
}

func (s *Store) objectSizes() (map[string]int64, error) {
	sizes := map[string]int64{}
	root := filepath.Join(s.dir, "objects")
	dirs, err := os.ReadDir(root)
	if err != nil {
		return nil, fmt.Errorf("checkpoint: listing objects: %w", err)
	}
	for _, d := range dirs {
		files, _ := os.ReadDir(filepath.Join(root, d.Name()))
		for _, f := range files {
			if info, err := f.Info(); err == nil && !strings.HasPrefix(f.Name(), ".") {
				sizes[d.Name()+f.Name()] = info.Size()
			}
		}
	}
	return sizes, nil
}

// Size is the bytes the store's objects take.
func (s *Store) Size(ctx context.Context) (int64, error) {
	unlock, err := s.lock(ctx)
	if err != nil {
		return 0, err
	}
	defer unlock()
	sizes, err := s.objectSizes()
	var total int64
	for _, n := range sizes {
		total += n
	}
	return total, err
}

func (s *Store) rewriteLog(recs []Record) error {
	var b strings.Builder
	for _, r := range recs {
		fmt.Fprintf(&b, "%d %s %s\n", r.Time.UnixNano(), r.ID, r.Note)
	}
	tmp := s.logPath() + ".tmp"
	if err := os.WriteFile(tmp, []byte(b.String()), 0o600); err != nil {
		return fmt.Errorf("checkpoint: rewriting the snapshot log: %w", err)
	}
	return os.Rename(tmp, s.logPath())
}
