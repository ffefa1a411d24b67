package gitsafe

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestFilterOverrides(t *testing.T) {
	empty := func(name string) [][2]string {
		f := "filter." + name
		return [][2]string{{f + ".clean", ""}, {f + ".smudge", ""}, {f + ".process", ""}, {f + ".required", "false"}}
	}
	cases := []struct {
		name, listing string
		want          [][2]string
	}{
		{"none", "", nil},
		{"a local driver", "local\x00filter.evil.smudge\ntouch x\x00local\x00filter.evil.clean\ncat\x00", empty("evil")},
		{"a global driver stays", "global\x00filter.lfs.process\ngit-lfs filter-process\x00", nil},
		{"worktree scope", "worktree\x00filter.w.process\nx\x00", empty("w")},
		{"dots, spaces and = in the name", "local\x00filter.a=b c.d.smudge\nx\x00", empty("a=b c.d")},
		{"a key without a value", "local\x00filter.v.required\x00", empty("v")},
		{"no name", "local\x00filter.clean\nx\x00", nil},
		{"truncated", "local", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := filterOverrides(tc.listing); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func FuzzFilterOverrides(f *testing.F) {
	f.Add("local\x00filter.evil.smudge\ntouch x\x00")
	f.Add("local\x00filter..\x00\x00")
	f.Fuzz(func(t *testing.T, listing string) {
		for _, kv := range filterOverrides(listing) {
			if !strings.HasPrefix(kv[0], "filter.") || (kv[1] != "" && kv[1] != "false") {
				t.Fatalf("override %q", kv)
			}
		}
	})
}

// TestRepositoryRunsNothing: a repository whose .git holds hooks and config naming programs
// (every one writes a marker) goes through what pi does with it (a worktree, a change
// staged and committed there, the worktree removed) and no marker appears; git itself, with
// the same repository, runs them (the rows show the overrides, not a git that runs nothing).
func TestRepositoryRunsNothing(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	base := t.TempDir()
	repo, marks := filepath.Join(base, "repo"), filepath.Join(base, "marks")
	os.Mkdir(marks, 0o755)
	plain := func(dir string, args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "core.hooksPath=/dev/null", "-c", "user.name=t", "-c", "user.email=t@t"}, args...)...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v: %s", args, err, out)
		}
	}
	os.Mkdir(repo, 0o755)
	plain(repo, "init", "-q")
	os.WriteFile(filepath.Join(repo, ".gitattributes"), []byte("*.txt filter=a=b\n"), 0o644)
	os.WriteFile(filepath.Join(repo, "a.txt"), []byte("one\n"), 0o644)
	plain(repo, "add", ".")
	plain(repo, "commit", "-qm", "first")
	mark := func(name string) string { return "touch " + filepath.Join(marks, name) }
	for _, hook := range []string{"post-checkout", "pre-commit", "commit-msg", "post-commit", "reference-transaction", "post-index-change"} {
		os.WriteFile(filepath.Join(repo, ".git", "hooks", hook), []byte("#!/bin/sh\n"+mark(hook)+"\n"), 0o755)
	}
	for _, kv := range [][2]string{{"core.fsmonitor", mark("fsmonitor") + "; false #"}, {"filter.a=b.smudge", mark("smudge") + "; cat"},
		{"filter.a=b.clean", mark("clean") + "; cat"}, {"filter.a=b.required", "true"}, {"commit.gpgSign", "true"},
		{"gpg.program", mark("gpg") + "; false #"}, {"user.name", "t"}, {"user.email", "t@t"}} {
		plain(repo, "config", kv[0], kv[1])
	}
	ctx := context.Background()
	wt := filepath.Join(base, "wt")
	steps := [][]string{{"worktree", "add", "-b", "b1", wt, "HEAD"}}
	for _, args := range steps {
		if _, err := Run(ctx, repo, nil, args...); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(wt, "a.txt"), []byte("two\n"), 0o644)
	for _, args := range [][]string{{"add", "-A"}, {"diff", "--cached", "--name-only", "--no-ext-diff", "--no-textconv"},
		{"commit", "-q", "-m", "change"}} {
		if _, err := Run(ctx, wt, nil, args...); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := Run(ctx, repo, nil, "worktree", "remove", "--force", wt); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadDir(marks); len(got) != 0 {
		t.Fatalf("git ran the repository's programs through gitsafe: %v", got)
	}
	cmd := exec.Command("git", "worktree", "add", "-q", "-b", "b2", filepath.Join(base, "wt2"), "HEAD")
	cmd.Dir = repo
	cmd.Run()
	for _, want := range []string{"post-checkout", "smudge"} {
		if _, err := os.Stat(filepath.Join(marks, want)); err != nil {
			t.Errorf("plain git did not run %s, so the test shows nothing", want)
		}
	}
}

// BenchmarkRun measures what the overrides cost a command: `git rev-parse` run plainly and
// through Run, which first lists the repository's filter drivers (one more git process).
func BenchmarkRun(b *testing.B) {
	if _, err := exec.LookPath("git"); err != nil {
		b.Skip("git is not installed")
	}
	repo := b.TempDir()
	if out, err := exec.Command("git", "init", "-q", repo).CombinedOutput(); err != nil {
		b.Fatalf("%v: %s", err, out)
	}
	ctx := context.Background()
	b.Run("plain", func(b *testing.B) {
		for b.Loop() {
			cmd := exec.Command("git", "rev-parse", "--show-toplevel")
			cmd.Dir = repo
			if err := cmd.Run(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("gitsafe", func(b *testing.B) {
		for b.Loop() {
			if _, err := Run(ctx, repo, nil, "rev-parse", "--show-toplevel"); err != nil {
				b.Fatal(err)
			}
		}
	})
}
