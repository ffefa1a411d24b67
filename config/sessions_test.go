package config

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestSessionStore reads [session]: the JSONL files by default, the SQLite database at
// $PI_HOME/sessions.db or at path (relative to $PI_HOME), and a clear error for a store pi
// does not have.
func TestSessionStore(t *testing.T) {
	for _, tt := range []struct {
		name, toml string
		sqlite     bool
		path, err  string
	}{
		{name: "default", toml: ""},
		{name: "jsonl", toml: "[session]\nstore = \"jsonl\"\n"},
		{name: "sqlite", toml: "[session]\nstore = \"sqlite\"\n", sqlite: true, path: "sessions.db"},
		{name: "relative path", toml: "[session]\nstore = \"sqlite\"\npath = \"db/s.db\"\n", sqlite: true, path: "db/s.db"},
		{name: "absolute path", toml: "[session]\nstore = \"sqlite\"\npath = \"/var/pi.db\"\n", sqlite: true, path: "/var/pi.db"},
		{name: "unknown store", toml: "[session]\nstore = \"postgres\"\n", err: `session.store = "postgres"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			home, cwd := t.TempDir(), t.TempDir()
			writeFile(t, filepath.Join(home, "pi.toml"), tt.toml)
			c, err := Load(home, cwd, true)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want one naming %s", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			path, ok := c.Session.SQLite(home)
			want := tt.path
			if want != "" && !filepath.IsAbs(want) {
				want = filepath.Join(home, want)
			}
			if ok != tt.sqlite || path != want {
				t.Fatalf("SQLite() = %q, %v; want %q, %v", path, ok, want, tt.sqlite)
			}
		})
	}
}
