package checkpoint

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"pi/internal/gitwalk"
	"pi/internal/safefile"
)

// Snapshot is what Snapshot recorded.
type Snapshot struct {
	ID      string    // the root tree's hash: equal IDs mean equal files
	Files   int       // files and symlinks held
	Skipped []Skipped // files left out, with why
	Read    int       // files read because the index could not vouch for them
	Added   int64     // bytes the store grew by
	Time    time.Time
}

// Skipped is a file a snapshot does not hold.
type Skipped struct {
	Path   string
	Size   int64
	Reason string
}

// maxPacks is how many packs a snapshot leaves before it merges them into one.
const maxPacks = 64

// otherVCS are folders that, like .git, hold a version control system's own data.
var otherVCS = []string{".hg", ".svn", ".jj"}

// walkState is one snapshot's walk: the folders' entries gathered so far, and the index.
type walkState struct {
	s     *Store
	idx   map[string]indexEntry
	seen  map[string]indexEntry
	dirs  map[string][]entry // folder (rel, "" for the root) → its entries so far
	modes map[string]fs.FileMode
	snap  *Snapshot
	paths int // seen so far, folders included
}

// Snapshot records the project's files as they are now. note is kept in the store's log
// (the bundled script puts the session and turn there).
func (s *Store) Snapshot(ctx context.Context, note string) (Snapshot, error) {
	unlock, err := s.lock(ctx)
	if err != nil {
		return Snapshot{}, err
	}
	defer unlock()
	snap, err := s.snapshotLocked(ctx)
	if err != nil {
		return snap, err
	}
	return snap, s.appendLog(snap, note)
}

// snapshotLocked takes a snapshot that the log does not list yet: until it does, pruning may
// drop what it alone holds.
func (s *Store) snapshotLocked(ctx context.Context) (Snapshot, error) {
	snap := Snapshot{Time: time.Now()}
	idx := s.readIndex()
	w := &walkState{s: s, idx: idx, seen: make(map[string]indexEntry, len(idx)),
		dirs: map[string][]entry{"": nil}, modes: map[string]fs.FileMode{}, snap: &snap}
	if err := gitwalk.Walk(ctx, s.root, w.visit); err != nil {
		return Snapshot{}, fmt.Errorf("checkpoint: walking %s: %w", s.root, err)
	}
	id, err := w.buildTrees()
	if err != nil {
		return Snapshot{}, err
	}
	snap.ID = id
	if err := s.obj.commit(); err != nil {
		return Snapshot{}, err
	}
	if len(s.obj.packs) > maxPacks { // every operation reads every pack's index: keep them few
		all := map[string]bool{}
		for hash := range s.obj.locs {
			all[hash] = true
		}
		if _, err := s.repack(all); err != nil {
			return Snapshot{}, err
		}
	}
	if snap.Read > 0 || len(w.seen) != len(w.idx) { // else the index on disk says the same
		if err := s.writeIndex(w.seen, snap.Time); err != nil {
			return Snapshot{}, err
		}
	}
	return snap, nil
}

func (w *walkState) excluded(rel string) bool {
	for _, seg := range strings.Split(rel, "/") {
		if slices.Contains(otherVCS, seg) {
			return true
		}
	}
	for _, ex := range w.s.exclude {
		if rel == ex || strings.HasPrefix(rel, ex+"/") {
			return true
		}
	}
	return false
}

func (w *walkState) visit(rel string, d fs.DirEntry) error {
	if w.excluded(rel) {
		return nil // gitwalk has no SkipDir: the folder's files are excluded one by one
	}
	if w.paths++; w.paths > w.s.maxFiles {
		return fmt.Errorf("checkpoint: %s holds more than %d paths: %w", w.s.root, w.s.maxFiles, ErrTooManyFiles)
	}
	info, err := d.Info()
	if err != nil {
		return nil // gone since the folder was read
	}
	dir, name := path.Split(rel)
	dir = strings.TrimSuffix(dir, "/")
	e := entry{name: name, mode: info.Mode().Perm(), size: info.Size()}
	switch {
	case d.IsDir():
		w.dirs[rel] = w.dirs[rel][:0:0]
		w.modes[rel] = info.Mode().Perm()
		return nil
	case info.Mode()&fs.ModeSymlink != 0:
		target, err := os.Readlink(filepath.Join(w.s.root, rel))
		if err != nil {
			return nil
		}
		e.kind, e.size = KindSymlink, int64(len(target))
		if e.hash, err = w.store([]byte(target)); err != nil {
			return err
		}
	case !info.Mode().IsRegular():
		w.snap.Skipped = append(w.snap.Skipped, Skipped{rel, 0, "not a regular file"})
		return nil
	case info.Size() > w.s.maxSize:
		e.kind = KindSkipped
		w.snap.Skipped = append(w.snap.Skipped, Skipped{rel, info.Size(), fmt.Sprintf("over the %d-byte limit", w.s.maxSize)})
	default:
		e.kind = KindFile
		if e.hash, err = w.fileHash(rel, info); err != nil {
			return err
		}
		if e.hash == "" {
			return nil // vanished or grew past the limit while read
		}
	}
	w.snap.Files++
	w.dirs[dir] = append(w.dirs[dir], e)
	return nil
}

// fileHash is the file's blob, from the index when its stamp is unchanged, else read and
// stored.
func (w *walkState) fileHash(rel string, info fs.FileInfo) (string, error) {
	st := stampOf(info)
	if old, ok := w.idx[rel]; ok && old.stamp == st {
		w.seen[rel] = old
		return old.hash, nil
	}
	data, err := readLimited(filepath.Join(w.s.root, rel), w.s.maxSize)
	if err != nil || data == nil {
		return "", nil
	}
	w.snap.Read++
	hash, err := w.store(data)
	if err != nil {
		return "", err
	}
	w.seen[rel] = indexEntry{stamp: st, hash: hash}
	return hash, nil
}

func (w *walkState) store(data []byte) (string, error) {
	hash, added, err := w.s.put("blob", data)
	w.snap.Added += added
	return hash, err
}

// readLimited reads a regular file of at most limit bytes; nil when it is larger now. It opens
// through safefile: a path swapped for a FIFO since the walk saw a file must not hang the turn.
func readLimited(name string, limit int64) ([]byte, error) {
	f, err := safefile.OpenFile(name, os.O_RDONLY)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var b bytes.Buffer
	n, err := io.Copy(&b, io.LimitReader(f, limit+1))
	if err != nil || n > limit {
		return nil, err
	}
	return b.Bytes(), nil
}

// buildTrees stores every folder's tree, deepest first, and returns the root's hash.
func (w *walkState) buildTrees() (string, error) {
	dirs := make([]string, 0, len(w.dirs))
	for d := range w.dirs {
		dirs = append(dirs, d)
	}
	depth := func(d string) int { // the root last, after every folder
		if d == "" {
			return -1
		}
		return strings.Count(d, "/")
	}
	slices.SortFunc(dirs, func(a, b string) int { return depth(b) - depth(a) })
	var root string
	for _, d := range dirs {
		hash, added, err := w.s.put("tree", encodeTree(w.dirs[d]))
		if err != nil {
			return "", err
		}
		w.snap.Added += added
		if d == "" {
			root = hash
			continue
		}
		parent, name := path.Split(d)
		parent = strings.TrimSuffix(parent, "/")
		w.dirs[parent] = append(w.dirs[parent], entry{name: name, kind: KindDir, mode: w.modes[d], hash: hash})
	}
	return root, nil
}
