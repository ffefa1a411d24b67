// Package live is one live session and its one front door. Every input, whoever sends it,
// enters through Session.Send; every piece of work in flight is in the session's registry;
// every front end (the terminal UI, RPC, print and JSON modes, pi serve, pi eval) is an
// adapter that turns its I/O into calls of this package's exported methods and its events
// into output.
//
//	TUI keys ─┐                           ┌─ recorder: the session file (one subscription)
//	RPC cmd ──┤                           ├─ work: run, compaction, !cmd, branch summary
//	-p text ──┼─► Session.Send(Input) ────┼─► agent.Agent ─► provider, tools
//	scripts ──┤   script command → input  │      │
//	eval ─────┘   hooks → run, or queue   │      └─► events ─► front ends, Lua, recorder
//	                                      └─ settings: model, thinking, queues, retry
//
// The transcript has one writer at a time: the run, or, while none goes, the session itself
// (a compaction, a move in the session tree, a session switch, the user's shell commands),
// each holding its slot in the registry. Several sessions live side by side in one process
// (pi serve's, the Agent tools' children): they share nothing but the configuration and the
// provider clients.
//
// A session is built by New from Options, which say what it needs; never from a command
// line. This package imports no front end (tui, remote, server) and nothing of the root.
package live
