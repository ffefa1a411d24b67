//go:build unix

package tools

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// write and edit change a file's content and nothing else about it: not its mode, not its
// owner, not its other hard links; and they refuse a file whose mode allows no writing.
func TestReplaceKeepsFile(t *testing.T) {
	tests := []struct {
		name    string
		mode    os.FileMode
		owner   bool   // chown the file to another user first (needs root)
		link    bool   // give the file a second hard link first
		errText string // the call fails, leaving the file as it was
	}{
		{"mode", 0o640, false, false, ""},
		{"setuid and executable", 0o755 | os.ModeSetuid, false, false, ""},
		{"owner", 0o644, true, false, ""},
		{"hard link", 0o644, false, true, ""},
		{"owner and hard link", 0o600, true, true, ""},
		{"no write bit", 0o444, false, false, "cannot write f.txt: it is read-only (mode -r--r--r--); make it writable first"},
		{"no write bit, linked", 0o555, false, true, "it is read-only (mode -r-xr-xr-x)"},
	}
	calls := map[string]map[string]any{
		"write": {"path": "f.txt", "content": "new\n"},
		"edit":  {"path": "f.txt", "oldText": "old", "newText": "new"},
	}
	for _, tc := range tests {
		for tool, args := range calls {
			t.Run(tc.name+"/"+tool, func(t *testing.T) {
				if tc.owner && os.Geteuid() != 0 {
					t.Skip("changing a file's owner needs root")
				}
				env := testEnv(t)
				p, other := filepath.Join(env.Cwd, "f.txt"), filepath.Join(env.Cwd, "other.txt")
				prepareFile(t, p, tc.mode, tc.owner)
				if tc.link {
					if err := os.Link(p, other); err != nil {
						t.Fatal(err)
					}
				}
				before := statT(t, p)
				res := callTool(t, env, tool, args)
				want := "new\n"
				if tc.errText != "" {
					want = "old\n"
					if !res.IsError || !strings.Contains(resultText(res), tc.errText) {
						t.Fatalf("result %q, want an error containing %q", resultText(res), tc.errText)
					}
				} else if res.IsError {
					t.Fatalf("unexpected error %q", resultText(res))
				}
				checkReplaced(t, p, before, want)
				if tc.link {
					checkReplaced(t, other, before, want)
				}
				if entries, _ := os.ReadDir(env.Cwd); len(entries) != 1+btoi(tc.link) {
					t.Fatalf("left in the folder: %v", entries)
				}
			})
		}
	}
}

// checkReplaced fails unless p holds want and is the file before describes, as it was: the
// same inode, links, mode and owner.
func checkReplaced(t *testing.T, p string, before *syscall.Stat_t, want string) {
	t.Helper()
	after := statT(t, p)
	if got := readFileT(t, p); got != want || after.Ino != before.Ino && before.Nlink > 1 || after.Nlink != before.Nlink ||
		after.Mode != before.Mode || after.Uid != before.Uid || after.Gid != before.Gid {
		t.Fatalf("%s: %q, inode %d, %d links, mode %o, owner %d:%d; want %q, inode %d, %d links, mode %o, owner %d:%d",
			filepath.Base(p), got, after.Ino, after.Nlink, after.Mode, after.Uid, after.Gid,
			want, before.Ino, before.Nlink, before.Mode, before.Uid, before.Gid)
	}
}

// prepareFile makes p holding "old\n" with mode and, when owner, another user's uid and gid.
func prepareFile(t *testing.T, p string, mode os.FileMode, owner bool) *syscall.Stat_t {
	t.Helper()
	if err := os.WriteFile(p, []byte("old\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if owner {
		if err := os.Chown(p, 4242, 4343); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(p, mode); err != nil { // after the chown, which clears setuid
		t.Fatal(err)
	}
	return statT(t, p)
}

func statT(t *testing.T, p string) *syscall.Stat_t {
	t.Helper()
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Sys().(*syscall.Stat_t)
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
