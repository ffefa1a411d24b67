package checkpoint

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

// tree describes files for a test: path → content; "dir/" is an empty folder, "@target" a
// symlink, a leading "x:" an executable file.
type tree map[string]string

func writeTree(t *testing.T, root string, tr tree) {
	t.Helper()
	for p, c := range tr {
		full := filepath.Join(root, p)
		if strings.HasSuffix(p, "/") {
			must(t, os.MkdirAll(full, 0o755))
			continue
		}
		must(t, os.MkdirAll(filepath.Dir(full), 0o755))
		switch {
		case strings.HasPrefix(c, "@"):
			must(t, os.Symlink(c[1:], full))
		case strings.HasPrefix(c, "x:"):
			must(t, os.WriteFile(full, []byte(c[2:]), 0o755))
		default:
			must(t, os.WriteFile(full, []byte(c), 0o644))
		}
	}
}

// readTree is the inverse of writeTree for everything below root but skip.
func readTree(t *testing.T, root string, skip ...string) tree {
	t.Helper()
	out := tree{}
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		rel, _ := filepath.Rel(root, p)
		for _, s := range skip {
			if rel == s {
				return filepath.SkipDir
			}
		}
		if err != nil || rel == "." {
			return err
		}
		info, _ := os.Lstat(p)
		switch {
		case info.Mode()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			out[rel] = "@" + target
		case d.IsDir():
			if entries, _ := os.ReadDir(p); len(entries) == 0 {
				out[rel+"/"] = ""
			}
		case info.Mode()&0o100 != 0:
			data, _ := os.ReadFile(p)
			out[rel] = "x:" + string(data)
		default:
			data, _ := os.ReadFile(p)
			out[rel] = string(data)
		}
		return nil
	})
	return out
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func newStore(t *testing.T, tr tree, opts Options) (*Store, string) {
	t.Helper()
	root := t.TempDir()
	writeTree(t, root, tr)
	s, err := Open(t.TempDir(), root, opts)
	must(t, err)
	return s, root
}

func assertTree(t *testing.T, root string, want tree, skip ...string) {
	t.Helper()
	got := readTree(t, root, skip...)
	var diffs []string
	for p, w := range want {
		if got[p] != w {
			diffs = append(diffs, p+": got "+quote(got[p])+", want "+quote(w))
		}
	}
	for p := range got {
		if _, ok := want[p]; !ok {
			diffs = append(diffs, p+": should not exist")
		}
	}
	sort.Strings(diffs)
	if len(diffs) > 0 {
		t.Errorf("files differ:\n%s", strings.Join(diffs, "\n"))
	}
}

func quote(s string) string {
	if len(s) > 40 {
		s = s[:40] + "…"
	}
	return "\"" + s + "\""
}

var start = tree{
	"README.md":        "# demo\nline two\n",
	"src/main.go":      "package main\n\nfunc main() {}\n",
	"src/lib/util.go":  "package lib\n",
	"run.sh":           "x:#!/bin/sh\necho hi\n",
	"link":             "@src/main.go",
	"empty/":           "",
	"data.bin":         "\x00\x01\x02\xff binary\x00",
	"other.txt":        "alpha\nbeta\ngamma\n",
	"name with space":  "spaces\n",
	".hidden/config":   "hidden=1\n",
	"deep/a/b/c/d.txt": "deep\n",
}

