// Package server is `pi serve`: live sessions behind a unix socket, shared by any number of
// clients that attach, detach and re-attach while the sessions' runs go on. It speaks
// upstream pi's session-server protocol version 1 (4-byte big-endian length frames of strict
// CBOR; hello, requests and responses, server and session snapshots with revisions, progress
// events) exactly as the published @earendil-works/pi-client 0.84.4 does, so that client works
// against it unchanged. Client is the Go side of the same protocol, for pi's own clients.
//
//	client ─► conn (reader) ─► command ─► live session ─► Runtime (a harness) ─► agent
//	client ◄─ conn (writer) ◄─ bounded queue ◄─ progress / snapshots ◄─ agent events
//
// A live session is one Runtime, which the root package provides (a harness; all input goes
// through its front door). The server owns the sockets, the connections, the live-session
// table and the translation of agent events into the protocol's transcript items; it reads
// the session store (Options.Store: the JSONL files, or a database) only to list, find and
// describe sessions, through package session's Store. A session's scripts'
// questions go to the clients that asked for pi's extensions (ui.go, with package extui).
//
// It must not import the root package; the codec is pi/internal/cbor.
package server
