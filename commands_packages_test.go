package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A package installed from a git repository the test makes loads its script, skill and
// prompt; pi remove takes it away again.
func TestBinaryPackageInstallLoadsAndRemoves(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed: the package tests need it")
	}
	bin := buildPi(t)
	dir := t.TempDir()
	repo := filepath.Join(t.TempDir(), "hello-pkg")
	for name, content := range map[string]string{
		"package.toml":         "name = \"hello\"\nversion = \"1.0.0\"\n",
		"init.lua":             `pi.register_command{name = "hello", description = "from the package", run = function() end}`,
		"skills/wave/SKILL.md": "---\nname: wave\ndescription: Wave at the user.\n---\nWave.\n",
		"prompts/greet.md":     "---\ndescription: greet someone\n---\nSay hello to $1.\n",
	} {
		os.MkdirAll(filepath.Dir(filepath.Join(repo, name)), 0o755)
		os.WriteFile(filepath.Join(repo, name), []byte(content), 0o644)
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "."}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "v1"}, {"tag", "v1"}} {
		if out, err := exec.Command("git", append([]string{"-C", repo}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	if r := runPi(t, bin, dir, "install", "file://"+repo+"@v1"); r.code != 0 || !strings.Contains(r.stdout, "installed hello 1.0.0") {
		t.Fatalf("install: %d %s %s", r.code, r.stdout, r.stderr)
	}
	commands := func() string {
		script, _ := filepath.Abs("testdata/faux/lua_tools.json")
		cmd := exec.Command(bin, "--faux-script", script, "--mode", "rpc", "--no-session")
		cmd.Dir, cmd.Env = dir, append(os.Environ(), "PI_HOME="+filepath.Join(dir, ".pihome"), "HOME="+dir)
		cmd.Stdin = strings.NewReader(`{"type":"get_commands","id":"1"}` + "\n")
		var out bytes.Buffer
		cmd.Stdout = &out
		if err := cmd.Run(); err != nil {
			t.Fatalf("rpc: %v", err)
		}
		return out.String()
	}
	got := commands()
	for _, want := range []string{`"name":"hello"`, `"name":"skill:wave"`, `"name":"greet"`} {
		if !strings.Contains(got, want) {
			t.Errorf("get_commands lacks %s: %s", want, got)
		}
	}
	if r := runPi(t, bin, dir, "list"); !strings.Contains(r.stdout, "hello") || !strings.Contains(r.stdout, "@v1") {
		t.Fatalf("list: %s %s", r.stdout, r.stderr)
	}
	if r := runPi(t, bin, dir, "remove", "hello"); r.code != 0 {
		t.Fatalf("remove: %s", r.stderr)
	}
	if got := commands(); strings.Contains(got, `"name":"hello"`) || strings.Contains(got, "skill:wave") {
		t.Fatalf("after remove: %s", got)
	}
}
