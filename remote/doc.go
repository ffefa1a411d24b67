// Package remote is `pi attach`: the terminal UI as a client of a session of pi serve. The
// screen is the local UI's (package tui); what it shows comes from the server's snapshots and
// progress events, and what the user types goes to the server as protocol commands. Ctrl+D
// (or Ctrl+C twice) detaches and leaves the run going.
//
// It imports server (its client), tui and provider; nothing imports it but the root package.
package remote
