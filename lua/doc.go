// Package lua owns pi's scripting runtime: one gopher-lua state, the `pi` module (version 1)
// that scripts program against, the dispatch of pi's extension events to Lua handlers, Lua tools
// and slash commands, the load order of scripts (bundled, $PI_HOME/init.lua, the project's
// .pi/init.lua), project trust ($PI_HOME/trust.json), and the bundled scripts themselves
// (the permission policy, skills, prompt templates, the MCP bridge, the Agent tools and the
// checkpoints of the project's files, written
// in Lua on the public API and embedded with go:embed; mcp.lua loads only when pi.toml names an
// MCP server, subagents.lua only when the Agent tools are on, and the others only when they
// have work: permissions.lua with a policy to enforce, skills.lua and templates.lua where a
// folder of theirs exists or another script could hand them paths; see idle.go). A script whose
// header has @wake lines sleeps, neither compiled nor run, until one of the events, commands or
// subcommands they name fires (sleep.go): checkpoints.lua sleeps until a call that may change
// files, /undo, /redo, a move in the tree or `pi checkpoints`.
//
// It may import provider, tools, internal/proc (which runs pi.exec's and pi.spawn's
// processes) and checkpoint (pi.checkpoint's snapshots of the project's files), and nothing
// else of this module (its tests also use internal/mcptest and internal/chattest). It must not append to the transcript, call a model, or draw on the
// terminal itself: everything that needs the agent, the model or the user goes through the Host
// functions that main supplies, so the same scripts run in the TUI, in print/JSON mode and
// under RPC.
//
// Concurrency: one goroutine owns the *lua.LState; every exported method talks to it through a
// queue. Each call into Lua runs in a fresh coroutine with its own deadline (SetContext), so an
// error or an endless loop in a script becomes a notice or an error result, never a crash or a
// hang. pi.exec, pi.complete and the UI functions yield that coroutine while the work runs on
// another goroutine, so Lua tools that wait on processes run in parallel.
//
// Beyond events, tools and commands, scripts reach the live session and the screen through
// Host.Session (session_api.go, ui.go: statuses, widgets, the title, the editor; the screen's
// state is kept for a user interface that attaches later), bind keys and command-line flags
// (ext.go), send pi's custom messages and draw them in the terminal UI (sendmessage.go), answer
// the user's shell commands and add skills, templates and themes (userevents.go), see the
// HTTP bodies sent to the model (providerhooks.go), and register model providers (provider.go;
// one of the script's own kind streams through luastream.go). Packages' scripts
// (Options.Packages) load after the user's.
//
// Callbacks (spawn.go, http.go, callback.go): what pi.spawn's children print and pi.http's
// streamed bodies reach Lua as tasks queued from the reading goroutine, which waits for each
// batch's calls to finish before it reads on. That wait is the only buffer: a child that
// floods stdout blocks on its pipe, and a process holds at most a 64 KiB read and one line
// (≤ 1 MiB) per stream. Each callback call has the hook deadline; one that raises is a notice
// (a few per process). A state's processes are killed (SIGKILL to the group) when the state
// closes: Reload and Close. pi.future hands a value from such a callback to a tool waiting on
// it; the wait yields and does not count against the call's deadline (its own timeout does).
//
// Limits: gopher-lua checks the call's context before every instruction, and that context is
// the one lever the runtime has, so everything that stops a script cancels it with a cause: the
// deadline, Close, and the limits (limits.go, memory.go). The stop reaches every coroutine of
// the call; no pcall or coroutine.resume can catch it. The limits are coroutine.resume nested
// 200 deep (each level nests the interpreter on the Go stack, which Go cannot survive
// overflowing), 10000 coroutines alive, and Go's heap 512 MiB (Options.MemoryLimit) above its
// size at New while Lua runs, sampled every 10 ms during a resume. Library calls that would
// build too much at once refuse instead: string.rep and table.concat over 64 MiB, pi.read_file
// over 64 MiB, loadstring and load over 1 MiB of source. Not limited: what one library call does
// before it returns (gsub and gmatch on huge strings), and a string doubled in a loop, which is
// caught after the doubling that passes the limit. Close stops the running call at once and returns within a
// second even then, leaving such a call behind; loading stops when New's context ends.
package lua

// Wiring, for main.go (the root package, which this package must not import):
//
//	rt, _ := lua.New(ctx, lua.Options{PiHome, Cwd, Trust: *trustFlag, AskTrust: tuiOnly,
//		Disabled: cfg.Lua.Disable, Host: lua.Host{…}})   // ctx: the signal context; SIGTERM stops loading
//	defer rt.Close()                                    // at SIGTERM too: returns within a second
//	tools := lua.MergeTools(builtins, rt.Tools())       // a Lua tool replaces a same-named built-in
//	hooks := Hooks{
//		BeforeToolCall: func(ctx, c) { block, reason := rt.ToolCall(ctx, c.Name, c.ID, c.Args); … },
//		AfterToolCall:  func(ctx, c, res) { o, _ := rt.ToolResult(ctx, c.Name, c.ID, c.Args, res); … },
//		TransformContext: func(ctx, msgs) { return rt.Context(ctx, msgs), nil },
//	}
//	agent.Subscribe(func(ctx, ev) { if rt.HasHandlers(ev.Type) { rt.Emit(ctx, ev.Type, payloadOf(ev)) } })
//
// Per prompt: a runnable /command runs at once (Command.Run); anything else goes through
// rt.Input, then rt.BeforeAgentStart sets the system prompt for that run. Emit session_start
// after New, session_shutdown then Flush before exit (at a signal with a short deadline, half a
// second: Close may take a second more), model_select on a model change;
// BeforeCompact and session_compact around compaction. docs/lua.md lists the payloads.
//
// Host functions run on the Lua goroutine or on a helper goroutine and must return promptly
// without calling back into the Runtime (Emit excepted). Command.Run, Command.Complete and
// Input block until the scripts are done, and a script may ask the user through Host.Confirm,
// so a UI must call them from a goroutine other than the one that answers Confirm.
