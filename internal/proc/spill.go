package proc

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
)

// MaxSpillBytes is how much of a command's output its spill file keeps from the start. Past it
// the file keeps only the tail held in memory (up to 4*MaxBytes), after a line saying how many
// bytes were left out, so that a runaway command cannot fill the disk (3 s of `yes` wrote
// 3.9 GB).
const MaxSpillBytes = 64 << 20

// spillDirBytes is how much the spill files of finished commands may hold together: past it the
// oldest are removed.
const spillDirBytes = 4 * MaxSpillBytes

// SpillDir is the folder the full output of shell commands spills to: made on first use under
// Parent (os.TempDir() when empty), named pi-<pid>-*, and removed with all it holds by Close,
// which whoever made the SpillDir calls when the process ends. The files of finished commands
// are kept while they hold no more than four times MaxSpillBytes together; past that the
// oldest are removed, as their output is the least likely to be asked for again. It is safe
// for concurrent use.
type SpillDir struct {
	parent   string
	maxBytes int64 // what finished files may hold together

	mu       sync.Mutex
	path     string      // "" until the first spill
	finished []spillFile // oldest first
	total    int64       // the bytes of finished
	closed   bool
}

type spillFile struct {
	path string
	size int64
}

// NewSpillDir returns a SpillDir under parent; it makes no folder until a command spills.
func NewSpillDir(parent string) *SpillDir {
	return &SpillDir{parent: parent, maxBytes: spillDirBytes}
}

// Path is the folder, "" before the first spill and after Close.
func (d *SpillDir) Path() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.path
}

// Close removes the folder and every file in it; a command that spills afterwards gets a
// SpillErr. It may be called more than once.
func (d *SpillDir) Close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.closed = true
	path := d.path
	d.path, d.finished, d.total = "", nil, 0
	if path == "" {
		return nil
	}
	if err := os.RemoveAll(path); err != nil {
		return fmt.Errorf("removing the spill folder %s: %w", path, err)
	}
	return nil
}

// create makes a new spill file, and the folder first if there is none yet.
func (d *SpillDir) create() (*os.File, error) {
	if d == nil {
		return nil, errors.New("no folder to keep it in")
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return nil, errors.New("the spill folder is closed")
	}
	if d.path == "" {
		parent := cmp.Or(d.parent, os.TempDir())
		p, err := os.MkdirTemp(parent, fmt.Sprintf("pi-%d-*", os.Getpid()))
		if err != nil {
			return nil, fmt.Errorf("making a spill folder in %s: %w", parent, err)
		}
		d.path = p
	}
	f, err := os.CreateTemp(d.path, "bash-*.log")
	if err != nil {
		return nil, fmt.Errorf("creating a spill file in %s: %w", d.path, err)
	}
	return f, nil
}

// done records that the command writing the spill file at path has ended, leaving size bytes,
// and removes the oldest finished files while they hold more than d.maxBytes together; the
// newest stays whatever its size.
func (d *SpillDir) done(path string, size int64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.path == "" || filepath.Dir(path) != d.path {
		return // closed meanwhile: the file is gone with the folder
	}
	d.finished = append(d.finished, spillFile{path, size})
	d.total += size
	for d.total > d.maxBytes && len(d.finished) > 1 {
		old := d.finished[0]
		os.Remove(old.path)
		d.finished = d.finished[1:]
		d.total -= old.size
	}
}
