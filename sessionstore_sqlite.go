//go:build sqlite

package main

import (
	"context"

	"pi/config"
	"pi/session"
	"pi/session/sqlitestore"
)

// sqliteCommand runs a session.StoreCommands word with the SQLite store linked in.
func sqliteCommand(ctx context.Context, cfg *config.Config, home string, c invocation) int {
	db, _ := cfg.Session.SQLite(home)
	env := sqlitestore.CommandEnv{Home: home, SessionDir: cfg.SessionDir, DB: db}
	return sqlitestore.Command(ctx, env, c.args, c.stdout, c.stderr)
}

// sessionStore is the store [session] names for session.Choice.Store: nil for the JSONL
// files, else the open database (the caller closes it when the run ends).
func sessionStore(ctx context.Context, cfg *config.Config, home string) (session.Store, error) {
	db, ok := cfg.Session.SQLite(home)
	if !ok {
		return nil, nil
	}
	return sqlitestore.Open(ctx, db)
}
