package checkpoint

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// DefaultMaxFileSize is the size over which a file is skipped (listed, not stored).
const DefaultMaxFileSize = 10 << 20

// DefaultMaxFiles is how many paths a snapshot takes before it gives up: pi started in a home
// folder or a checkout of the world must not spend minutes and gigabytes on it.
const DefaultMaxFiles = 200_000

// ErrTooManyFiles is wrapped by a snapshot that met the file limit.
var ErrTooManyFiles = errors.New("too many files to snapshot")

// Options configure a store. Zero values take the defaults.
type Options struct {
	MaxFileSize int64 // bytes; a larger file is skipped with a notice; 0: DefaultMaxFileSize
	MaxFiles    int   // paths a snapshot may hold; 0: DefaultMaxFiles
	// Exclude are absolute paths inside the project never snapshotted (besides $PI_HOME,
	// which is always excluded).
	Exclude []string
}

// Store is one project's snapshots, used by one goroutine at a time. Several Stores of one
// project, in one process or several, are safe together: each operation holds the store's
// lock while it works.
type Store struct {
	dir      string // $PI_HOME/checkpoints/<name>-<hash of the project path>
	root     string // the project, absolute and cleaned
	maxSize  int64
	maxFiles int
	exclude  []string   // slash-separated paths relative to root
	obj      *objectSet // the objects, while an operation holds the lock
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
		root: root, maxSize: opts.MaxFileSize, maxFiles: opts.MaxFiles}
	if s.maxSize <= 0 {
		s.maxSize = DefaultMaxFileSize
	}
	if s.maxFiles <= 0 {
		s.maxFiles = DefaultMaxFiles
	}
	for _, ex := range append([]string{home}, opts.Exclude...) {
		if real, err := filepath.EvalSymlinks(ex); err == nil {
			ex = real
		}
		if rel, err := filepath.Rel(root, ex); err == nil && rel != "." && !strings.HasPrefix(rel, "..") {
			s.exclude = append(s.exclude, filepath.ToSlash(rel))
		}
	}
	if err := os.MkdirAll(filepath.Join(s.dir, "packs"), 0o700); err != nil {
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
			release := func() { syscall.Flock(int(f.Fd()), syscall.LOCK_UN); f.Close() }
			if s.obj, err = s.loadObjects(); err != nil {
				release()
				return nil, err
			}
			return func() { s.obj.close(); s.obj = nil; release() }, nil
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

// ErrMissing is wrapped by errors about a snapshot or object that the store does not hold.
var ErrMissing = errors.New("not in the store")
