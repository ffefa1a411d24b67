package checkpoint

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"
)

// Kinds of tree entries.
const (
	KindFile    = 'f'
	KindSymlink = 'l'
	KindDir     = 'd'
	KindSkipped = 's' // a file over the size limit: listed, not stored, never restored
)

// entry is one name in a folder's tree object.
type entry struct {
	name string
	kind byte
	mode fs.FileMode // permission bits (the executable bit is what matters)
	hash string      // blob (file content, symlink target) or tree; "" when skipped
	size int64
}

// encodeTree writes entries sorted by name as "kind mode hash size\tname\x00" records: a
// name may hold any byte but NUL and slash, as on disk.
func encodeTree(es []entry) []byte {
	slices.SortFunc(es, func(a, b entry) int { return strings.Compare(a.name, b.name) })
	b := make([]byte, 0, len(es)*96)
	for _, e := range es {
		hash := e.hash
		if hash == "" {
			hash = "-"
		}
		b = append(b, e.kind, ' ')
		b = strconv.AppendUint(b, uint64(e.mode.Perm()), 8)
		b = append(append(append(b, ' '), hash...), ' ')
		b = strconv.AppendInt(b, e.size, 10)
		b = append(append(append(b, '\t'), e.name...), 0)
	}
	return b
}

func decodeTree(data []byte) ([]entry, error) {
	var es []entry
	for len(data) > 0 {
		end := bytes.IndexByte(data, 0)
		if end < 0 {
			return nil, fmt.Errorf("checkpoint: a tree record lacks its end")
		}
		rec := string(data[:end])
		data = data[end+1:]
		head, name, ok := strings.Cut(rec, "\t")
		f := strings.Fields(head)
		if !ok || len(f) != 4 || len(f[0]) != 1 || name == "" || name == "." || name == ".." || strings.Contains(name, "/") {
			return nil, fmt.Errorf("checkpoint: damaged tree record %q", rec)
		}
		mode, err1 := strconv.ParseUint(f[1], 8, 32)
		size, err2 := strconv.ParseInt(f[3], 10, 64)
		if err1 != nil || err2 != nil || !strings.Contains("fdls", f[0]) {
			return nil, fmt.Errorf("checkpoint: damaged tree record %q", rec)
		}
		e := entry{name: name, kind: f[0][0], mode: fs.FileMode(mode).Perm(), hash: f[2], size: size}
		if e.hash == "-" {
			e.hash = ""
		}
		if e.kind != KindSkipped && len(e.hash) != 64 {
			return nil, fmt.Errorf("checkpoint: damaged tree record %q", rec)
		}
		es = append(es, e)
	}
	return es, nil
}

// File is one path of a snapshot, flattened.
type File struct {
	Path string // slash-separated, relative to the project
	Kind byte   // KindFile, KindSymlink, KindDir (an empty folder, or any folder), KindSkipped
	Mode fs.FileMode
	Hash string
	Size int64
}

// flatten lists every path of the tree hash, folders included, under prefix.
func (s *Store) flatten(hash, prefix string, out map[string]File) error {
	data, err := s.get("tree", hash)
	if err != nil {
		return err
	}
	es, err := decodeTree(data)
	if err != nil {
		return fmt.Errorf("%w (tree %s)", err, hash[:12])
	}
	for _, e := range es {
		p := prefix + e.name
		out[p] = File{Path: p, Kind: e.kind, Mode: e.mode, Hash: e.hash, Size: e.size}
		if e.kind == KindDir {
			if err := s.flatten(e.hash, p+"/", out); err != nil {
				return err
			}
		}
	}
	return nil
}

// Files lists every path the snapshot id holds.
func (s *Store) Files(ctx context.Context, id string) (map[string]File, error) {
	unlock, err := s.lock(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	return s.files(id)
}

func (s *Store) files(id string) (map[string]File, error) {
	out := map[string]File{}
	if err := s.flatten(id, "", out); err != nil {
		return nil, fmt.Errorf("checkpoint: snapshot %s: %w", short(id), err)
	}
	return out, nil
}

func short(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}
