package checkpoint

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Objects live in packs: each operation that stores objects writes the new ones into one
// pack file (one file per snapshot, not one per object: creating files is what costs on a
// large first snapshot) and its index, "hash offset length" records of 44 bytes, written
// after the pack so that a pack without an index is one an operation did not finish (it is
// ignored and pruned). A pack record is the zlib-compressed content.

const idxRecord = 32 + 8 + 4

type loc struct {
	pack string // "" while in the pack being written
	off  int64
	n    uint32
}

// objectSet is the store's objects during one operation (the lock held).
type objectSet struct {
	dir   string // packs/
	locs  map[string]loc
	open  map[string]*os.File
	packs []string // names of the packs read, without extension
	// the pack being written
	tmp     *os.File
	tmpOff  int64
	pending []string // hashes in tmp, in order
	zc      compressor
}

// compressor is one operation's zlib writer: making one costs more than compressing a small
// file, so an operation reuses it for every object it stores.
type compressor struct {
	buf bytes.Buffer
	zw  *zlib.Writer
}

func (c *compressor) compress(data []byte) []byte {
	c.buf.Reset()
	if c.zw == nil {
		c.zw, _ = zlib.NewWriterLevel(&c.buf, zlib.BestSpeed)
	} else {
		c.zw.Reset(&c.buf)
	}
	c.zw.Write(data)
	c.zw.Close()
	return c.buf.Bytes()
}

func (s *Store) loadObjects() (*objectSet, error) {
	o := &objectSet{dir: filepath.Join(s.dir, "packs"), locs: map[string]loc{}, open: map[string]*os.File{}}
	names, err := filepath.Glob(filepath.Join(o.dir, "*.idx"))
	if err != nil {
		return nil, fmt.Errorf("checkpoint: listing packs: %w", err)
	}
	for _, name := range names {
		data, err := os.ReadFile(name)
		if err != nil {
			return nil, fmt.Errorf("checkpoint: reading pack index %s: %w", name, err)
		}
		pack := strings.TrimSuffix(filepath.Base(name), ".idx")
		if locs, ok := readIndexOf(o.dir, pack, data); ok {
			for hash, l := range locs {
				o.locs[hash] = l
			}
		} // a damaged pack is left out: what only it held is missing, and new snapshots store it again
		o.packs = append(o.packs, pack)
	}
	return o, nil
}

// readIndexOf decodes a pack's index, refusing it whole when a record points past the pack
// (a damaged index must not make a read, or an allocation, of gigabytes).
func readIndexOf(dir, pack string, data []byte) (map[string]loc, bool) {
	info, err := os.Stat(filepath.Join(dir, pack+".pack"))
	if err != nil || len(data)%idxRecord != 0 {
		return nil, false
	}
	locs := make(map[string]loc, len(data)/idxRecord)
	for ; len(data) > 0; data = data[idxRecord:] {
		l := loc{pack: pack, off: int64(binary.BigEndian.Uint64(data[32:40])), n: binary.BigEndian.Uint32(data[40:44])}
		if l.off < 0 || l.off+int64(l.n) > info.Size() {
			return nil, false
		}
		locs[hex.EncodeToString(data[:32])] = l
	}
	return locs, true
}

// put stores data as an object of kind unless the store has it; it returns the hash and the
// bytes it added (0 when the object was there).
func (s *Store) put(kind string, data []byte) (string, int64, error) {
	hash := hashOf(kind, data)
	if _, ok := s.obj.locs[hash]; ok {
		return hash, 0, nil
	}
	n, err := s.obj.append(hash, s.obj.zc.compress(data))
	return hash, n, err
}

// append adds an object's compressed bytes to the pack being written.
func (o *objectSet) append(hash string, packed []byte) (int64, error) {
	if o.tmp == nil {
		f, err := os.CreateTemp(o.dir, ".pack-*")
		if err != nil {
			return 0, fmt.Errorf("checkpoint: starting a pack: %w", err)
		}
		o.tmp, o.tmpOff = f, 0
	}
	if _, err := o.tmp.Write(packed); err != nil {
		return 0, fmt.Errorf("checkpoint: writing object %s: %w", hash[:12], err)
	}
	o.locs[hash] = loc{off: o.tmpOff, n: uint32(len(packed))}
	o.tmpOff += int64(len(packed))
	o.pending = append(o.pending, hash)
	return int64(len(packed)), nil
}