func TestRestoreBringsBackEveryKindOfPath(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name   string
		mutate func(root string) error
	}{
		{"rm -rf a folder", func(r string) error { return os.RemoveAll(filepath.Join(r, "src")) }},
		{"sed -i a file", func(r string) error {
			return os.WriteFile(filepath.Join(r, "other.txt"), []byte("alpha\nBETA\ngamma\n"), 0o644)
		}},
		{"exec bit dropped", func(r string) error { return os.Chmod(filepath.Join(r, "run.sh"), 0o644) }},
		{"symlink retargeted", func(r string) error {
			os.Remove(filepath.Join(r, "link"))
			return os.Symlink("/etc/passwd", filepath.Join(r, "link"))
		}},
		{"empty folder removed", func(r string) error { return os.Remove(filepath.Join(r, "empty")) }},
		{"binary rewritten", func(r string) error { return os.WriteFile(filepath.Join(r, "data.bin"), []byte{9, 0, 9}, 0o644) }},
		{"new files and folders", func(r string) error {
			os.MkdirAll(filepath.Join(r, "gen/out"), 0o755)
			return os.WriteFile(filepath.Join(r, "gen/out/x.go"), []byte("generated\n"), 0o644)
		}},
		{"file becomes folder", func(r string) error {
			os.Remove(filepath.Join(r, "other.txt"))
			return os.MkdirAll(filepath.Join(r, "other.txt/inner"), 0o755)
		}},
		{"folder becomes file", func(r string) error {
			os.RemoveAll(filepath.Join(r, "deep"))
			return os.WriteFile(filepath.Join(r, "deep"), []byte("flat\n"), 0o644)
		}},
		{"everything at once", func(r string) error {
			os.RemoveAll(filepath.Join(r, "src"))
			os.RemoveAll(filepath.Join(r, ".hidden"))
			os.Chmod(filepath.Join(r, "run.sh"), 0o600)
			return os.WriteFile(filepath.Join(r, "README.md"), nil, 0o644)
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, root := newStore(t, start, Options{})
			before, err := s.Snapshot(ctx, "test")
			must(t, err)
			must(t, tc.mutate(root))
			after, err := s.Snapshot(ctx, "test")
			must(t, err)
			if after.ID == before.ID {
				t.Fatal("the change did not change the snapshot's id")
			}
			res, err := s.Restore(ctx, before.ID, RestoreOptions{Expected: after.ID})
			must(t, err)
			if len(res.Changes) == 0 {
				t.Error("the restore reported no change")
			}
			assertTree(t, root, start)
			_, err = s.Restore(ctx, after.ID, RestoreOptions{Expected: before.ID}) // redo
			must(t, err)
			again, err := s.Snapshot(ctx, "test")
			must(t, err)
			if again.ID != after.ID {
				t.Errorf("redo left %s, want the files of %s", short(again.ID), short(after.ID))
			}
		})
	}
}

