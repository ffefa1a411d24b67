//go:build !unix

package tui

import (
	"context"
	"errors"
)

// Run is not available here: the interactive mode needs a Unix terminal (raw mode through
// /dev/tty, SIGWINCH, job control). The print, JSON and RPC modes work everywhere.
func Run(ctx context.Context, cb Callbacks, opts Options, start func(*App)) error {
	return errors.New("the interactive terminal UI needs a Unix terminal; use -p or --mode json")
}

// ErrSignal reports whether err says that a signal stopped the interactive mode.
func ErrSignal(err error) bool { return false }
