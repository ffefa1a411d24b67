//go:build unix

package tools

import (
	"io/fs"
	"syscall"
)

// metaOf is what replaceFile keeps of the file fi describes.
func metaOf(fi fs.FileInfo) fileMeta {
	m := fileMeta{mode: fi.Mode() & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky), links: 1}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		m.owned, m.uid, m.gid, m.links = true, int(st.Uid), int(st.Gid), uint64(st.Nlink)
	}
	return m
}
