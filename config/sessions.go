package config

import (
	"fmt"
	"path/filepath"
)

// SessionConfig is the [session] table: where sessions are kept.
type SessionConfig struct {
	Store string `toml:"store"` // "jsonl" (the default: pi's files) or "sqlite"
	Path  string `toml:"path"`  // the sqlite database; default $PI_HOME/sessions.db
}

// Session stores ([session] store).
const (
	SessionStoreJSONL  = "jsonl"
	SessionStoreSQLite = "sqlite"
)

func (c *Config) mergeSession(f *SessionConfig) {
	if f.Store != "" {
		c.Session.Store = f.Store
	}
	if f.Path != "" {
		c.Session.Path = f.Path
	}
}

func (s SessionConfig) validate() error {
	switch s.Store {
	case "", SessionStoreJSONL, SessionStoreSQLite:
		return nil
	}
	return fmt.Errorf("pi.toml: session.store = %q: want %q or %q", s.Store, SessionStoreJSONL, SessionStoreSQLite)
}

// SQLite reports whether sessions go to the SQLite store, and the database's path (relative
// paths are taken from piHome).
func (s SessionConfig) SQLite(piHome string) (path string, ok bool) {
	if s.Store != SessionStoreSQLite {
		return "", false
	}
	switch {
	case s.Path == "":
		return filepath.Join(piHome, "sessions.db"), true
	case filepath.IsAbs(s.Path):
		return s.Path, true
	}
	return filepath.Join(piHome, s.Path), true
}
