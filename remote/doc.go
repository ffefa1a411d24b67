// Package remote is `pi attach`: the terminal UI as a client of a session of pi serve. The
// screen is the local UI's (package tui) and so is its controller (package termui): this
// package implements termui.Session over the server's protocol. What the screen shows comes
// from the server's snapshots and progress events; what the user types and picks goes to the
// server as protocol commands, or as pi's RPC commands through pi_rpc where v1 has none. The
// served session's scripts' questions arrive as pi_events and are answered in the same
// dialogs as in the local UI. Ctrl+D (or Ctrl+C twice) detaches and leaves the run going.
//
// It reads the server's typed shapes (server's client API) and pi's (rpcwire), never maps. It
// imports server (its client), termui, tui, session, config (this machine's pi.toml, for
// the keys and the look), rpcwire, images and provider; nothing imports it but the root
// package.
package remote
