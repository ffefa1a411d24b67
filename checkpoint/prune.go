package checkpoint

import (
	"context"
	"fmt"
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

// Prune drops snapshots by the policy, always keeping the newest, and repacks the objects the
// remaining snapshots need. A session entry naming a dropped snapshot then restores nothing
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
	keep := recs
	for len(keep) > 1 && p.MaxAge > 0 && time.Since(keep[0].Time) > p.MaxAge {
		keep = keep[1:]
	}
	live, total, err := s.reachable(keep)
	for err == nil && len(keep) > 1 && p.MaxBytes > 0 && total > p.MaxBytes {
		keep = keep[1:]
		live, total, err = s.reachable(keep)
	}
	if err != nil {
		return PruneResult{}, err
	}
	var garbage int64
	for hash, l := range s.obj.locs {
		if !live[hash] {
			garbage += int64(l.n)
		}
	}
	res := PruneResult{Snapshots: len(recs) - len(keep), Left: total}
	// Repacking rewrites every live object: worth it for dropped snapshots or much garbage,
	// not for the few objects an unlisted snapshot (a diff, a refused restore) left.
	if garbage > 0 && (res.Snapshots > 0 || garbage > max(1<<20, total/10)) {
		res.Objects = len(s.obj.locs) - len(live)
		if res.Freed, err = s.repack(live); err != nil {
			return res, err
		}
		if err := writeFileAtomic(s.indexPath(), nil); err != nil { // it may vouch for blobs that are gone
			return res, fmt.Errorf("checkpoint: clearing the index: %w", err)
		}
	}
	if res.Snapshots > 0 {
		if err := s.rewriteLog(keep); err != nil {
			return res, err
		}
	}
	return res, nil
}

// reachable marks the objects the snapshots need and sums their stored sizes.
func (s *Store) reachable(recs []Record) (map[string]bool, int64, error) {
	live := map[string]bool{}
	var total int64
	var mark func(tree string) error
	mark = func(tree string) error {
		if live[tree] {
			return nil
		}
		live[tree] = true
		total += int64(s.obj.locs[tree].n)
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
				total += int64(s.obj.locs[e.hash].n)
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

// Size is the bytes the store's objects take.
func (s *Store) Size(ctx context.Context) (int64, error) {
	unlock, err := s.lock(ctx)
	if err != nil {
		return 0, err
	}
	defer unlock()
	var total int64
	for _, l := range s.obj.locs {
		total += int64(l.n)
	}
	return total, nil
}

func (s *Store) rewriteLog(recs []Record) error {
	var b []byte
	for _, r := range recs {
		b = fmt.Appendf(b, "%d %s %s\n", r.Time.UnixNano(), r.ID, r.Note)
	}
	if err := writeFileAtomic(s.logPath(), b); err != nil {
		return fmt.Errorf("checkpoint: rewriting the snapshot log: %w", err)
	}
	return nil
}
