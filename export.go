package main

// export.go is /export and RPC export_html: where the page goes and its title; the page
// itself is session.WriteHTML.

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"pi/provider"
	"pi/session"
)

// exportHTML writes the conversation as one self-contained HTML page (no scripts, no outside
// resources) and returns its path. An empty path means pi-session-<session file>.html in the
// working directory.
func exportHTML(sess *session.Session, msgs []provider.Message, model, cwd, path string) (string, error) {
	if path == "" {
		base := strings.TrimSuffix(filepath.Base(sess.Path()), ".jsonl")
		if sess.Path() == "" {
			base = sess.ID()
		}
		path = filepath.Join(cwd, "pi-session-"+base+".html")
	}
	path, err := filepath.Abs(path)
	if err != nil {
		return "", fmt.Errorf("export to %q: %w", path, err)
	}
	title := "pi session " + sess.ID()
	if name := sess.Name(); name != "" {
		title = name
	}
	var buf strings.Builder
	if err := session.WriteHTML(&buf, title, model, msgs); err != nil {
		return "", fmt.Errorf("export to %s: %w", path, err)
	}
	if err := os.WriteFile(path, []byte(buf.String()), 0o644); err != nil {
		return "", fmt.Errorf("export to %s: %w", path, err)
	}
	return path, nil
}
