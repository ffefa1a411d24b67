package checkpoint

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// makeProject writes n source-like files of 1-4 KiB in folders of 20, an hour old (so that
// the index vouches for them, as for any project not edited this second).
func makeProject(b *testing.B, n int) string {
	b.Helper()
	root := b.TempDir()
	line := "func example(a, b int) int { return a*b + len(\"some text here\") } // a line of code\n"
	for i := range n {
		dir := filepath.Join(root, fmt.Sprintf("pkg%03d", i/20))
		os.MkdirAll(dir, 0o755)
		body := fmt.Sprintf("package p%d\n", i) + strings.Repeat(line, 12+i%36)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("file%02d.go", i%20)), []byte(body), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	old := time.Now().Add(-time.Hour)
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error { return os.Chtimes(p, old, old) })
	return root
}

// BenchmarkSnapshot10k: go test -run '^$' -bench Snapshot10k -benchtime 5x ./checkpoint
// (store-bytes/op is the store's growth per snapshot; files-read/op what was read).
func BenchmarkSnapshot10k(b *testing.B) {
	ctx := context.Background()
	root := makeProject(b, 10000)
	b.Run("first", func(b *testing.B) {
		for range b.N {
			s, _ := Open(b.TempDir(), root, Options{})
			snap, err := s.Snapshot(ctx, "")
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(snap.Added), "store-bytes/op")
			b.ReportMetric(float64(snap.Read), "files-read/op")
			if info, err := os.Stat(s.indexPath()); err == nil {
				b.ReportMetric(float64(info.Size()), "index-bytes")
			}
		}
	})
	s, _ := Open(b.TempDir(), root, Options{})
	if _, err := s.Snapshot(ctx, ""); err != nil {
		b.Fatal(err)
	}
	b.Run("unchanged", func(b *testing.B) {
		for range b.N {
			snap, err := s.Snapshot(ctx, "")
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(snap.Added), "store-bytes/op")
			b.ReportMetric(float64(snap.Read), "files-read/op")
		}
	})
	b.Run("one-changed", func(b *testing.B) {
		for i := range b.N {
			os.WriteFile(filepath.Join(root, "pkg250", "file07.go"), []byte(fmt.Sprintf("package p // %d\n", i)), 0o644)
			snap, err := s.Snapshot(ctx, "")
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(snap.Added), "store-bytes/op")
			b.ReportMetric(float64(snap.Read), "files-read/op")
		}
	})
}

// BenchmarkRestore10k: go test -run '^$' -bench Restore10k -benchtime 5x ./checkpoint
// one-file puts back one edited file; a-tenth puts back 1,000 deleted files (rm -rf of 50
// folders). Each restore includes the snapshot of the files as they were.
func BenchmarkRestore10k(b *testing.B) {
	ctx := context.Background()
	root := makeProject(b, 10000)
	s, _ := Open(b.TempDir(), root, Options{})
	base, err := s.Snapshot(ctx, "")
	if err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		mutate func()
	}{
		{"one-file", func() { os.WriteFile(filepath.Join(root, "pkg100", "file03.go"), []byte("broken\n"), 0o644) }},
		{"a-tenth", func() {
			for d := range 50 {
				os.RemoveAll(filepath.Join(root, fmt.Sprintf("pkg%03d", d)))
			}
		}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			for range b.N {
				b.StopTimer()
				tc.mutate()
				b.StartTimer()
				res, err := s.Restore(ctx, base.ID, RestoreOptions{})
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(len(res.Changes)), "paths/op")
			}
		})
	}
}
