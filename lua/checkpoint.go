package lua

// checkpoint.go is pi.checkpoint: the snapshots of the project's files (package checkpoint)
// for scripts, the bundled checkpoints.lua first. The hashing and copying is Go, for speed
// on large trees; when to snapshot and what to restore is the script's.

import (
	"context"
	"errors"
	"fmt"
	"time"

	"pi/checkpoint"

	lua "github.com/yuin/gopher-lua"
)

func (v *vm) checkpointModule() *lua.LTable {
	m := v.L.NewTable()
	for name, fn := range map[string]lua.LGFunction{
		"snapshot": v.checkpointSnapshot, "diff": v.checkpointDiff, "restore": v.checkpointRestore,
		"list": v.checkpointList, "prune": v.checkpointPrune, "resolve": v.checkpointResolve,
	} {
		m.RawSetString(name, v.L.NewFunction(fn))
	}
	return m
}

// checkpointStore opens the project's store with the call's options (max_file_size,
// max_files).
func (v *vm) checkpointStore(L *lua.LState, opts *lua.LTable) (*checkpoint.Store, error) {
	o := checkpoint.Options{}
	if opts != nil {
		if n, ok := opts.RawGetString("max_file_size").(lua.LNumber); ok {
			o.MaxFileSize = int64(n)
		}
		if n, ok := opts.RawGetString("max_files").(lua.LNumber); ok {
			o.MaxFiles = int(n)
		}
	}
	if v.r.opts.PiHome == "" {
		return nil, errors.New("pi.checkpoint: no $PI_HOME to keep snapshots in")
	}
	return checkpoint.Open(v.r.opts.PiHome, v.path(""), o)
}

// checkpointSnapshot is pi.checkpoint.snapshot({note?, max_file_size?, max_files?}) → {id, files, read,
// added, skipped = {{path, size, reason}}, ms}.
func (v *vm) checkpointSnapshot(L *lua.LState) int {
	opts := L.OptTable(1, L.NewTable())
	note := optString(L, opts, "note")
	s, err := v.checkpointStore(L, opts)
	if err != nil {
		return v.ok(L, err)
	}
	return v.await(L, func(ctx context.Context) func(*lua.LState) []lua.LValue {
		t0 := time.Now()
		// Not cancelled with the call: a first snapshot that outlasts a hook's deadline
		// finishes in the background and leaves its index, so the next one is incremental.
		snap, err := s.Snapshot(context.WithoutCancel(ctx), note)
		if err != nil {
			return errorResult(err)
		}
		skipped := make([]any, 0, len(snap.Skipped))
		for _, sk := range snap.Skipped {
			skipped = append(skipped, map[string]any{"path": sk.Path, "size": sk.Size, "reason": sk.Reason})
		}
		out := map[string]any{"id": snap.ID, "files": snap.Files, "read": snap.Read, "added": snap.Added,
			"skipped": skipped, "ms": float64(time.Since(t0).Microseconds()) / 1000}
		return func(L *lua.LState) []lua.LValue { return []lua.LValue{v.toLua(out)} }
	})
}

func changesToAny(cs []checkpoint.Change) []any {
	out := make([]any, 0, len(cs))
	for _, c := range cs {
		out = append(out, map[string]any{"path": c.Path, "op": c.Op, "kind": c.Kind(), "added": c.Added, "removed": c.Removed, "binary": c.Binary})
	}
	return out
}

// checkpointDiff is pi.checkpoint.diff(from, to?) → {{path, op, added, removed, binary}}; with
// no to, the files as they are now (snapshotted, not listed). kind is the path's kind in the
// newer snapshot (the older for a deletion): "file", "symlink" or "dir".
func (v *vm) checkpointDiff(L *lua.LState) int {
	from, to := L.CheckString(1), L.OptString(2, "")
	s, err := v.checkpointStore(L, L.OptTable(3, nil))
	if err != nil {
		return v.ok(L, err)
	}
	return v.await(L, func(ctx context.Context) func(*lua.LState) []lua.LValue {
		var cs []checkpoint.Change
		var err error
		if to == "" {
			cs, err = s.DiffNow(ctx, from)
		} else {
			cs, err = s.Diff(ctx, from, to)
		}
		if err != nil {
			return errorResult(err)
		}
		out := changesToAny(cs)
		return func(L *lua.LState) []lua.LValue { return []lua.LValue{v.toLua(out)} }
	})
}

