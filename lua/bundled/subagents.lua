-- subagents.lua: the Agent, get_subagent_result and steer_subagent tools and /agents, written
-- on pi.subagent (child sessions that run in this process; see the README's Subagents section).
--
-- The tools exist only where pi.subagent.enabled() says so: [subagents] enabled = true in
-- pi.toml, or a tool list naming them; inside a child, only when its agent type's tools name
-- Agent (by default a child cannot start children).

local sub = pi.subagent
if not sub.enabled() then return end
local self = sub.self()

local function type_lines()
  local lines = {}
  for _, t in ipairs(sub.types()) do
    local extra = ""
    if t.tools then extra = " (tools: " .. table.concat(t.tools, ", ") .. ")" end
    lines[#lines + 1] = "- " .. t.name .. ": " .. (t.description or "") .. extra
  end
  return table.concat(lines, "\n")
end

-- report is what the model reads about a child.
local function report(r)
  local out = {}
  local function add(s) out[#out + 1] = s end
  add("agent_id: " .. r.id .. "\nstatus: " .. r.status)
  if r.turns then add("turns: " .. r.turns .. ", tokens: " .. (r.tokens or 0)) end
  if r.max_turns_hit then add("stopped at its turn limit; this is what it had so far") end
  if r.branch and r.branch ~= "" then
    add("worktree: " .. r.worktree .. "\nbranch: " .. r.branch .. "\nfiles changed:\n" .. table.concat(r.files or {}, "\n"))
  elseif r.status == "done" and r.isolation == "worktree" then
    add("files changed: none (the worktree was removed)")
  end
  if r.error and r.error ~= "" then add("error: " .. r.error) end
  if r.note and r.note ~= "" then add("note: " .. r.note) end
  if r.session_file and r.session_file ~= "" then add("session_file: " .. r.session_file) end
  if r.answer and r.answer ~= "" then add("\n" .. r.answer) end
  return table.concat(out, "\n")
end

-- progress_line is a child in one line: type, description, its tool, turns, tokens.
local function progress_line(r) return r.line end

local agent_params = {
  type = "object",
  properties = {
    prompt = { type = "string", description = "The task, complete: the agent sees nothing else of this conversation" },
    description = { type = "string", description = "A few words saying what the agent does" },
    subagent_type = { type = "string", description = "The agent type (see the list above); default general-purpose" },
    model = { type = "string", description = "A model for the agent instead of the current one" },
    thinking = { type = "string", description = "A thinking level for the agent: off, minimal, low, medium, high, xhigh, or max (the model's highest)" },
    max_turns = { type = "integer", description = "Stop the agent after this many turns" },
    run_in_background = { type = "boolean", description = "Return an agent_id at once; a notice comes when it is done" },
    resume = { type = "string", description = "An agent_id of this session to continue" },
    session_file = { type = "string", description = "A session file (.jsonl, in this project or its sessions folder) for the agent to run in: continued when it exists, started when not" },
    isolated = { type = "boolean", description = "Give the agent no context files or extensions" },
    inherit_context = { type = "boolean", description = "Give the agent this conversation so far" },
    isolation = { type = "string", enum = { "worktree" }, description = "worktree: work in a fresh git worktree on a new branch" },
  },
  required = { "prompt", "description" },
}
if self then -- nested: no resuming, no naming session files
  agent_params.properties.resume, agent_params.properties.session_file = nil, nil
end
if sub.scheduling() then -- [subagents] scheduling = true, and never in a child
  agent_params.properties.schedule = { type = "string", description =
    'Run it later, in the background, instead of now: "in 10m", "at 14:30", "at 2026-12-31 09:00", ' ..
    '"every 1h", "every day at 09:00" (local time). Each run\'s result comes as a background agent\'s notice' }
end

-- schedule_of is the schedule with that id as sub.schedules() reports it.
local function schedule_of(id)
  for _, s in ipairs(sub.schedules()) do
    if s.id == id then return s end
  end
end

pi.register_tool {
  name = "Agent",
  description = "Hand a self-contained task to a new agent with its own context; you get back only its final answer. " ..
    "Use it for searches and reading many files, so your own context stays small. Agent types:\n" .. type_lines(),
  parameters = agent_params,
  timeout = 24 * 3600,
  execute = function(args, ctx)
    local id, err = sub.start {
      prompt = args.prompt, description = args.description, type = args.subagent_type, model = args.model,
      thinking = args.thinking, max_turns = args.max_turns, background = args.run_in_background,
      resume = args.resume, session_file = args.session_file, isolated = args.isolated, inherit_context = args.inherit_context,
      isolation = args.isolation, schedule = args.schedule,
    }
    if not id then error(err, 0) end
    if args.schedule then
      local sched = schedule_of(id) -- gone already: it ran once, at once
      local next = sched and ("next run: " .. sched.next .. " (in " .. sched.next_in .. ")") or "its only run has started"
      return { content = "schedule_id: " .. id .. "\nschedule: " .. args.schedule .. "\n" .. next ..
        "\nEach run starts a background agent; a notice comes when it is done. The user can cancel it with /agents cancel " .. id,
        details = sched or { id = id } }
    end
    if args.run_in_background then
      return "agent_id: " .. id .. "\nstatus: started in the background. A notice comes when it is done; " ..
        "get_subagent_result fetches its answer."
    end
    ctx.on_abort(function() sub.abort(id) end)
    local r, gerr, shown
    repeat -- one line under the tool call while the child works (RPC: details.id names it)
      r, gerr = sub.get(id, { next = true, timeout = 1 }) -- at its next change, or a second on
      if not r then error(gerr, 0) end
      local line = progress_line(r)
      if (r.status == "running" or r.status == "queued") and line ~= shown then
        ctx.update({ content = line, details = r })
        shown = line
      end
    until r.status ~= "running" and r.status ~= "queued"
    r.isolation = args.isolation
    return { content = report(r), details = r, is_error = r.status == "failed" }
  end,
}

pi.register_tool {
  name = "get_subagent_result",
  description = "Status of an agent started with Agent (queued, running, done, failed, aborted), its answer when done, turns and tokens used. wait = true waits until it is done." ..
    (sub.scheduling() and " Given a schedule_id: its next run and the agents it started." or ""),
  parameters = {
    type = "object",
    properties = { agent_id = { type = "string" }, wait = { type = "boolean" } },
    required = { "agent_id" },
  },
  read_only = true,
  timeout = 24 * 3600,
  execute = function(args)
    local sched = args.agent_id:match("^schedule%-") and schedule_of(args.agent_id)
    if sched then -- a schedule_id: its next run and the agents it started
      local runs = #sched.runs > 0 and ("\nruns so far: " .. table.concat(sched.runs, ", ")) or ""
      local err = sched.error ~= "" and ("\nlast run: " .. sched.error) or ""
      return { content = "schedule_id: " .. sched.id .. "\nschedule: " .. sched.schedule .. "\nnext run: " .. sched.next ..
        " (in " .. sched.next_in .. ")" .. runs .. err, details = sched }
    end
    local r, err = sub.get(args.agent_id, { wait = args.wait })
    if not r then error(err, 0) end
    return { content = report(r), details = r }
  end,
}

pi.register_tool {
  name = "steer_subagent",
  description = "Send a message to a running agent; it reads it after its current tool calls.",
  parameters = {
    type = "object",
    properties = { agent_id = { type = "string" }, message = { type = "string" } },
    required = { "agent_id", "message" },
  },
  execute = function(args)
    local ok, err = sub.steer(args.agent_id, args.message)
    if not ok then error(err, 0) end
    return "delivered to " .. args.agent_id
  end,
}

if self then return end -- /agents belongs to the top-level session

-- list_agents is every child with its status and session file, then the types.
local function list_agents()
  local lines = {}
  for _, r in ipairs(sub.list()) do
    lines[#lines + 1] = r.status .. "  " .. progress_line(r) ..
      ((r.session_file and r.session_file ~= "") and ("\n    " .. r.session_file) or "")
  end
  if #lines == 0 then lines[1] = "no agents in this session" end
  local scheds = sub.schedules()
  if #scheds > 0 then
    local s = { "Scheduled (/agents cancel ID drops one):" }
    for _, x in ipairs(scheds) do s[#s + 1] = "  " .. x.line end
    lines[#lines + 1] = table.concat(s, "\n")
  end
  lines[#lines + 1] = "Types:\n" .. type_lines()
  pi.notify(table.concat(lines, "\n"), "info")
end

-- view_agent shows a child's transcript on screen; with no id, the user picks the child.
local function view_agent(id)
  if not id then
    local list, options = sub.list(), {}
    for i = #list, 1, -1 do options[#options + 1] = list[i].status .. "  " .. progress_line(list[i]) end
    local choice = pi.select("Which agent's transcript? (newest first)", options)
    if not choice then return end
    id = choice:match("^%S+%s+(%S+)")
  end
  local ok, err = sub.view(id)
  if not ok then pi.notify(err, "error") end
end

local cancel_hint = sub.scheduling() and " | cancel SCHEDULE" or ""
pi.register_command {
  name = "agents",
  description = "This session's agents: pick one to read its transcript; /agents list, /agents ID, /agents abort ID" ..
    (sub.scheduling() and ", /agents cancel SCHEDULE" or ""),
  argument_hint = "[list | ID | abort ID" .. cancel_hint .. "]",
  run = function(args)
    local id = args:match("^%s*abort%s+(%S+)")
    if id then
      local ok, err = sub.abort(id)
      pi.notify(ok and ("aborting " .. id) or err, ok and "info" or "error")
      return
    end
    id = args:match("^%s*cancel%s+(%S+)")
    if id then
      local ok, err = sub.cancel(id)
      pi.notify(ok and ("cancelled " .. id .. ": it starts no more runs") or err, ok and "info" or "error")
      return
    end
    local word = args:match("^%s*(%S+)")
    if word == "list" or not sub.can_view() or (not word and #sub.list() == 0) then return list_agents() end
    view_agent(word)
  end,
}
