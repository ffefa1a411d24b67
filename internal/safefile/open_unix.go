//go:build unix

package safefile

import (
	"io"
	"os"
	"syscall"
)

// nonBlocking keeps an open of a pipe from waiting for its other end.
const nonBlocking = syscall.O_NONBLOCK

// File is an open regular file read with system calls directly: os.Open also registers every
// file with the network poller, which costs a search of many small files a third of its
// system calls.
type File struct {
	fd   int
	size int64
}

// Open opens path for reading when it is a regular file. A named pipe, device, socket or
// directory is refused with a NotRegularError: before the open when Stat sees it, and after
// a non-blocking open when the path was swapped in between.
func Open(path string) (*File, error) {
	if err := check(path); err != nil {
		return nil, err
	}
	return openNonBlocking(path)
}

// openNonBlocking opens path without waiting for a pipe's writer, and keeps it only when the
// open file is a regular file.
func openNonBlocking(path string) (*File, error) {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		syscall.Close(fd)
		return nil, &os.PathError{Op: "fstat", Path: path, Err: err}
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		syscall.Close(fd)
		return nil, &NotRegularError{Path: path, Kind: kindOfStat(uint32(st.Mode))}
	}
	return &File{fd: fd, size: st.Size}, nil
}

func kindOfStat(mode uint32) string {
	switch mode & syscall.S_IFMT {
	case syscall.S_IFDIR:
		return "a directory"
	case syscall.S_IFIFO:
		return "a named pipe (FIFO)"
	case syscall.S_IFSOCK:
		return "a socket"
	case syscall.S_IFCHR:
		return "a character device"
	case syscall.S_IFBLK:
		return "a block device"
	}
	return "not a regular file"
}

// Size is the size the file reported when it was opened; a read must not trust it.
func (f *File) Size() int64 { return f.size }

func (f *File) Read(p []byte) (int, error) {
	for {
		n, err := syscall.Read(f.fd, p)
		switch {
		case err == syscall.EINTR:
			continue
		case err != nil:
			return 0, err
		case n == 0 && len(p) > 0:
			return 0, io.EOF
		}
		return n, nil
	}
}

// Close closes the file.
func (f *File) Close() error { return syscall.Close(f.fd) }
