// Package termui is the terminal UI's controller, written once for the local session and for
// one attached to pi serve: the slash commands and their dialogs and notices, the keys that
// run them (Shift+Tab, Ctrl+P, Ctrl+L, the tree key), the !cmd box, the /settings rows, the
// completion list with the scripts' commands, and the files a typed line's @words attach
// (read here once for both sides, as the command line reads its @file arguments). It drives
// a *tui.App and a Session; what differs between local and attached goes through the Session
// (its Notes, its answers), never through a second code path here.
//
// It imports tui, tui/settingsmenu, config (the thinking levels), rpcwire (the session's
// state), session (tree rows and entry shapes, as plain values), provider and tools (the
// @file attachments). It must not import the root package, the Lua runtime, the server or
// session files: a Session hands it plain values.
package termui
