package packages

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func write(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func gitIn(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v %s", args, err, out)
	}
}

// makeRepo is a package in a git repository: v1.2 is tagged, and a later commit changes it.
func makeRepo(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed: the package install tests need it")
	}
	repo := filepath.Join(t.TempDir(), "hello-pkg")
	write(t, repo, map[string]string{
		"package.toml":         "name = \"hello\"\nversion = \"1.2.0\"\ndescription = \"says hello\"\n",
		"init.lua":             `pi.register_command{name = "hello", description = "v1.2", run = function() end}`,
		"skills/wave/SKILL.md": "---\nname: wave\ndescription: Wave at the user.\n---\nWave.\n",
		"prompts/greet.md":     "---\ndescription: greet someone\n---\nSay hello to $1.\n",
		".git-hooks-would-run": "",
		"lua/extra.lua":        `pi.register_command{name = "extra", run = function() end}`,
	})
	gitIn(t, repo, "init", "-q")
	gitIn(t, repo, "add", ".")
	gitIn(t, repo, "commit", "-qm", "v1.2")
	gitIn(t, repo, "tag", "v1.2")
	write(t, repo, map[string]string{"package.toml": "name = \"hello\"\nversion = \"1.3.0\"\n"})
	gitIn(t, repo, "commit", "-qam", "v1.3")
	return repo
}

func TestInstallPinnedUpdateRemove(t *testing.T) {
	repo := makeRepo(t)
	root := filepath.Join(t.TempDir(), "packages")
	ctx := context.Background()
	cases := []struct {
		spec, version, ref string
	}{
		{"file://" + repo + "@v1.2", "1.2.0", "v1.2"}, // a git URL, pinned
		{"file://" + repo, "1.3.0", ""},               // the default branch replaces it
		{repo, "1.3.0", ""},                           // a local folder: copied
	}
	for _, tc := range cases {
		p, err := Install(ctx, root, tc.spec)
		if err != nil {
			t.Fatalf("%s: %v", tc.spec, err)
		}
		if p.Name != "hello" || p.Version != tc.version || p.Ref != tc.ref || p.Dir != filepath.Join(root, "hello") {
			t.Fatalf("%s: %+v", tc.spec, p)
		}
		if _, err := os.Stat(filepath.Join(p.Dir, "skills", "wave", "SKILL.md")); err != nil {
			t.Fatalf("%s: the skill is missing: %v", tc.spec, err)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "hello", ".git")); err == nil {
		t.Fatal("a folder install copied .git")
	}
	if _, err := Install(ctx, root, "file://"+repo+"@v1.2"); err != nil {
		t.Fatal(err)
	}
	lines, err := Update(ctx, root, nil)
	if err != nil || len(lines) != 1 || !strings.Contains(lines[0], "pinned to v1.2") {
		t.Fatalf("update of a pinned package: %q %v", lines, err)
	}
	if _, err := Install(ctx, root, repo); err != nil {
		t.Fatal(err)
	}
	write(t, repo, map[string]string{"package.toml": "name = \"hello\"\nversion = \"1.4.0\"\n"})
	if lines, err := Update(ctx, root, []string{"hello"}); err != nil || read(filepath.Join(root, "hello")).Version != "1.4.0" {
		t.Fatalf("update: %q %v", lines, err)
	}
	if err := Remove(root, "hello"); err != nil {
		t.Fatal(err)
	}
	if pkgs, _ := List(root); len(pkgs) != 0 {
		t.Fatalf("after remove: %+v", pkgs)
	}
	if err := Remove(root, "hello"); err == nil {
		t.Fatal("removing a missing package succeeded")
	}
}

func TestInstallRefusals(t *testing.T) {
	root := t.TempDir()
	ctx := context.Background()
	if _, err := Install(ctx, root, filepath.Join(root, "missing")); err == nil || !strings.Contains(err.Error(), "neither a folder") {
		t.Fatalf("missing folder: %v", err)
	}
	bad := t.TempDir()
	write(t, bad, map[string]string{"package.toml": "name = \"../escape\"\n"})
	if _, err := Install(ctx, root, bad); err == nil || !strings.Contains(err.Error(), "not a usable package name") {
		t.Fatalf("bad name: %v", err)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(root), "escape")); err == nil {
		t.Fatal("a package name escaped the packages folder")
	}
}

func TestParseSource(t *testing.T) {
	cases := []struct{ in, source, ref string }{
		{"https://github.com/a/b@v1.2", "https://github.com/a/b", "v1.2"},
		{"https://github.com/a/b", "https://github.com/a/b", ""},
		{"git@github.com:a/b.git", "git@github.com:a/b.git", ""},
		{"git@github.com:a/b.git@main", "git@github.com:a/b.git", "main"},
		{"./pkg@", "./pkg@", ""},
		{"/tmp/x@y/pkg", "/tmp/x@y/pkg", ""},
	}
	for _, tc := range cases {
		if s, r := ParseSource(tc.in); s != tc.source || r != tc.ref {
			t.Errorf("%q: %q %q", tc.in, s, r)
		}
	}
}

func FuzzParseSource(f *testing.F) {
	f.Add("https://h/a@v1")
	f.Add("git@h:a/b@x")
	f.Fuzz(func(t *testing.T, s string) {
		src, ref := ParseSource(s)
		if ref == "" && src != s || ref != "" && src+"@"+ref != s || strings.ContainsAny(ref, "/:") {
			t.Fatalf("%q → %q %q", s, src, ref)
		}
	})
}

// TestCommandsSayWhenThereAreNoPackages: `pi list` and `pi update` with nothing installed say
// so (an empty answer reads as a command that did not run); updating a name that is not
// installed is an error naming it.
func TestCommandsSayWhenThereAreNoPackages(t *testing.T) {
	cases := []struct {
		args           []string
		code           int
		stdout, stderr string
	}{
		{[]string{"list"}, 0, "no packages installed (user: ", ""},
		{[]string{"update"}, 0, "nothing to update", ""},
		{[]string{"update", "-l"}, 0, "nothing to update", ""},
		{[]string{"update", "ghost"}, 1, "", "update ghost: no such package"},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			var out, errOut strings.Builder
			code := Main(context.Background(), c.args, t.TempDir(), t.TempDir(), &out, &errOut)
			if code != c.code || !strings.Contains(out.String(), c.stdout) || !strings.Contains(errOut.String(), c.stderr) {
				t.Fatalf("exit %d, stdout %q, stderr %q; want %d, %q, %q", code, out.String(), errOut.String(), c.code, c.stdout, c.stderr)
			}
			if out.String()+errOut.String() == "" {
				t.Fatal("printed nothing")
			}
		})
	}
}
