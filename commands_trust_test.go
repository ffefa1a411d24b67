package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"pi/lua"
)

func TestTrustCommands(t *testing.T) {
	dir, home := t.TempDir(), t.TempDir()
	t.Setenv("PI_HOME", home)
	for _, word := range []string{"trust", "untrust"} {
		var out, errOut bytes.Buffer
		if code := run(context.Background(), []string{word, dir}, strings.NewReader(""), &out, &errOut); code != 0 {
			t.Fatalf("pi %s: exit %d: %s", word, code, errOut.String())
		}
		if got, decided, _ := lua.TrustDecision(home, dir); !decided || got != (word == "trust") {
			t.Fatalf("after pi %s: trusted %v, decided %v; output %q", word, got, decided, out.String())
		}
	}
	var out, errOut bytes.Buffer
	if code := run(context.Background(), []string{"trust", filepath.Join(dir, "missing")}, strings.NewReader(""), &out, &errOut); code == 0 {
		t.Fatal("pi trust accepted a folder that does not exist")
	}
}
