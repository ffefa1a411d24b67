---@meta
-- LuaLS definitions for pi's `pi` module, version 1. Put this file (or `pi --lua-defs` output,
-- when the host offers it) where your editor's Lua language server finds it, for example in
-- .pi/ next to init.lua or in a "workspace.library" folder, to get completion and checks.
--
-- A script can sleep until it is needed: "-- @wake" lines among the comments it begins with
-- name what wakes it, and pi neither compiles nor runs it before one fires (docs/lua.md,
-- "Scripts that sleep until needed"):
--   -- @wake EVENT                      the first time the event fires (not before_restore, restore)
--   -- @wake tool_call writes           the first call of a tool that may change files (read_only false)
--   -- @wake /NAME description          the first /NAME; listed with this description until then
--   -- @wake pi WORD description        `pi WORD` on the command line
-- The woken script's handlers see the event that woke it; the events before it went by.

---@class pi
---@field version integer API version (1). It changes only with incompatible changes.
pi = {}

-- ── content and results ─────────────────────────────────────────────────────────────────

---@class pi.TextBlock
---@field type "text"
---@field text string

---@class pi.ImageBlock
---@field type "image"
---@field data string base64
---@field mime_type? string e.g. "image/png" (mimeType is accepted too)

---@alias pi.Block pi.TextBlock|pi.ImageBlock

---@class pi.ToolResult
---@field content? string|pi.Block[] what the model sees
---@field details? any shown to the user interface, never to the model
---@field is_error? boolean
---@field terminate? boolean ask pi not to call the model again after this batch (only when every result of the batch asks)
---@field usage? {input?: integer, output?: integer, cache_read?: integer, cache_write?: integer, cost?: number} the tool's own model usage (cost in dollars): in the session's cost, not the context
---@field added_tools? string[] tools to activate from the next model call (the model is told); from a tool_result handler, more besides the tool's own

-- ── tools ────────────────────────────────────────────────────────────────────────────────

---@class pi.ToolContext
---@field call_id string
---@field cwd string
---@field update fun(partial: string|pi.ToolResult) stream partial output to the user interface
---@field aborted fun(): boolean true once the user aborted the run
---@field on_abort fun(fn: fun()) fn runs (as a call of its own) if the user aborts while execute still runs; execute itself is stopped then

---@class pi.ToolDef
---@field name string 1-64 letters, digits, _ or -; a built-in of the same name is replaced
---@field description string
---@field parameters? table a JSON Schema object; arguments are validated against it before execute runs
---@field execute fun(args: table, ctx: pi.ToolContext): (string|pi.ToolResult|nil) raise an error to return an error result
---@field sequential? boolean never run alongside other tools
---@field read_only? boolean the tool changes nothing: permission modes let it run without asking
---@field writes? string|string[] the names of the arguments holding paths of files the tool changes: its calls run in order with the reply's other calls on those files
---@field prompt_snippet? string one line for the system prompt's tool list
---@field prompt_guidelines? string[] bullets added to the system prompt while the tool is active
---@field timeout? number seconds before the call is stopped (default 600)
---@field constrained_sampling? boolean false: never ask the server to constrain this tool's arguments to its schema
---@field label? string a name for people
---@field prepare_arguments? fun(args: table): table|nil rewrites the model's arguments before the schema check (nil keeps them)
---@field render_call? fun(args: table): string the short text the terminal shows for the call
---@field render_result? fun(result: pi.ToolResult): string the short text the terminal shows for the output (ctrl+o shows all)
---@field render_shell? "default"|"self" self: the render texts are the whole box, without pi's frame
---@field deferred? boolean offered to the model only once asked for (added_tools, pi.set_active_tools, a tools allow-list): its declaration costs the window nothing until then

--- Register a tool the model can call. Registering a name again replaces the earlier tool.
---@param def pi.ToolDef
function pi.register_tool(def) end

-- ── commands ─────────────────────────────────────────────────────────────────────────────

---@class pi.CommandContext
---@field cwd string
---@field name string

---@class pi.CommandDef
---@field name string without the slash
---@field description? string
---@field argument_hint? string shown after the name in completion menus
---@field run? fun(args: string, ctx: pi.CommandContext) runs at once, even while the agent works; without run the command is only listed and its text goes through the input event
---@field complete? fun(prefix: string): string[] argument completions

--- Register a slash command.
---@param def pi.CommandDef
function pi.register_command(def) end

-- ── events ───────────────────────────────────────────────────────────────────────────────
-- Messages inside payloads keep pi's JSON shape (role, content, toolCallId, stopReason, …), so
-- they round-trip to session files; the payload fields themselves are snake_case.

---@class pi.Message
---@field role "user"|"assistant"|"toolResult"|string
---@field content string|table[]
---@field timestamp? integer unix milliseconds

