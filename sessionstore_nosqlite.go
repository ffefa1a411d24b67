//go:build !sqlite

package main

import (
	"context"
	"errors"
	"fmt"

	"pi/config"
	"pi/session"
)

// errNoSQLite is what a binary built without -tags sqlite says when [session] asks for it.
var errNoSQLite = errors.New(`[session] store = "sqlite" needs a pi built with the SQLite store: ` +
	`go build -tags sqlite (see docs/sessions.md); without it pi keeps the JSONL files`)

func sqliteCommand(_ context.Context, _ *config.Config, _ string, c invocation) int {
	fmt.Fprintf(c.stderr, "pi sessions %s: %v\n", c.args[0], errNoSQLite)
	return 1
}

// sessionStore is the store [session] names for session.Choice.Store: nil for the JSONL
// files, an error for sqlite in a binary built without it.
func sessionStore(_ context.Context, cfg *config.Config, home string) (session.Store, error) {
	if _, ok := cfg.Session.SQLite(home); ok {
		return nil, errNoSQLite
	}
	return nil, nil
}
