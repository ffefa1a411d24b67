package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"pi/session"
)

func TestUniquePrefixes(t *testing.T) {
	tests := []struct {
		ids, want []string
	}{
		{[]string{"0194a3b2-aaaa", "0194a3b2-aaab", "0f00"}, []string{"0194a3b2-aaaa", "0194a3b2-aaab", "0f00"}},
		{[]string{"0194a3b2c5d6-11", "0194a3b2c5e7-22"}, []string{"0194a3b2c5d", "0194a3b2c5e"}},
		{[]string{"abcdefghijk", "zzzzzzzzzzz"}, []string{"abcdefgh", "zzzzzzzz"}},
		{[]string{"samesame-1"}, []string{"samesame"}},
	}
	for _, tt := range tests {
		if got := session.UniquePrefixes(tt.ids, 8); !slices.Equal(got, tt.want) {
			t.Errorf("session.UniquePrefixes(%q) = %q, want %q", tt.ids, got, tt.want)
		}
	}
}

// TestSessionsOfTheTypeScriptPi: pi sessions --all (and -r) list the TypeScript pi's
// sessions of this directory beside ours, and --session continues one by its id prefix.
func TestSessionsOfTheTypeScriptPi(t *testing.T) {
	bin := buildPi(t)
	dir, agent := t.TempDir(), t.TempDir()
	cwd, _ := filepath.EvalSymlinks(dir)
	theirs := filepath.Join(session.Dir(agent, cwd), "2026-05-07T10-11-12-345Z_019e0262-3c49-7b41-9c3e-2f1a8b6d4e10.jsonl")
	os.MkdirAll(filepath.Dir(theirs), 0o755)
	data, _ := os.ReadFile(filepath.Join("testdata", "sessions", "pi-0.73.jsonl"))
	os.WriteFile(theirs, data, 0o644)
	env := append(os.Environ(), "PI_HOME="+filepath.Join(dir, ".pihome"), "PI_CODING_AGENT_DIR="+agent)
	runWith := func(args ...string) string {
		cmd := exec.Command(bin, args...)
		cmd.Dir, cmd.Env = dir, env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("pi %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	if out := runWith("sessions"); strings.Contains(out, "019e0262") {
		t.Fatalf("pi sessions lists pi's session without --all:\n%s", out)
	}
	if out := runWith("sessions", "--all"); !strings.Contains(out, "019e0262") {
		t.Fatalf("pi sessions --all does not list pi's session:\n%s", out)
	}
	hello, _ := filepath.Abs(filepath.Join("testdata", "faux", "hello.json"))
	runWith("--session", "019e0262", "--faux-script", hello, "-p", "go on")
	if after, _ := os.ReadFile(theirs); !bytes.Contains(after, []byte("go on")) {
		t.Fatal("--session with the id prefix of pi's session did not continue it")
	}
}
