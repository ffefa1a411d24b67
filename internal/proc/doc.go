// Package proc owns starting child processes: each in a process group of its own, so that a
// cancel or a timeout kills the whole group (grandchildren included) with SIGKILL, and, when
// the caller hands it a Confiner, confined (a sandbox); a Wait that a grandchild holding the
// pipes open cannot hang; and, for shell commands, the bounded capture of their merged output
// (the tail in memory; past the limits, a spill file of the head and the tail, held to a cap,
// in a SpillDir the caller owns) with paced partial updates. Every package of pi that runs a
// child process in its own group does it through here.
//
// It imports nothing of this module and has no package-level mutable state. It knows nothing
// of tools, Lua, sessions or the terminal: how output is shown (line limits, notices) is the
// caller's business; proc only reports what was printed and how the process ended.
package proc