func TestSnapshotFollowsGitignoreAndLimits(t *testing.T) {
	ctx := context.Background()
	s, root := newStore(t, tree{
		".gitignore":      "build/\n*.log\n",
		"keep.txt":        "keep\n",
		"build/out.o":     "object\n",
		"debug.log":       "log\n",
		"big.dat":         strings.Repeat("z", 2048),
		".git/HEAD":       "ref: refs/heads/main\n",
		".hg/store":       "hg\n",
		"pihome/sessions": "not ours to snapshot\n",
	}, Options{MaxFileSize: 1024})
	s2, err := Open(filepath.Join(root, "pihome"), root, Options{MaxFileSize: 1024})
	must(t, err)
	snap, err := s2.Snapshot(ctx, "")
	must(t, err)
	files, err := s2.Files(ctx, snap.ID)
	must(t, err)
	for _, p := range []string{"build", "build/out.o", "debug.log", ".git", ".git/HEAD", ".hg", ".hg/store", "pihome", "pihome/sessions"} {
		if _, ok := files[p]; ok {
			t.Errorf("%s is in the snapshot", p)
		}
	}
	if f := files["big.dat"]; f.Kind != KindSkipped {
		t.Errorf("big.dat: kind %c, want skipped", f.Kind)
	}
	if len(snap.Skipped) != 1 || snap.Skipped[0].Path != "big.dat" || !strings.Contains(snap.Skipped[0].Reason, "1024") {
		t.Errorf("skipped = %+v, want big.dat over the limit", snap.Skipped)
	}
	// A restore leaves ignored and skipped files alone, whatever became of them.
	must(t, os.WriteFile(filepath.Join(root, "debug.log"), []byte("new log\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(root, "big.dat"), []byte("changed"), 0o644))
	must(t, os.WriteFile(filepath.Join(root, "keep.txt"), []byte("edited\n"), 0o644))
	_, err = s2.Restore(ctx, snap.ID, RestoreOptions{})
	must(t, err)
	for p, want := range map[string]string{"debug.log": "new log\n", "big.dat": "changed", "keep.txt": "keep\n"} {
		if got, _ := os.ReadFile(filepath.Join(root, p)); string(got) != want {
			t.Errorf("%s = %q after restore, want %q", p, got, want)
		}
	}
	_ = s
}

func TestSnapshotGivesUpOnTooManyFiles(t *testing.T) {
	s, _ := newStore(t, start, Options{MaxFiles: 5})
	if _, err := s.Snapshot(context.Background(), ""); !errors.Is(err, ErrTooManyFiles) || !strings.Contains(err.Error(), "more than 5") {
		t.Errorf("err = %v, want ErrTooManyFiles naming the limit", err)
	}
	if recs, _ := s.List(context.Background()); len(recs) != 0 {
		t.Errorf("a snapshot that gave up is in the log: %v", recs)
	}
}

// TestUnchangedFilesAreNotRead: the index vouches for files by their stamp, so a second
// snapshot reads only what changed and the store grows only by it.
func TestUnchangedFilesAreNotRead(t *testing.T) {
	ctx := context.Background()
	s, root := newStore(t, start, Options{})
	old := time.Now().Add(-time.Hour)
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		os.Chtimes(p, old, old)
		return nil
	})
	first, err := s.Snapshot(ctx, "")
	must(t, err)
	second, err := s.Snapshot(ctx, "")
	must(t, err)
	if second.ID != first.ID || second.Read != 0 || second.Added != 0 {
		t.Errorf("unchanged: id same %v, read %d files, added %d bytes; want same, 0, 0", second.ID == first.ID, second.Read, second.Added)
	}
	must(t, os.WriteFile(filepath.Join(root, "src/lib/util.go"), []byte("package lib // changed\n"), 0o644))
	third, err := s.Snapshot(ctx, "")
	must(t, err)
	if third.Read != 1 || third.ID == first.ID || third.Added == 0 {
		t.Errorf("one change: read %d files, added %d bytes; want 1 and some", third.Read, third.Added)
	}
	// Same size, same second: the inode or nanoseconds tell; a rewrite in place with the old
	// time forced back is caught because the index never vouches for a racy entry.
	must(t, os.WriteFile(filepath.Join(root, "src/lib/util.go"), []byte("package lib // CHANGED\n"), 0o644))
	fourth, err := s.Snapshot(ctx, "")
	must(t, err)
	if fourth.ID == third.ID {
		t.Error("a same-size rewrite was not seen")
	}
}

func TestHandEditIsAConflict(t *testing.T) {
	ctx := context.Background()
	s, root := newStore(t, start, Options{})
	before, _ := s.Snapshot(ctx, "")
	must(t, os.WriteFile(filepath.Join(root, "other.txt"), []byte("agent edit\n"), 0o644))
	agent, _ := s.Snapshot(ctx, "")
	must(t, os.WriteFile(filepath.Join(root, "other.txt"), []byte("hand edit\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(root, "notes.md"), []byte("my notes\n"), 0o644))
	res, err := s.Restore(ctx, before.ID, RestoreOptions{Expected: agent.ID})
	if !errors.Is(err, ErrConflict) {
		t.Fatalf("restore over a hand edit: err = %v, want ErrConflict", err)
	}
	var paths []string
	for _, c := range res.Conflicts {
		paths = append(paths, c.Path)
	}
	if strings.Join(paths, ",") != "notes.md,other.txt" {
		t.Errorf("conflicts = %v, want notes.md and other.txt", paths)
	}
	if got, _ := os.ReadFile(filepath.Join(root, "other.txt")); string(got) != "hand edit\n" {
		t.Errorf("a refused restore changed other.txt to %q", got)
	}
	_, err = s.Restore(ctx, before.ID, RestoreOptions{Expected: agent.ID, Force: true})
	must(t, err)
	assertTree(t, root, start)
}

func TestRestoreRefusesToWriteThroughASymlinkedFolder(t *testing.T) {
	ctx := context.Background()
	s, root := newStore(t, tree{"conf/app.ini": "a=1\n"}, Options{})
	snap, _ := s.Snapshot(ctx, "")
	outside := t.TempDir()
	must(t, os.RemoveAll(filepath.Join(root, "conf")))
	must(t, os.Symlink(outside, filepath.Join(root, "conf")))
	// The symlink is itself a change the restore undoes (it goes, the folder comes back), so
	// nothing is written into outside.
	_, err := s.Restore(ctx, snap.ID, RestoreOptions{})
	must(t, err)
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Errorf("the restore wrote %d file(s) outside the project", len(entries))
	}
	assertTree(t, root, tree{"conf/app.ini": "a=1\n"})
	if _, err := s.safePath("conf/../../x"); err == nil {
		t.Error("safePath accepted a path out of the project")
	}
}

func TestSessionsSnapshotOneProjectAtOnce(t *testing.T) {
	ctx := context.Background()
	_, root := newStore(t, start, Options{})
	home := t.TempDir()
	var wg sync.WaitGroup
	ids := make(chan string, 40)
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := Open(home, root, Options{})
			if err != nil {
				t.Error(err)
				return
			}
			for j := range 10 {
				os.WriteFile(filepath.Join(root, "src", "gen.go"), []byte(strings.Repeat("x", i*10+j)), 0o644)
				snap, err := s.Snapshot(ctx, "")
				if err != nil {
					t.Error(err)
					return
				}
				ids <- snap.ID
			}
		}()
	}
	wg.Wait()
	close(ids)
	s, _ := Open(home, root, Options{})
	for id := range ids {
		if _, err := s.Files(ctx, id); err != nil {
			t.Errorf("snapshot %s is damaged: %v", short(id), err)
		}
	}
	if recs, _ := s.List(ctx); len(recs) != 40 {
		t.Errorf("the log holds %d snapshots, want 40", len(recs))
	}
}

func TestPruneByAgeAndSize(t *testing.T) {
	ctx := context.Background()
	s, root := newStore(t, tree{"a.txt": "a\n"}, Options{})
	var ids []string
	for i := range 5 {
		must(t, os.WriteFile(filepath.Join(root, "a.txt"), bytes.Repeat([]byte{byte('a' + i)}, 20000+i), 0o644))
		snap, err := s.Snapshot(ctx, "")
		must(t, err)
		ids = append(ids, snap.ID)
	}
	res, err := s.Prune(ctx, Policy{MaxBytes: 1})
	must(t, err)
	if res.Snapshots != 4 || res.Objects == 0 {
		t.Errorf("prune to 1 byte: removed %d snapshots, %d objects; want 4 and some", res.Snapshots, res.Objects)
	}
	if _, err := s.Files(ctx, ids[0]); !errors.Is(err, ErrMissing) {
		t.Errorf("the oldest snapshot after pruning: err = %v, want ErrMissing", err)
	}
	if _, err := s.Files(ctx, ids[4]); err != nil {
		t.Errorf("the newest snapshot was pruned: %v", err)
	}
	if res, _ := s.Prune(ctx, Policy{MaxAge: time.Nanosecond}); res.Snapshots != 0 {
		t.Errorf("age pruning removed the newest snapshot")
	}
	// A little garbage (a diff's unlisted snapshot) is not worth rewriting the packs for.
	must(t, os.WriteFile(filepath.Join(root, "a.txt"), []byte("unlisted\n"), 0o644))
	if _, err := s.DiffNow(ctx, ids[4]); err != nil {
		t.Fatal(err)
	}
	packs, _ := filepath.Glob(filepath.Join(s.Dir(), "packs", "*.pack"))
	res, err = s.Prune(ctx, Policy{MaxBytes: 1 << 30})
	again, _ := filepath.Glob(filepath.Join(s.Dir(), "packs", "*.pack"))
	if err != nil || res.Objects != 0 || len(again) != len(packs) {
		t.Errorf("pruning a little garbage: removed %d objects, packs %d → %d, err %v; want nothing rewritten", res.Objects, len(packs), len(again), err)
	}
}

func FuzzDecodeTree(f *testing.F) {
	f.Add(encodeTree([]entry{{name: "a", kind: KindFile, mode: 0o644, hash: strings.Repeat("a", 64), size: 3}}))
	f.Add([]byte("s 644 - 9\tbig\x00"))
	f.Add([]byte("f 644 xyz 1\t../x\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		es, err := decodeTree(data)
		if err != nil {
			return
		}
		for _, e := range es {
			if e.name == ".." || strings.Contains(e.name, "/") {
				t.Fatalf("decoded a name that leaves the folder: %q", e.name)
			}
		}
		again, err := decodeTree(encodeTree(es))
		if err != nil || len(again) != len(es) {
			t.Fatalf("re-encoding lost entries: %v", err)
		}
	})
}

func FuzzReadIndex(f *testing.F) {
	f.Add([]byte(strings.Repeat("a", 64) + " 1 2 3 420\tpath\n"))
	f.Add([]byte("garbage"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s := &Store{dir: t.TempDir()}
		must(t, os.WriteFile(s.indexPath(), data, 0o600))
		for p, e := range s.readIndex() {
			if len(e.hash) != 64 {
				t.Fatalf("entry %q with hash %q", p, e.hash)
			}
		}
	})
}

// FuzzStoreFiles: damaged pack indexes and logs are errors or skipped lines, never a panic
// or an object read from outside its pack.
func FuzzStoreFiles(f *testing.F) {
	f.Add(bytes.Repeat([]byte{1}, idxRecord), []byte("1 "+strings.Repeat("a", 64)+" note\n"))
	f.Add([]byte("short"), []byte("garbage\n\n"))
	f.Fuzz(func(t *testing.T, idx, log []byte) {
		s := &Store{dir: t.TempDir()}
		os.MkdirAll(filepath.Join(s.dir, "packs"), 0o700)
		must(t, os.WriteFile(filepath.Join(s.dir, "packs", "p.idx"), idx, 0o600))
		must(t, os.WriteFile(filepath.Join(s.dir, "packs", "p.pack"), []byte("tiny"), 0o600))
		must(t, os.WriteFile(s.logPath(), log, 0o600))
		if recs, err := s.readLog(); err == nil {
			for _, r := range recs {
				if len(r.ID) != 64 {
					t.Fatalf("a record with id %q", r.ID)
				}
			}
		}
		o, err := s.loadObjects()
		if err != nil {
			return
		}
		defer o.close()
		s.obj = o
		for hash := range o.locs {
			if _, err := s.get("blob", hash); err == nil {
				t.Fatalf("object %s read from a 4-byte pack", hash)
			}
		}
	})
}
