//go:build !unix

package tools

import (
	"errors"
	"os"
)

// regularFile is an open regular file.
type regularFile struct{ *os.File }

// openRegular opens path for reading when it is a regular file, and returns its size.
func openRegular(path string) (*regularFile, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, 0, errors.New("not a regular file")
	}
	return &regularFile{f}, fi.Size(), nil
}
