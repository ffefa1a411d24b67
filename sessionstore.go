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
	"io"

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

// listStoredSessions is `pi sessions` when [session] names a store: that store's sessions of
// cwd. done is false for the JSONL files, which the caller lists.
func listStoredSessions(ctx context.Context, cwd string, stdout, stderr io.Writer) (done bool, code int) {
	home := piHomeDir()
	cfg, err := config.Load(home, cwd, false)
	if err != nil {
		return false, 0 // the files are listed; the run itself will say what is wrong with pi.toml
	}
	st, err := sessionStore(ctx, cfg, home)
	if err != nil || st == nil {
		if err != nil {
			fmt.Fprintln(stderr, "pi:", err)
			return true, 1
		}
		return false, 0
	}
	defer st.Close()
	infos, err := st.List(ctx, cwd)
	if err != nil {
		fmt.Fprintln(stderr, "pi: listing sessions:", err)
		return true, 1
	}
	session.WriteList(stdout, infos)
	return true, 0
}

// servedStore is the store pi serve lists and finds its sessions in, the one $PI_HOME/pi.toml's
// [session] names; shared is that store when it is a database, which every served session
// then writes through (nil for the JSONL files, which each session opens as a run does).
func servedStore(ctx context.Context, home string) (list, shared session.Store, err error) {
	cfg, err := config.Load(home, "", false)
	if err != nil {
		return nil, nil, err
	}
	st, err := sessionStore(ctx, cfg, home)
	if err != nil || st == nil {
		return session.Files{Home: home, SessionDir: cfg.SessionDir}, nil, err
	}
	return st, st, nil
}
