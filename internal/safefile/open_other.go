//go:build !unix

package safefile

import "os"

// nonBlocking is nothing where opens of pipes do not wait.
const nonBlocking = 0

// File is an open regular file.
type File struct {
	*os.File
	size int64
}

// Open opens path for reading when it is a regular file; anything else is refused with a
// NotRegularError.
func Open(path string) (*File, error) {
	if err := check(path); err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	fi, err := keepRegular(f, path)
	if err != nil {
		return nil, err
	}
	return &File{File: f, size: fi.Size()}, nil
}

// Size is the size the file reported when it was opened; a read must not trust it.
func (f *File) Size() int64 { return f.size }
