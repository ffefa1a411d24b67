//go:build !unix

package tools

import "io/fs"

// metaOf is what replaceFile keeps of the file fi describes: here, its mode bits.
func metaOf(fi fs.FileInfo) fileMeta {
	return fileMeta{mode: fi.Mode() & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky), links: 1}
}
