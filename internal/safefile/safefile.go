// Package safefile opens and reads the files pi is pointed at (by the model, a script, a
// project or the user) so that no file can hang pi or exhaust its memory: only regular files
// are opened, a named pipe or device is refused before it is opened (opening one can block,
// or act on the device), the open never blocks (so a path swapped for a pipe between the
// check and the open is refused too), and a read stops at a limit counted in bytes read,
// never at the size the file reports (/proc files report 0 and /proc/self/pagemap holds
// hundreds of gigabytes). It imports nothing of this module and holds no state.
package safefile

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// ErrNotRegular is what every refusal of a file that is not a regular file wraps.
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge is what every refusal of a file over a read's limit wraps.
var ErrTooLarge = errors.New("file too large")

// NotRegularError says that Path is a Kind ("a named pipe (FIFO)", "a device"…) and was
// not opened.
type NotRegularError struct{ Path, Kind string }

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("%s is %s, not a regular file; pi reads only regular files", e.Path, e.Kind)
}

func (e *NotRegularError) Is(target error) bool { return target == ErrNotRegular }

// TooLargeError says that Path holds more than Limit bytes; at most 4 KiB more were read.
type TooLargeError struct {
	Path  string
	Limit int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s holds more than %s, the most pi reads of it at once", e.Path, formatBytes(e.Limit))
}

func (e *TooLargeError) Is(target error) bool { return target == ErrTooLarge }

// Kind names what a file of mode m is, for NotRegularError.
func Kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	}
	return "not a regular file"
}

// check refuses path unless Stat finds a regular file (symlinks followed), without opening it.
func check(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return &NotRegularError{Path: path, Kind: Kind(fi.Mode())}
	}
	return nil
}

// readChunk is how much ReadFile reads between looks at its context.
const readChunk = 1 << 20

// ReadFile reads the regular file at path whole, when it holds at most limit bytes; a larger
// one is refused with a TooLargeError after reading little more than limit bytes. It stops with ctx's error
// when ctx ends between chunks.
func ReadFile(ctx context.Context, path string, limit int64) ([]byte, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readAll(ctx, f, path, f.Size(), limit)
}

// readAll reads r up to limit bytes, in a buffer sized by the size the file reported, then
// looks for one byte more. Reads are in multiples of 4 KiB until the limit, as some kernel
// files (pagemap) refuse reads of other sizes.
func readAll(ctx context.Context, r io.Reader, path string, sizeHint, limit int64) ([]byte, error) {
	buf := make([]byte, 0, roundUp(min(max(sizeHint, 0), limit)+1, 4096))
	for {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("reading %s: %w", path, err)
		}
		if len(buf) == cap(buf) {
			grown := make([]byte, len(buf), 2*cap(buf))
			copy(grown, buf)
			buf = grown
		}
		want := min(int64(cap(buf)-len(buf)), readChunk, limit-int64(len(buf)))
		if want == 0 {
			if err := probeEnd(r, path, limit); err != nil {
				return nil, err
			}
			return buf, nil
		}
		n, err := r.Read(buf[len(buf) : len(buf)+int(want)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", path, err)
		}
	}
}

// probeEnd is nil when r, which gave limit bytes, has nothing more.
func probeEnd(r io.Reader, path string, limit int64) error {
	var more [4096]byte
	for {
		n, err := r.Read(more[:])
		switch {
		case n > 0:
			return &TooLargeError{Path: path, Limit: limit}
		case err == io.EOF:
			return nil
		case err != nil:
			return fmt.Errorf("reading %s: %w", path, err)
		}
	}
}

func roundUp(n, to int64) int64 { return (n + to - 1) / to * to }

// formatBytes is n in the largest binary unit that keeps it whole or near it.
func formatBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// OpenFile is os.OpenFile(path, flag, 0) for an existing regular file, refused as Open
// refuses; for callers that need an *os.File (ReadAt, locks, appends).
func OpenFile(path string, flag int) (*os.File, error) {
	if err := check(path); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, flag|nonBlocking, 0)
	if err != nil {
		return nil, err
	}
	if _, err := keepRegular(f, path); err != nil {
		return nil, err
	}
	return f, nil
}

// keepRegular is the open f's FileInfo when f is a regular file; otherwise f is closed and
// refused with a NotRegularError.
func keepRegular(f *os.File, path string) (os.FileInfo, error) {
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, &NotRegularError{Path: path, Kind: Kind(fi.Mode())}
	}
	return fi, nil
}

// ReadAll reads r, named name in errors, up to limit bytes; more is refused with a
// TooLargeError (standard input piped from /dev/zero must not run pi out of memory).
func ReadAll(ctx context.Context, r io.Reader, name string, limit int64) ([]byte, error) {
	return readAll(ctx, r, name, 0, limit)
}

// MaxTextFile bounds a file a person writes for pi to read whole: configuration, prompt and
// context files, skills, agent types, themes. One over it is a mistake or an attack.
const MaxTextFile = 16 << 20
