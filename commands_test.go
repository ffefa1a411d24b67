package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestHelpListsEveryCommand: -h's Usage section is the command table, so every word of it is
// documented there, and no placeholder is left.
func TestHelpListsEveryCommand(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run(context.Background(), []string{"-h"}, strings.NewReader(""), &out, &errOut); code != 0 {
		t.Fatalf("pi -h: exit %d, %s", code, errOut.String())
	}
	help := out.String()
	if strings.Contains(help, "{{") {
		t.Fatalf("-h kept a placeholder:\n%s", help)
	}
	for _, c := range commands() {
		for _, w := range c.words {
			if w != "uninstall" && !strings.Contains(help, "pi "+w) && !strings.Contains(help, "|"+w) {
				t.Errorf("-h does not mention pi %s", w)
			}
		}
	}
}

// TestCommandWords: a word is a command only where the table says it can stand; elsewhere it
// is a prompt.
func TestCommandWords(t *testing.T) {
	for _, tc := range []struct {
		opts cliOptions
		want string // the command's first word, "" for none
	}{
		{cliOptions{messages: []string{"sessions"}}, "sessions"},
		{cliOptions{messages: []string{"sessions", "now"}}, ""},
		{cliOptions{messages: []string{"sessions"}, print: true}, ""},
		{cliOptions{messages: []string{"trust", "/tmp"}}, "trust"},
		{cliOptions{messages: []string{"untrust"}}, "trust"},
		{cliOptions{messages: []string{"trust", "a", "b"}}, ""},
		{cliOptions{messages: []string{"version"}, mode: "json"}, ""},
		{cliOptions{messages: []string{"serve"}}, ""}, // reads its own arguments, before the flags
	} {
		c, ok := wordCommand(&tc.opts)
		got := ""
		if ok {
			got = c.words[0]
		}
		if got != tc.want {
			t.Errorf("%+v: command %q, want %q", tc.opts, got, tc.want)
		}
	}
	for _, args := range [][]string{{"serve", "--status"}, {"eval", "-h"}, {"install", "x"}, {"attach"}} {
		if _, ok := ownArgsCommand(args); !ok {
			t.Errorf("%q: not a command with its own arguments", args)
		}
	}
	if _, ok := ownArgsCommand([]string{"sessions"}); ok {
		t.Error("sessions read its own arguments; it comes after pi's flags")
	}
}

// TestEveryCommandAnswersHelp: `pi <word> -h` prints that command's usage and exits 0, for the
// commands that read their own arguments too (pi serve -h printed "flag: help requested",
// pi attach -h dialled the server, pi install -h took -h for a package).
func TestEveryCommandAnswersHelp(t *testing.T) {
	t.Setenv("PI_HOME", t.TempDir())
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	for _, c := range commands() {
		for _, w := range c.words {
			t.Run(w, func(t *testing.T) {
				var out, errOut bytes.Buffer
				code := run(context.Background(), []string{w, "-h"}, strings.NewReader(""), &out, &errOut)
				if code != 0 || errOut.Len() > 0 || !strings.Contains(out.String(), "Usage:") || !strings.Contains(out.String(), "pi ") {
					t.Fatalf("pi %s -h: exit %d\nstdout %s\nstderr %s", w, code, out.String(), errOut.String())
				}
			})
		}
	}
}
