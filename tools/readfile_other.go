//go:build !unix

package tools

import (
	"errors"
	"io"
	"os"
)

// readFileInto reads a regular file into buf (grown as needed, kept when not larger than keep).
func readFileInto(path string, buf *[]byte, keep int) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, errors.New("not a regular file")
	}
	data := growBuffer(buf, int(fi.Size()), keep)
	n, err := io.ReadFull(f, data)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, err
	}
	return data[:n], nil
}
