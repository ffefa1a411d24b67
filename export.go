package main

// export.go is /export, RPC export_html and pi --export SESSION [file]: the page itself is
// package export's.

import (
	"context"
	"fmt"
	"io"
	"os"

	"pi/export"
	"pi/session"
)

// exportHTML writes the session as one self-contained HTML page and returns its path. An
// empty path means pi-session-<session file>.html in the working directory.
func exportHTML(sess *session.Session, model, cwd, path string) (string, error) {
	return export.File(sess, export.Options{Model: model}, cwd, path)
}

// runExport is pi --export SESSION [file]: SESSION is a file or the start of a session id.
func runExport(ctx context.Context, o *cliOptions, stdout, stderr io.Writer) int {
	cwd, err := os.Getwd()
	path, out := "", ""
	if err == nil {
		path, err = session.Resolve(o.exportRef, session.Dir(piHomeDir(), cwd), session.SessionsRoot(piHomeDir()))
	}
	if err == nil {
		if len(o.messages) > 0 {
			out = o.messages[0]
		}
		out, err = export.SessionFile(ctx, path, cwd, out)
	}
	if err != nil {
		fmt.Fprintln(stderr, "pi: --export:", err)
		return 1
	}
	fmt.Fprintln(stdout, out)
	return 0
}
