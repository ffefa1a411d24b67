package main

// export.go is pi --export SESSION [file]; /export and RPC export_html call export.File.

import (
	"context"
	"fmt"
	"io"

	"pi/export"
)

// runExport is pi --export SESSION [file]: SESSION is a file or the start of a session id.
func runExport(ctx context.Context, o *cliOptions, stdout, stderr io.Writer) int {
	path, err := export.SessionFile(ctx, o.exportRef, piHomeDir(), append(o.messages, "")[0])
	if err != nil {
		fmt.Fprintln(stderr, "pi: --export:", err)
		return 1
	}
	fmt.Fprintln(stdout, path)
	return 0
}