// checkpointRestore is pi.checkpoint.restore(id, {expected?, force?, dry_run?, note?}) →
// {before, changes, conflicts}; a conflict not forced returns nil, the message, and that
// table (nothing changed).
func (v *vm) checkpointRestore(L *lua.LState) int {
	id := L.CheckString(1)
	opts := L.OptTable(2, L.NewTable())
	ro := checkpoint.RestoreOptions{Expected: optString(L, opts, "expected"), Note: optString(L, opts, "note"),
		Force: lua.LVAsBool(opts.RawGetString("force")), DryRun: lua.LVAsBool(opts.RawGetString("dry_run"))}
	s, err := v.checkpointStore(L, opts)
	if err != nil {
		return v.ok(L, err)
	}
	return v.await(L, func(ctx context.Context) func(*lua.LState) []lua.LValue {
		res, err := s.Restore(ctx, id, ro)
		out := map[string]any{"before": res.Before, "changes": changesToAny(res.Changes), "conflicts": changesToAny(res.Conflicts)}
		return func(L *lua.LState) []lua.LValue {
			if err != nil {
				return []lua.LValue{lua.LNil, lua.LString(err.Error()), v.toLua(out)}
			}
			return []lua.LValue{v.toLua(out)}
		}
	})
}

// checkpointList is pi.checkpoint.list() → {{id, time (unix seconds), note}}, oldest first:
// the project's store, every session's snapshots.
func (v *vm) checkpointList(L *lua.LState) int {
	s, err := v.checkpointStore(L, nil)
	if err != nil {
		return v.ok(L, err)
	}
	return v.await(L, func(ctx context.Context) func(*lua.LState) []lua.LValue {
		recs, err := s.List(ctx)
		if err != nil {
			return errorResult(err)
		}
		out := make([]any, 0, len(recs))
		for _, r := range recs {
			out = append(out, map[string]any{"id": r.ID, "time": float64(r.Time.UnixMilli()) / 1000, "note": r.Note})
		}
		return func(L *lua.LState) []lua.LValue { return []lua.LValue{v.toLua(out)} }
	})
}

// checkpointPrune is pi.checkpoint.prune({max_age_days?, max_bytes?}) → {snapshots, objects,
// freed, left}.
func (v *vm) checkpointPrune(L *lua.LState) int {
	opts := L.OptTable(1, L.NewTable())
	var p checkpoint.Policy
	if n, ok := opts.RawGetString("max_age_days").(lua.LNumber); ok && n > 0 {
		p.MaxAge = time.Duration(float64(n) * 24 * float64(time.Hour))
	}
	if n, ok := opts.RawGetString("max_bytes").(lua.LNumber); ok && n > 0 {
		p.MaxBytes = int64(n)
	}
	s, err := v.checkpointStore(L, nil)
	if err != nil {
		return v.ok(L, err)
	}
	return v.await(L, func(ctx context.Context) func(*lua.LState) []lua.LValue {
		res, err := s.Prune(ctx, p)
		if err != nil {
			return errorResult(err)
		}
		out := map[string]any{"snapshots": res.Snapshots, "objects": res.Objects, "freed": res.Freed, "left": res.Left}
		return func(L *lua.LState) []lua.LValue { return []lua.LValue{v.toLua(out)} }
	})
}

// checkpointResolve is pi.checkpoint.resolve(prefix) → the full id, or nil and why.
func (v *vm) checkpointResolve(L *lua.LState) int {
	prefix := L.CheckString(1)
	s, err := v.checkpointStore(L, nil)
	if err != nil {
		return v.ok(L, err)
	}
	return v.await(L, func(ctx context.Context) func(*lua.LState) []lua.LValue {
		id, err := s.Resolve(ctx, prefix)
		if err != nil {
			return errorResult(fmt.Errorf("pi.checkpoint.resolve: %w", err))
		}
		return func(L *lua.LState) []lua.LValue { return []lua.LValue{lua.LString(id)} }
	})
}
