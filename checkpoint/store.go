package checkpoint

import (
	"bytes"
	"compress/zlib"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// DefaultMaxFileSize is the size over which a file is skipped (listed, not stored).
const DefaultMaxFileSize = 10 << 20

// Options configure a store. Zero values take the defaults.
type Options struct {
	MaxFileSize int64 // bytes; a larger file is skipped with a notice; 0: DefaultMaxFileSize
	// Exclude are absolute paths inside the project never snapshotted (besides $PI_HOME,
	// which is always excluded).
	Exclude []string
}

// Store is one project's snapshots. Its methods are safe for concurrent use by several
// processes: each holds the store's lock while it works.
type Store struct {
	dir     string // $PI_HOME/checkpoints/<name>-<hash of the project path>
	root    string // the project, absolute and cleaned
	maxSize int64
	exclude []string // slash-separated paths relative to root
}

// Open returns the store of project under piHome, made if missing.
func Open(piHome, project string, opts Options) (*Store, error) {
	root, err := filepath.Abs(project)
	if err != nil {
		return nil, fmt.Errorf("checkpoint: project %q: %w", project, err)
	}
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real
	}
	home, err := filepath.Abs(piHome)
	if err != nil {
		return nil, fmt.Errorf("checkpoint: PI_HOME %q: %w", piHome, err)
	}
	sum := sha256.Sum256([]byte(root))
	s := &Store{dir: filepath.Join(home, "checkpoints", filepath.Base(root)+"-"+hex.EncodeToString(sum[:6])),
		root: root, maxSize: opts.MaxFileSize}
	if s.maxSize <= 0 {
		s.maxSize = DefaultMaxFileSize
	}
	for _, ex := range append([]string{home}, opts.Exclude...) {
		if real, err := filepath.EvalSymlinks(ex); err == nil {
			ex = real
		}
		if rel, err := filepath.Rel(root, ex); err == nil && rel != "." && !strings.HasPrefix(rel, "..") {
			s.exclude = append(s.exclude, filepath.ToSlash(rel))
		}
	}
	if err := os.MkdirAll(filepath.Join(s.dir, "objects"), 0o700); err != nil {
		return nil, fmt.Errorf("checkpoint: making the store for %s: %w", root, err)
	}
	return s, nil
}

// Dir is the store's folder; Root the project it snapshots.
func (s *Store) Dir() string  { return s.dir }
func (s *Store) Root() string { return s.root }

// lock takes the store's exclusive lock, waiting for other sessions as long as ctx allows.
func (s *Store) lock(ctx context.Context) (unlock func(), err error) {
	f, err := os.OpenFile(filepath.Join(s.dir, "lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("checkpoint: opening the store's lock: %w", err)
	}
	for delay := time.Millisecond; ; delay = min(2*delay, 50*time.Millisecond) {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() { syscall.Flock(int(f.Fd()), syscall.LOCK_UN); f.Close() }, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			f.Close()
			return nil, fmt.Errorf("checkpoint: locking the store %s: %w", s.dir, err)
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, fmt.Errorf("checkpoint: waiting for another session's lock on %s: %w", s.dir, ctx.Err())
		case <-time.After(delay):
		}
	}
}

// hashOf names content of a kind ("blob" or "tree").
func hashOf(kind string, data []byte) string {
	h := sha256.New()
	h.Write([]byte(kind))
	h.Write([]byte{0})
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil))
}

func (s *Store) objectPath(hash string) string {
	return filepath.Join(s.dir, "objects", hash[:2], hash[2:])
}

// put stores data as an object of kind unless the store has it; it returns the hash and the
// bytes it added (0 when the object was there).
func (s *Store) put(kind string, data []byte) (string, int64, error) {
	hash := hashOf(kind, data)
	p := s.objectPath(hash)
	if _, err := os.Stat(p); err == nil {
		return hash, 0, nil
	}
	var buf bytes.Buffer
	zw, _ := zlib.NewWriterLevel(&buf, zlib.BestSpeed)
	zw.Write(data)
	zw.Close()
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return "", 0, fmt.Errorf("checkpoint: storing an object: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(p), ".tmp-*")
	if err != nil {
		return "", 0, fmt.Errorf("checkpoint: storing an object: %w", err)
	}
	_, err = tmp.Write(buf.Bytes())
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), p) // identical content from a racing session: either wins
	}
	if err != nil {
		os.Remove(tmp.Name())
		return "", 0, fmt.Errorf("checkpoint: storing object %s: %w", hash[:12], err)
	}
	return hash, int64(buf.Len()), nil
}

// get reads the object hash of kind and checks that its content still has that hash.
func (s *Store) get(kind, hash string) ([]byte, error) {
	if len(hash) != 64 {
		return nil, fmt.Errorf("checkpoint: %q is not an object name", hash)
	}
	f, err := os.Open(s.objectPath(hash))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("checkpoint: object %s is not in the store (pruned?): %w", hash[:12], ErrMissing)
	}
	if err != nil {
		return nil, fmt.Errorf("checkpoint: reading object %s: %w", hash[:12], err)
	}
	defer f.Close()
	zr, err := zlib.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("checkpoint: object %s is damaged: %w", hash[:12], err)
	}
	data, err := io.ReadAll(zr)
	if err != nil {
		return nil, fmt.Errorf("checkpoint: object %s is damaged: %w", hash[:12], err)
	}
	if hashOf(kind, data) != hash {
		return nil, fmt.Errorf("checkpoint: object %s is damaged: its content has another hash", hash[:12])
	}
	return data, nil
}

// ErrMissing is wrapped by errors about a snapshot or object that the store does not hold.
var ErrMissing = errors.New("not in the store")
