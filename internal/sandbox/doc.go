// Package sandbox owns pi's OS sandbox: the [sandbox] settings and their checks, finding out
// whether the kernel can confine a process (Landlock on Linux), and confining the commands
// pi's tools and scripts start so that they may write only in the project, the temp folder
// and the folders the user allowed, and optionally make no TCP connections.
//
// The sandbox applies to child processes only, never to pi itself. Go has no hook between
// fork and exec, so a command to confine is rewritten (Confine) to start pi's own binary in a
// small helper mode instead: the helper (RunHelper, entered from main before anything else)
// restricts itself with Landlock and then executes the real command in its place, which
// inherits the restriction along with everything it starts.
//
// It imports nothing of this module and has no package-level mutable state. It knows nothing
// of tools, Lua or sessions: callers hand Confine to internal/proc, which calls it on each
// command before starting it.
package sandbox
