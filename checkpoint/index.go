package checkpoint

import (
	"bufio"
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// racyWindow: a file modified this close to the start of a snapshot may change again within
// the file system's timestamp granularity without its size or time changing, so the index
// does not vouch for it (git's "racily clean" entries).
const racyWindow = time.Second

// stamp is what the index compares to find a file unchanged without reading it.
type stamp struct {
	size, mtime int64 // mtime in nanoseconds
	ino         uint64
	mode        fs.FileMode
}

type indexEntry struct {
	stamp
	hash string
}

func stampOf(info fs.FileInfo) stamp {
	st := stamp{size: info.Size(), mtime: info.ModTime().UnixNano(), mode: info.Mode()}
	if sys, ok := info.Sys().(*syscall.Stat_t); ok {
		st.ino = sys.Ino
	}
	return st
}

func (s *Store) indexPath() string { return filepath.Join(s.dir, "index") }

// readIndex loads the index; a missing or damaged one is empty (it is only a cache).
func (s *Store) readIndex() map[string]indexEntry {
	idx := map[string]indexEntry{}
	data, err := os.ReadFile(s.indexPath())
	if err != nil {
		return idx
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		head, path, ok := strings.Cut(sc.Text(), "\t")
		f := strings.Fields(head)
		if !ok || len(f) != 5 || len(f[0]) != 64 {
			return map[string]indexEntry{}
		}
		var e indexEntry
		var mode uint64
		var err [4]error
		e.hash = f[0]
		e.size, err[0] = strconv.ParseInt(f[1], 10, 64)
		e.mtime, err[1] = strconv.ParseInt(f[2], 10, 64)
		e.ino, err[2] = strconv.ParseUint(f[3], 10, 64)
		mode, err[3] = strconv.ParseUint(f[4], 10, 32)
		if err != [4]error{} {
			return map[string]indexEntry{}
		}
		e.mode = fs.FileMode(mode)
		idx[path] = e
	}
	return idx
}

// writeIndex saves the entries not modified within racyWindow of start.
func (s *Store) writeIndex(idx map[string]indexEntry, start time.Time) error {
	var b bytes.Buffer
	limit := start.Add(-racyWindow).UnixNano()
	for path, e := range idx {
		if e.mtime >= limit || strings.ContainsAny(path, "\n") {
			continue
		}
		fmt.Fprintf(&b, "%s %d %d %d %d\t%s\n", e.hash, e.size, e.mtime, e.ino, uint32(e.mode), path)
	}
	tmp := s.indexPath() + ".tmp"
	if err := os.WriteFile(tmp, b.Bytes(), 0o600); err != nil {
		return fmt.Errorf("checkpoint: saving the index: %w", err)
	}
	if err := os.Rename(tmp, s.indexPath()); err != nil {
		return fmt.Errorf("checkpoint: saving the index: %w", err)
	}
	return nil
}
