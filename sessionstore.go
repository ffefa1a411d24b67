package main

// sessionstore.go: `pi sessions search|import-jsonl|export-jsonl`, and the store [session]
// chooses. The SQLite store is linked only into a binary built with -tags sqlite
// (sessionstore_sqlite.go): its driver's package init costs every start-up, also the
// runs that keep the JSONL files (docs/sessions.md has the figures).

import (
	"context"
	"errors"
	"flag"
	"fmt"

	"pi/config"
	"pi/session"
)

// runSessionStore is `pi sessions <word> args...` for session.StoreCommands, with [session]
// and session_dir read from $PI_HOME/pi.toml.
func runSessionStore(ctx context.Context, c invocation) int {
	home := piHomeDir()
	cfg, err := config.Load(home, "", false)
	if err != nil {
		fmt.Fprintln(c.stderr, "pi:", err)
		return 1
	}
	if _, sqlite := cfg.Session.SQLite(home); sqlite || c.args[0] != "search" {
		return sqliteCommand(ctx, cfg, home, c)
	}
	st := session.Files{Home: home, SessionDir: cfg.SessionDir}
	err = session.SearchCommand(ctx, st, c.args[1:], c.stdout)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(c.stderr, "pi sessions search:", err)
		return 1
	}
	return 0
}
