// Package lua owns pi's scripting runtime: one gopher-lua state, the `pi` module (version 1)
// that scripts program against, the dispatch of pi's extension events to Lua handlers, Lua tools
// and slash commands, the load order of scripts (bundled, $PI_HOME/init.lua, the project's
// .pi/init.lua), project trust ($PI_HOME/trust.json), and the bundled scripts themselves
// (skills and prompt templates, written in Lua on the public API and embedded with go:embed).
//
// It may import provider and tools, and nothing else of this module. It must not append to the
// transcript, call a model, or draw on the terminal itself: everything that needs the agent, the
// model or the user goes through the Host functions that main supplies, so the same scripts run
// in the TUI, in print/JSON mode and under RPC.
//
// Concurrency: one goroutine owns the *lua.LState; every exported method talks to it through a
// queue. Each call into Lua runs in a fresh coroutine with its own deadline (SetContext), so an
// error or an endless loop in a script becomes a notice or an error result, never a crash or a
// hang. pi.exec, pi.complete and the UI functions yield that coroutine while the work runs on
// another goroutine, so Lua tools that wait on processes run in parallel.
package lua