// commit makes the pack being written part of the store: the pack, then its index.
func (o *objectSet) commit() error {
	if o.tmp == nil {
		return nil
	}
	name := fmt.Sprintf("%x-%s", time.Now().UnixNano(), strings.TrimPrefix(filepath.Base(o.tmp.Name()), ".pack-"))
	idx := make([]byte, 0, len(o.pending)*idxRecord)
	for _, hash := range o.pending {
		raw, _ := hex.DecodeString(hash)
		l := o.locs[hash]
		idx = append(idx, raw...)
		idx = binary.BigEndian.AppendUint64(idx, uint64(l.off))
		idx = binary.BigEndian.AppendUint32(idx, l.n)
	}
	tmpName := o.tmp.Name()
	err := o.tmp.Close()
	if err == nil {
		err = os.Rename(tmpName, filepath.Join(o.dir, name+".pack"))
	}
	if err == nil {
		err = writeFileAtomic(filepath.Join(o.dir, name+".idx"), idx)
	}
	if err != nil {
		os.Remove(tmpName)
		return fmt.Errorf("checkpoint: saving a pack: %w", err)
	}
	for _, hash := range o.pending {
		l := o.locs[hash]
		l.pack = name
		o.locs[hash] = l
	}
	o.tmp, o.pending = nil, nil
	o.packs = append(o.packs, name)
	return nil
}

func writeFileAtomic(path string, data []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// raw is an object's compressed bytes.
func (o *objectSet) raw(hash string) ([]byte, error) {
	l, ok := o.locs[hash]
	if !ok {
		return nil, fmt.Errorf("checkpoint: object %s is not in the store (pruned?): %w", short(hash), ErrMissing)
	}
	f := o.tmp
	if l.pack != "" {
		if f = o.open[l.pack]; f == nil {
			var err error
			if f, err = os.Open(filepath.Join(o.dir, l.pack+".pack")); err != nil {
				return nil, fmt.Errorf("checkpoint: opening pack %s: %w", l.pack, err)
			}
			o.open[l.pack] = f
		}
	}
	buf := make([]byte, l.n)
	if _, err := f.ReadAt(buf, l.off); err != nil {
		return nil, fmt.Errorf("checkpoint: reading object %s: %w", short(hash), err)
	}
	return buf, nil
}

// get reads the object hash of kind and checks that its content still has that hash.
func (s *Store) get(kind, hash string) ([]byte, error) {
	if len(hash) != 64 {
		return nil, fmt.Errorf("checkpoint: %q is not an object name", hash)
	}
	packed, err := s.obj.raw(hash)
	if err != nil {
		return nil, err
	}
	zr, err := zlib.NewReader(bytes.NewReader(packed))
	if err != nil {
		return nil, fmt.Errorf("checkpoint: object %s is damaged: %w", short(hash), err)
	}
	data, err := io.ReadAll(zr)
	if err != nil {
		return nil, fmt.Errorf("checkpoint: object %s is damaged: %w", short(hash), err)
	}
	if hashOf(kind, data) != hash {
		return nil, fmt.Errorf("checkpoint: object %s is damaged: its content has another hash", short(hash))
	}
	return data, nil
}

// close drops an unfinished pack and closes the packs read.
func (o *objectSet) close() {
	if o.tmp != nil {
		o.tmp.Close()
		os.Remove(o.tmp.Name())
	}
	for _, f := range o.open {
		f.Close()
	}
}

// repack writes the objects keep into one new pack and removes every other pack (and the
// leftovers of operations that did not finish); it returns the bytes freed.
func (s *Store) repack(keep map[string]bool) (int64, error) {
	o := s.obj
	var before int64
	for _, l := range o.locs {
		before += int64(l.n)
	}
	old := o.packs
	o.packs = nil
	for hash := range keep {
		packed, err := o.raw(hash)
		if err != nil {
			return 0, err
		}
		if _, err := o.append(hash, packed); err != nil {
			return 0, err
		}
	}
	if err := o.commit(); err != nil {
		return 0, err
	}
	for _, name := range old {
		if f := o.open[name]; f != nil {
			f.Close()
			delete(o.open, name)
		}
		os.Remove(filepath.Join(o.dir, name+".idx"))
		os.Remove(filepath.Join(o.dir, name+".pack"))
	}
	leftovers, _ := filepath.Glob(filepath.Join(o.dir, ".pack-*"))
	packs, _ := filepath.Glob(filepath.Join(o.dir, "*.pack"))
	for _, p := range append(leftovers, packs...) {
		if _, err := os.Stat(strings.TrimSuffix(p, ".pack") + ".idx"); errors.Is(err, os.ErrNotExist) {
			os.Remove(p)
		}
	}
	var after int64
	for hash, l := range o.locs {
		if !keep[hash] {
			delete(o.locs, hash)
			continue
		}
		after += int64(l.n)
	}
	return before - after, nil
}
