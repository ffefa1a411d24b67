// Package remote is `pi attach`: the terminal UI as a client of a session of pi serve. The
// screen is the local UI's (package tui); what it shows comes from the server's snapshots and
// progress events, and what the user types goes to the server as protocol commands, or as pi's
// RPC commands through pi_rpc where v1 has none (the local UI's slash commands and keys). The
// served session's scripts' questions arrive as pi_events and are answered in the same dialogs
// as in the local UI. Ctrl+D (or Ctrl+C twice) detaches and leaves the run going.
//
// It imports server (its client), tui, tui/settingsmenu, session, config (this machine's
// pi.toml, for the keys and the look) and provider; nothing imports it but the root package.
package remote