---@class pi.SessionStartEvent
---@field reason "startup"|"reload"|"new"|"resume"|"fork"
---@field previous_session_file? string

---@class pi.SessionShutdownEvent
---@field reason "quit"|"reload"|"new"|"resume"|"fork"

---@class pi.InputEvent
---@field text string
---@field images pi.ImageBlock[]
---@field source "interactive"|"rpc"|"extension"

---@class pi.InputResult
---@field text? string replace the text (later handlers see the new text)
---@field handled? boolean stop: nothing is sent

---@class pi.BeforeAgentStartEvent
---@field prompt string
---@field images pi.ImageBlock[]
---@field system_prompt string the prompt so far (earlier handlers' changes included)

---@class pi.AgentEndEvent
---@field messages pi.Message[]

---@class pi.TurnStartEvent
---@field turn_index integer
---@field timestamp integer

---@class pi.TurnEndEvent
---@field turn_index integer
---@field message pi.Message
---@field tool_results pi.Message[]

---@class pi.MessageEvent
---@field message pi.Message
---@field assistant_message_event? table message_update only: the provider event (type, delta, …)

---@class pi.ContextEvent
---@field messages pi.Message[] a copy of what the model is about to see

---@class pi.PrepareRequestEvent
---@field model string provider/id of the call about to go out
---@field messages pi.Message[] what it sends (a copy)
---@field system_prompt string

---@class pi.FinishTurnEvent
---@field message pi.Message the reply that would end the run
---@field text string its text

---@class pi.ToolCallEvent
---@field tool_name string
---@field tool_call_id string
---@field input table the validated arguments; change them in place to change what runs
---@field read_only boolean the tool changes nothing (read, grep, find, ls, read_only script tools)

---@class pi.ToolCallResult
---@field block? boolean
---@field reason? string told to the model
---@field allow? boolean from a guard: the permission policy approves the call

---@class pi.ToolResultEvent
---@field tool_name string
---@field tool_call_id string
---@field input table
---@field content string|pi.Block[]
---@field details any
---@field is_error boolean

---@class pi.ToolExecutionEvent
---@field tool_call_id string
---@field tool_name string
---@field args? table start and update
---@field partial_result? pi.ToolResult update
---@field result? pi.ToolResult end
---@field is_error? boolean end

---@class pi.BeforeCompactEvent
---@field reason? "threshold"|"overflow"|"manual"
---@field messages? pi.Message[] the part about to be summarised
---@field custom_instructions? string
---@field tokens_before? integer

---@class pi.BeforeCompactResult
---@field cancel? boolean
---@field summary? string use this summary instead of asking the model
---@field details? any

---@class pi.SessionCompactEvent
---@field compaction_entry? table
---@field from_extension? boolean
---@field tokens_before? integer
---@field tokens_after? integer

---@class pi.ModelSelectEvent
---@field model string "provider/id"
---@field previous_model string
---@field source "set"|"cycle"|"restore"

---@class pi.ThinkingLevelSelectEvent
---@field level string
---@field previous_level string

---@class pi.SessionBeforeEvent
---@field reason? "new"|"resume"|"fork" switch and fork
---@field target_session_file? string switch
---@field entry_id? string fork: the user message /fork picked, or the leaf /clone copies
---@field position? "before"|"at" fork: before entry_id (/fork) or at it (/clone)
---@field target_id? string tree
---@field old_leaf_id? string tree

---@class pi.SessionTreeEvent
---@field old_leaf_id string
---@field new_leaf_id string

---@class pi.RestoreEvent
---@field target string the snapshot the files are to become
---@field expected? string the snapshot they should be now (where the session left them)
---@field reason string undo, redo, tree, fork, command
---@field changes? pi.CheckpointChange[] restore: what changed

---@class pi.ProviderRequestEvent
---@field payload table the JSON body about to be sent

---@class pi.ProviderResponseEvent
---@field status integer
---@field headers table<string, string> names in lower case

---@class pi.UserBashEvent
---@field command string what the user typed after ! or !! (or RPC's bash command)
---@field exclude_from_context boolean true for !!: the model does not see the output
---@field cwd string

---@class pi.BashResult
---@field output string
---@field exit_code? integer default 0; nil with cancelled: killed
---@field cancelled? boolean
---@field truncated? boolean
---@field full_output_path? string

---@class pi.UserBashResult
---@field result? pi.BashResult stands in for running the command (recorded as its run)
---@field block? boolean refuse the command
---@field reason? string why, for the user

---@class pi.ResourcesDiscoverEvent
---@field cwd string
---@field reason "startup"|"reload"
---@field skill_paths string[] late handlers: what the others added so far (absolute)
---@field prompt_paths string[]
---@field theme_paths string[]

---@class pi.ResourcesDiscoverResult
---@field skill_paths? string[] skill folders (searched like a skills root) or .md files; relative to the project
---@field prompt_paths? string[] folders of prompt templates or .md files
---@field theme_paths? string[] folders of theme files (.toml) for the terminal UI

---@class pi.OnOptions
---@field late? boolean run after the handlers without it (the bundled skill and template expansion use this)
---@field guard? boolean tool_call only: fail closed (raising or timing out blocks the call), and may return {allow = true}

--- Listen to an event. Handlers of one event run one after another in load order; a hook that
--- raises or runs past its deadline (5 s) becomes a notice and the action goes on.
---@overload fun(event: "session_start", fn: fun(ev: pi.SessionStartEvent), opts?: pi.OnOptions)
---@overload fun(event: "session_shutdown", fn: fun(ev: pi.SessionShutdownEvent), opts?: pi.OnOptions)
---@overload fun(event: "input", fn: fun(ev: pi.InputEvent): pi.InputResult?, opts?: pi.OnOptions)
---@overload fun(event: "before_agent_start", fn: fun(ev: pi.BeforeAgentStartEvent): {system_prompt?: string, message?: {content: string|pi.Block[], custom_type?: string, display?: boolean, details?: any}}?, opts?: pi.OnOptions)
---@overload fun(event: "agent_start", fn: fun(ev: table), opts?: pi.OnOptions)
---@overload fun(event: "agent_end", fn: fun(ev: pi.AgentEndEvent), opts?: pi.OnOptions)
---@overload fun(event: "turn_start", fn: fun(ev: pi.TurnStartEvent), opts?: pi.OnOptions)
---@overload fun(event: "turn_end", fn: fun(ev: pi.TurnEndEvent), opts?: pi.OnOptions)
---@overload fun(event: "message_start"|"message_update", fn: fun(ev: pi.MessageEvent), opts?: pi.OnOptions)
---@overload fun(event: "message_end", fn: fun(ev: pi.MessageEvent): {message: pi.Message}?, opts?: pi.OnOptions)
---@overload fun(event: "context", fn: fun(ev: pi.ContextEvent): {messages: pi.Message[]}?, opts?: pi.OnOptions)
---@overload fun(event: "prepare_request", fn: fun(ev: pi.PrepareRequestEvent): {model?: string, messages?: pi.Message[]}?, opts?: pi.OnOptions)
---@overload fun(event: "finish_turn", fn: fun(ev: pi.FinishTurnEvent): "continue"|"end"|{action: "continue"|"end", message?: string}?, opts?: pi.OnOptions)
---@overload fun(event: "project_trust", fn: fun(ev: {cwd: string, trusted: boolean}), opts?: pi.OnOptions)
---@overload fun(event: "tool_call", fn: fun(ev: pi.ToolCallEvent): pi.ToolCallResult?, opts?: pi.OnOptions)
---@overload fun(event: "tool_result", fn: fun(ev: pi.ToolResultEvent): pi.ToolResult?, opts?: pi.OnOptions)
---@overload fun(event: "tool_execution_start"|"tool_execution_update"|"tool_execution_end", fn: fun(ev: pi.ToolExecutionEvent), opts?: pi.OnOptions)
---@overload fun(event: "session_before_compact", fn: fun(ev: pi.BeforeCompactEvent): pi.BeforeCompactResult?, opts?: pi.OnOptions)
---@overload fun(event: "session_compact", fn: fun(ev: pi.SessionCompactEvent), opts?: pi.OnOptions)
---@overload fun(event: "model_select", fn: fun(ev: pi.ModelSelectEvent), opts?: pi.OnOptions)
---@overload fun(event: "thinking_level_select", fn: fun(ev: pi.ThinkingLevelSelectEvent), opts?: pi.OnOptions)
---@overload fun(event: "session_before_switch"|"session_before_fork"|"session_before_tree", fn: fun(ev: pi.SessionBeforeEvent): {cancel: boolean}?, opts?: pi.OnOptions)
---@overload fun(event: "session_tree", fn: fun(ev: pi.SessionTreeEvent), opts?: pi.OnOptions)
---@overload fun(event: "before_restore", fn: fun(ev: pi.RestoreEvent): {cancel: boolean, reason?: string}?, opts?: pi.OnOptions)
---@overload fun(event: "restore", fn: fun(ev: pi.RestoreEvent), opts?: pi.OnOptions)
---@overload fun(event: "before_provider_request", fn: fun(ev: pi.ProviderRequestEvent): table?, opts?: pi.OnOptions)
---@overload fun(event: "after_provider_response", fn: fun(ev: pi.ProviderResponseEvent), opts?: pi.OnOptions)
---@overload fun(event: "user_bash", fn: fun(ev: pi.UserBashEvent): pi.UserBashResult?, opts?: pi.OnOptions)
---@overload fun(event: "resources_discover", fn: fun(ev: pi.ResourcesDiscoverEvent): pi.ResourcesDiscoverResult?, opts?: pi.OnOptions)
---@param event string
---@param fn function
---@param opts? pi.OnOptions
function pi.on(event, fn, opts) end

-- ── messages, processes, files ───────────────────────────────────────────────────────────

---@class pi.SendOptions
---@field deliver_as? "steer"|"follow_up" default: now when idle, else after the current run

--- Queue a user message.
---@param text string
---@param opts? pi.SendOptions
---@return true|nil ok
---@return string? err
function pi.send_user_message(text, opts) end

---@class pi.ExecOptions
---@field cwd? string default pi.cwd()
---@field timeout? number seconds
---@field stdin? string

---@class pi.ExecResult
---@field stdout string
---@field stderr string
---@field code integer exit code; -1 when killed
---@field killed boolean stopped by the timeout or an abort

--- Run a shell command (sh -c). Other tools and hooks keep running while it waits.
---@param command string
---@param opts? pi.ExecOptions
---@return pi.ExecResult|nil result
---@return string? err when the command could not start
function pi.exec(command, opts) end

-- ── long-lived processes, HTTP, futures, JSON ────────────────────────────────────────────

---@class pi.SpawnOptions
---@field cmd string the program (looked up in PATH; no shell)
---@field args? string[]
---@field cwd? string default pi.cwd()
---@field env? table<string, string> laid over pi's environment
---@field lines? boolean default true: on_stdout/on_stderr get one line at a time (without its newline; a line over 1 MiB comes in 1 MiB pieces); false: chunks of up to 64 KiB as they are read
---@field on_stdout? fun(data: string) runs on the Lua goroutine; the child's output waits until it returns
---@field on_stderr? fun(data: string)
---@field on_exit? fun(code: integer, signal: string|nil) after every output callback; code is -1 when a signal ended it

---@class pi.Process
---@field pid integer leads a process group of its own
---@field write fun(self: pi.Process, data: string): (true|nil, string?) queue data for stdin; returns at once; fails past 8 MiB not yet read
---@field close_stdin fun(self: pi.Process)
---@field kill fun(self: pi.Process, signal?: string|integer): (true|nil, string?) to the whole group; "TERM" (default), "KILL", "INT", "HUP", "QUIT" or a number
---@field running fun(self: pi.Process): boolean

--- Start a long-lived process with streaming I/O. It is killed (with its group) on /reload,
--- when pi exits, and when the Lua runtime stops.
---@param opts pi.SpawnOptions
---@return pi.Process|nil process
---@return string? err when it could not start
function pi.spawn(opts) end

---@class pi.HttpRequest
---@field url string http:// or https://
---@field method? string default "GET"
---@field headers? table<string, string>
---@field body? string
---@field timeout? number seconds for the whole exchange, default 60
---@field stream? fun(chunk: string) gets the body as it arrives (up to 64 KiB a call); the response's body is then ""

---@class pi.HttpResponse
---@field status integer
---@field headers table<string, string> lower-case names; several values joined with ", "
---@field body string at most 16 MiB (more is an error: use stream)

--- An HTTP request. Waits like pi.exec; ends with an abort, at the timeout and on /reload.
---@param req pi.HttpRequest
---@return pi.HttpResponse|nil response also for 4xx and 5xx
---@return string? err when there was no response
function pi.http(req) end

---@class pi.Future
---@field resolve fun(self: pi.Future, value: any) the first value counts
---@field wait fun(self: pi.Future, timeout?: number): (any, string?) value, or nil and "timeout" (default 60 s); the wait does not count against the call's deadline; raises inside pcall
---@field done fun(self: pi.Future): boolean

--- A value one call hands to another: a pi.spawn callback resolves it, a tool waits for it.
---@return pi.Future
function pi.future() end

---@param value any tables marked with pi.array become JSON arrays even when empty
---@return string|nil json
---@return string? err
function pi.json_encode(value) end

---@param json string
---@return any|nil value JSON null is nil
---@return string? err
function pi.json_decode(json) end

--- Remove a tool a script registered.
---@param name string
---@return boolean removed
function pi.unregister_tool(name) end

--- Whether the project directory is trusted (--trust, or trust.json). Never asks.
---@return boolean
function pi.project_trusted() end

--- Read a whole file (at most 64 MiB: a larger one gives nil and a message).
---@param path string relative to pi.cwd(); ~/ is the home directory
---@return string|nil content
---@return string? err
function pi.read_file(path) end

--- Write a file, creating its directories.
---@param path string
---@param content string
---@return true|nil ok
---@return string? err
function pi.write_file(path, content) end

---@class pi.GlobOptions
---@field cwd? string the directory a relative pattern starts from
---@field hidden? boolean let ** enter dot-directories

--- Paths matching a pattern, sorted; ** matches any number of directories.
---@param pattern string
---@param opts? pi.GlobOptions
---@return string[]|nil paths
---@return string? err
function pi.glob(pattern, opts) end

---@class pi.Stat
---@field type "file"|"dir"
---@field size integer
---@field mtime integer unix seconds

---@param path string
---@return pi.Stat|nil
---@return string? err
function pi.stat(path) end

--- Split a leading --- block of simple YAML off a text.
---@param text string
---@return table|nil meta
---@return string body
function pi.parse_frontmatter(text) end

--- Mark a table as a list, so it converts to a JSON array even when empty.
---@param t? table
---@return table
function pi.array(t) end

-- ── configuration, user interface, state ────────────────────────────────────────────────

--- The [extensions.<name>] table of pi.toml.
---@param name string
---@return table|nil
function pi.config(name) end

---@param msg string
---@param level? "info"|"warning"|"error"
function pi.notify(msg, level) end

---@class pi.Permissions
---@field mode "auto"|"ask"|"read-only"
---@field allow string[] rules ("tool" or "tool:pattern"), with the answers remembered as "always"
---@field ask string[]
---@field deny string[]

--- The permission settings ([permissions] of pi.toml, --permissions), for a policy script.
---@return pi.Permissions
function pi.permissions() end

--- Let the user decide a tool call: yes, no, always in this session, always in this project
--- (rule is what "always" remembers). Refused in print mode unless --yes. Waiting for the
--- answer does not count against the hook's deadline.
---@param req {tool: string, summary: string, rule?: string}
---@return boolean ok
---@return string reason for the model when not ok
function pi.ask_permission(req) end

--- Ask yes or no. Without a user interface (print mode) the answer is false.
---@param title string
---@param msg? string
---@return boolean
function pi.confirm(title, msg) end

--- Pick one option; nil when dismissed or without a user interface.
---@param title string
---@param options string[]
---@return string|nil
function pi.select(title, options) end

--- Ask for a line of text; nil when dismissed or without a user interface.
---@param title string
---@param placeholder? string
---@return string|nil
function pi.input(title, placeholder) end

---@return string
function pi.cwd() end

---@return string the pi home directory ($PI_HOME, default ~/.pi)
function pi.pi_home() end

---@return string "provider/id"
function pi.model() end

---@param spec string "provider/id" or an id
---@return true|nil ok
---@return string? err
function pi.set_model(spec) end

---@return string[]
function pi.active_tools() end

---@param names string[]
---@return true|nil ok
---@return string? err
function pi.set_active_tools(names) end

---@class pi.CompleteOptions
---@field system? string
---@field model? string "provider/id"; default the current model

--- One model call outside the conversation.
---@param prompt string
---@param opts? pi.CompleteOptions
---@return string|nil text
---@return string? err
function pi.complete(prompt, opts) end

-- ── subagents ────────────────────────────────────────────────────────────────────────────
-- Child sessions that run in this process on the current model (the bundled subagents script
-- builds the Agent tools on these). A child has its own session file, in this session's
-- folder, with this session named as its parentSession.

---@class pi.AgentType
---@field name string
---@field description string
---@field tools? string[] nil: the default tools
---@field model string "" is the parent's
---@field thinking string
---@field max_turns integer 0: no limit
---@field source string "built-in" or the file

---@class pi.SubagentSpec
---@field prompt string
---@field description? string
---@field type? string an agent type; default general-purpose
---@field model? string
---@field thinking? string
---@field max_turns? integer
---@field background? boolean run under the session, queued past [subagents] max_concurrent; a notice reaches the session when it ends
---@field resume? string an agent id of this session to continue
---@field session_file? string a .jsonl file in the project or its sessions folder to run in (continued if it exists)
---@field isolated? boolean no context files, no extensions
---@field inherit_context? boolean the first prompt carries this conversation so far
---@field isolation? "worktree" a fresh git worktree on a new branch
---@field schedule? string run later in the background instead of now: "in 10m", "at 14:30", "at 2026-12-31 09:00", "every 1h", "every day at 09:00" (only where pi.subagent.scheduling()); start then returns the schedule's id

---@class pi.SubagentResult
---@field id string
---@field type string
---@field description string
---@field status "queued"|"running"|"done"|"failed"|"aborted"
---@field background boolean
---@field answer string the child's last assistant text
---@field turns integer
---@field tokens integer
---@field tool string the tool it runs now
---@field session_file string
---@field max_turns_hit boolean
---@field branch string the worktree's branch, when it changed files
---@field worktree string
---@field files string[] changed in the worktree
---@field error string
---@field schedule string the schedule that started it, or ""

---@class pi.SubagentSchedule
---@field id string "schedule-1"
---@field schedule string as written: "every 1h"
---@field next string its next run, RFC 3339 in local time
---@field next_in string how long until then: "45s", "10m", "1h30m", "2d3h"
---@field prompt string
---@field description string
---@field type string
---@field runs string[] the agents it started since the session was opened
---@field error string why its last run could not start
---@field line string the schedule in one line, as /agents lists it

---@class pi.SubagentSelf
---@field id string
---@field type string
---@field depth integer 1 for a child of a top-level session
---@field nesting boolean whether this child may start children
---@field max_depth integer the deepest a child of this tree may be ([subagents] max_depth of the top-level session)

-- ── checkpoints: snapshots of the project's files ────────────────────────────────────────
-- A store under $PI_HOME/checkpoints/ (never the project, never its .git); .gitignore is
-- followed; files over max_file_size (default 10 MiB) are listed as skipped.

---@class pi.CheckpointOptions
---@field note? string kept in the store's log
---@field max_file_size? integer bytes
---@field max_files? integer paths a snapshot may hold (default 200000): more is an error

---@class pi.Snapshot
---@field id string equal ids mean equal files
---@field files integer
---@field read integer files read (the others were vouched for by size and time)
---@field added integer bytes the store grew by
---@field skipped {path: string, size: integer, reason: string}[]
---@field ms number

---@class pi.CheckpointChange
---@field path string
---@field op "added"|"deleted"|"modified"
---@field kind "file"|"symlink"|"dir"
---@field added integer lines
---@field removed integer lines
---@field binary boolean

---@class pi.RestoreOptions: pi.CheckpointOptions
---@field expected? string the snapshot the files should match now: other changes to paths the restore touches are conflicts
---@field force? boolean overwrite conflicts
---@field dry_run? boolean change nothing

---@class pi.RestoreResult
---@field before string the snapshot of the files just before
---@field changes pi.CheckpointChange[]
---@field conflicts pi.CheckpointChange[]

pi.checkpoint = {}

---@param opts? pi.CheckpointOptions
---@return pi.Snapshot|nil
---@return string? err
function pi.checkpoint.snapshot(opts) end

--- What changed from snapshot from to snapshot to (default: the files now).
---@param from string
---@param to? string
---@return pi.CheckpointChange[]|nil
---@return string? err
function pi.checkpoint.diff(from, to) end

--- Set the files to snapshot id. A conflict not forced changes nothing and returns nil, the message and the result with its conflicts.
---@param id string
---@param opts? pi.RestoreOptions
---@return pi.RestoreResult|nil
---@return string? err
---@return pi.RestoreResult? partial
function pi.checkpoint.restore(id, opts) end

--- Every session's snapshots of this project, oldest first.
---@return {id: string, time: number, note: string}[]|nil
---@return string? err
function pi.checkpoint.list() end

---@param opts? {max_age_days?: number, max_bytes?: integer}
---@return {snapshots: integer, objects: integer, freed: integer, left: integer}|nil
---@return string? err
function pi.checkpoint.prune(opts) end

--- The full id of a snapshot from a prefix (at least 4 hex digits).
---@param prefix string
---@return string|nil id
---@return string? err
function pi.checkpoint.resolve(prefix) end

---@class pi.SessionEntry
---@field id string
---@field parent_id string "" for a root
---@field type string message, custom, custom_message, label, …
---@field role? string message
---@field custom_type? string
---@field data? any custom

--- The path from the root to leaf (default the current leaf), or every entry with all = true; custom_type keeps only custom entries of that type. Empty with no session.
---@param opts? {leaf?: string, all?: boolean, custom_type?: string}
---@return pi.SessionEntry[]
function pi.session_entries(opts) end

--- The current leaf's id, or nil.
---@return string|nil
function pi.session_leaf() end

--- Raise one of the scripts' own events (before_restore, restore): its handlers run in order; the first that returns {cancel = true} stops the rest.
---@param event "before_restore"|"restore"
---@param payload? table
---@return {cancel: boolean, reason?: string, script?: string}
function pi.emit(event, payload) end

---@class pi.SubcommandIO
---@field print fun(...: any) a line to stdout
---@field eprint fun(...: any) a line to stderr

--- A `pi <word>` on the command line for words pi's command table hands to scripts (checkpoints). run returns the exit status (nil: 0).
---@param def {name: string, description?: string, run: fun(args: string[], io: pi.SubcommandIO): integer?}
function pi.register_subcommand(def) end

pi.subagent = {}

--- Whether this session offers the Agent tools ([subagents] enabled, or a tool list naming them; in a child, only when its type's tools name Agent).
---@return boolean
function pi.subagent.enabled() end

--- nil in a top-level session.
---@return pi.SubagentSelf|nil
function pi.subagent.self() end

---@return pi.AgentType[]
function pi.subagent.types() end

--- Start a child and return its id at once. A foreground child (no background) runs under the calling tool call: aborting it aborts the child.
---@param spec pi.SubagentSpec
---@return string|nil id
---@return string? err
function pi.subagent.start(spec) end

--- A child's state; with wait, once it has ended; with next, at its next change (status,
--- the tool it runs, turns, tokens) or its end; either at most timeout seconds on (yields; not
--- inside pcall).
---@param id string
---@param opts? {wait?: boolean, next?: boolean, timeout?: number}
---@return pi.SubagentResult|nil
---@return string? err
function pi.subagent.get(id, opts) end

--- Queue a steering message for a running (or not yet started) child.
---@param id string
---@param message string
---@return true|nil ok
---@return string? err
function pi.subagent.steer(id, message) end

---@param id string
---@return true|nil ok
---@return string? err
function pi.subagent.abort(id) end

--- Every child of this session, oldest first.
---@return pi.SubagentResult[]
function pi.subagent.list() end

--- Show a child's transcript read-only on screen (live while it runs) until the user presses
--- Escape; yields like pi.select. Without a screen (print, JSON, RPC mode) it returns nil and why.
---@param id string
---@return true|nil ok
---@return string? err
function pi.subagent.view(id) end

--- Whether pi.subagent.view has a screen here (the terminal UI).
---@return boolean
function pi.subagent.can_view() end

--- Whether pi.subagent.start takes a schedule here ([subagents] scheduling = true; never in a child).
---@return boolean
function pi.subagent.scheduling() end

--- This session's schedules, oldest first (kept in its session file).
---@return pi.SubagentSchedule[]
function pi.subagent.schedules() end

--- Drop a schedule: it starts no more runs (the agents it started go on).
---@param id string
---@return true|nil ok
---@return string? err
function pi.subagent.cancel(id) end

-- ── the session ──────────────────────────────────────────────────────────────────────────

--- Stop the run in flight (it does not wait).
function pi.abort() end

---@return boolean idle no run in flight (always true without a session)
function pi.is_idle() end

---@class pi.CompactOptions
---@field on_done? fun(err: string|nil) called when the compaction ends

--- Start a compaction (focus: what the summary should keep) and return at once.
---@param focus? string
---@param opts? pi.CompactOptions
---@return true|nil ok
---@return string? err
function pi.compact(focus, opts) end

---@class pi.ContextUsage
---@field tokens? integer the context's size as the last reply reported it (nil before one)
---@field context_window? integer the model's window, when known
---@field percent? number

---@return pi.ContextUsage
function pi.context_usage() end

--- Record state in the session (a custom entry; it never reaches the model).
---@param custom_type string
---@param data any
---@return string|nil entry_id
---@return string? err
function pi.append_entry(custom_type, data) end

--- Label an entry (a bookmark in /tree); an empty label clears it.
---@param entry_id string
---@param label? string
---@return true|nil ok
---@return string? err
function pi.set_label(entry_id, label) end

---@return string|nil
function pi.session_name() end

---@param name string
---@return true|nil ok
---@return string? err
function pi.set_session_name(name) end

---@return string level off, minimal, low, medium, high, xhigh or max
function pi.thinking_level() end

--- Returns the level in force: a model without reasoning stays off.
---@param level string
---@return string|nil level
---@return string? err
function pi.set_thinking_level(level) end

---@class pi.ToolInfo
---@field name string
---@field description string
---@field active boolean
---@field read_only boolean
---@field deferred boolean offered only once asked for
---@field builtin boolean one of pi's own tools, not a script's
---@field tokens integer about what its declaration (name, description, schema) costs the window, at four characters a token

---@return pi.ToolInfo[] every tool that can be activated
function pi.all_tools() end

---@class pi.CommandInfo
---@field name string
---@field description string
---@field source "extension"|"skill"|"prompt"
---@field path string the script that registered it

---@return pi.CommandInfo[]
function pi.commands() end

---@class pi.CustomMessage
---@field custom_type string its type: names the renderer; the session records it in a custom_message entry
---@field content string|pi.TextBlock[] what the model reads, as a user message
---@field display? boolean show it in the terminal UI (default false)
---@field details? any data for renderers, not for the model

---@class pi.SendMessageOptions
---@field deliver_as? "steer"|"follow_up"|"next_turn" while a run goes: steer (default) or follow up; next_turn: after the user's next prompt
---@field trigger_turn? boolean when idle, start a run with it (without: it joins the conversation at once, no turn)

---@param msg pi.CustomMessage
---@param opts? pi.SendMessageOptions
---@return true|nil ok
---@return string? err
function pi.send_message(msg, opts) end

---@class pi.RenderOptions
---@field expanded boolean true while tool output is expanded (ctrl+o); messages still on screen are drawn again when it changes

--- Draw custom messages of one type in the terminal UI: fn returns the lines to show (a
--- string or a list of strings), or nil for the default (the type as a label, the text).
---@param custom_type string
---@param fn fun(msg: pi.CustomMessage, opts: pi.RenderOptions): string|string[]|nil
function pi.register_message_renderer(custom_type, fn) end

-- ── the screen ───────────────────────────────────────────────────────────────────────────
-- In the terminal UI these draw; over RPC they are extension_ui_request lines (setStatus,
-- setWidget, setTitle, set_editor_text); in print and JSON mode they do nothing.

--- A footer segment under key; nil or "" removes it. Segments show in key order.
---@param key string
---@param text? string
function pi.set_status(key, text) end

---@class pi.WidgetOptions
---@field placement? "above"|"below" above (default) or below the editor

--- Lines above or below the editor under key (at most 10 show); nil removes them.
---@param key string
---@param lines string[]|string|nil
---@param opts? pi.WidgetOptions
function pi.set_widget(key, lines, opts) end

---@param title string the terminal window's title
function pi.set_title(title) end

---@param text string replaces what the editor holds
function pi.set_editor_text(text) end

--- Ask for a longer text, starting from prefill (in the terminal UI a multi-line editor: shift+enter
--- makes a new line, enter submits, ctrl+g opens $EDITOR): the text, or nil when dismissed or without a UI.
---@param title string
---@param prefill? string
---@return string|nil
function pi.editor(title, prefill) end

-- ── shortcuts, flags, packages ───────────────────────────────────────────────────────────

---@class pi.ShortcutDef
---@field key string e.g. "ctrl+alt+p"; a key the keymap gives an action stays the action's
---@field description? string listed by /hotkeys
---@field run fun()

---@param def pi.ShortcutDef
function pi.register_shortcut(def) end

---@class pi.FlagDef
---@field name string `pi --name` (boolean) or `pi --name=value` / `pi --name value` (string)
---@field type? "boolean"|"string" default boolean
---@field description? string
---@field default? any

---@param def pi.FlagDef
function pi.register_flag(def) end

--- The flag's value from the command line, else its default, else nil.
---@param name string
---@return any
function pi.flag(name) end

---@return string[] the folders of the packages loaded, in load order
function pi.package_dirs() end

-- ── providers ────────────────────────────────────────────────────────────────────────────

---@class pi.ProviderModel
---@field id string
---@field name? string
---@field context_window? integer
---@field max_tokens? integer
---@field reasoning? boolean
---@field input? ("text"|"image")[] default {"text"}
---@field cost? {input?: number, output?: number, cache_read?: number, cache_write?: number} dollars per million tokens

---@class pi.ProviderRequest
---@field model {id: string, name: string, provider: string, api: string, base_url: string, context_window: integer, max_tokens: integer, reasoning: boolean}
---@field system_prompt string
---@field messages table[] pi's message shapes (role user, assistant, toolResult)
---@field tools {name: string, description: string, parameters: table}[]
---@field options {thinking: string, max_tokens: integer, temperature?: number, session_id: string}

---@class pi.ProviderOut
---@field text fun(delta: string)
---@field thinking fun(delta: string)
---@field tool_call fun(call: {id?: string, name: string, arguments?: table}) a whole call
---@field tool_call_start fun(id: string, name: string)
---@field tool_call_delta fun(json: string) a piece of the open call's argument JSON
---@field tool_call_end fun()
---@field usage fun(u: {input?: integer, output?: integer, cache_read?: integer, cache_write?: integer})
---@field aborted fun(): boolean

---@class pi.ProviderDef
---@field api? string "ollama", "openai" or "anthropic"; with stream, any name (default "lua")
---@field base_url? string
---@field api_key? string a literal key
---@field api_key_env? string the variable that holds the key
---@field headers? table<string, string>
---@field models? pi.ProviderModel[]|fun(): pi.ProviderModel[] a function is asked whenever models are listed
--- Makes one model call: hand back what the model says through out; return nothing, "length",
--- or nil and a message on failure.
---@field stream? fun(request: pi.ProviderRequest, out: pi.ProviderOut): (string|nil, string?)

--- A model provider: an existing kind with a computed configuration (laid over pi.toml's
--- provider of that name), or a kind of the script's own (stream).
---@param name string
---@param def pi.ProviderDef
function pi.register_provider(name, def) end

---@param name string
function pi.unregister_provider(name) end
