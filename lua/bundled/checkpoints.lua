-- checkpoints.lua: the project's files follow the session tree, whatever tool changed them.
--
-- Before the first call of a turn that may change files (any tool that does not declare
-- itself read-only: write, edit, bash, an MCP or script tool, the Agent tool) the files are
-- snapshotted (pi.checkpoint, a store under $PI_HOME that never touches the user's .git);
-- after the turn they are snapshotted again, and when they changed a custom entry
-- "checkpoint" links that point of the session to both snapshots. pi itself ignores such
-- entries, and a session opened later (-c, --fork, pi attach) finds them again, so every
-- point of the tree knows its files.
--
-- /undo puts the files back as they were before the last answer that changed them (all its
-- turns), /redo re-applies it; each tells the model in a short note which files went back.
-- /tree and /fork to an earlier point ask whether the files go back too ([checkpoints]
-- tree_files = "ask", "conversation" or "files"). `pi checkpoints list|diff|restore|prune` works
-- from the command line. A restore that would overwrite changes made since the snapshot (by
-- hand, or by a program outside pi) asks first, and is refused where nobody can answer unless
-- forced (/undo --force). Other scripts may cancel a restore (pi.on("before_restore")) and hear
-- of one that was done ("restore").
--
-- Entry data: {kind, state, ...}: state is the snapshot the files had after the entry.
--   turn    {run, before, after}   one turn that changed files (run: one prompt's answer)
--   undo    {run}                  the run's changes undone (state = its first before)
--   redo    {run}                  re-applied (state = its last after)
--   restore {}                     the files set by /tree, /fork or a forced move
--
-- The script sleeps until one of the @wake lines below fires, so a run that changes no file
-- pays nothing for it. It may wake in the middle of a run, at the first call that may change
-- files: that run's agent_start and turn_start went by before it listened.
--
-- @wake tool_call writes
-- @wake session_before_tree
-- @wake session_before_fork
-- @wake /undo put the files back as before the last answer that changed them (--force: over hand edits)
-- @wake /redo re-apply the file changes /undo took back
-- @wake pi checkpoints the project's file snapshots

local cfg = pi.config("checkpoints") or {}
local store_opts = { max_file_size = cfg.max_file_size, max_files = cfg.max_files }

local run_id = nil       -- the prompt's answer in progress
local turn_before = nil  -- snapshot before the current turn's first call that may change files
local pending = nil      -- a future resolved when the last turn's after-snapshot is recorded
local took_snapshot = false
local pruned = false

local function entries(opts)
  opts = opts or {}
  opts.custom_type = "checkpoint"
  return pi.session_entries(opts) or {}
end

-- replay walks the checkpoint entries of a path and returns the file state at its end, the
-- runs that can be undone (oldest first) and those that can be redone (most recent last).
local function replay(es)
  local runs, redo, state = {}, {}, nil
  for _, e in ipairs(es) do
    local d = e.data or {}
    if d.kind == "turn" then
      local top = runs[#runs]
      if top and top.run == d.run then
        top.after = d.after
      else
        runs[#runs + 1] = { run = d.run, before = d.before, after = d.after }
        redo = {}
      end
    elseif d.kind == "undo" and #runs > 0 then
      redo[#redo + 1] = table.remove(runs)
    elseif d.kind == "redo" and #redo > 0 then
      runs[#runs + 1] = table.remove(redo)
    end
    state = d.state or state
  end
  return state, runs, redo
end

-- base is the files' state before the session's first change: the state of a point of the
-- tree that no checkpoint entry precedes.
local function base()
  for _, e in ipairs(entries({ all = true })) do
    if e.data and e.data.kind == "turn" then return e.data.before end
  end
  return nil
end

local function state_at(leaf)
  local state = replay(entries({ leaf = leaf }))
  return state or base()
end

local function shortid(id) return id and id:sub(1, 12) or "none" end

-- summary is "M a.go +3 -1, D old.txt, A new/ (binary)", at most limit files.
local function summary(changes, limit)
  limit = limit or 12
  local parts, letter = {}, { added = "A", deleted = "D", modified = "M" }
  for i, c in ipairs(changes) do
    if i > limit then
      parts[#parts + 1] = string.format("and %d more", #changes - limit)
      break
    end
    local s = letter[c.op] .. " " .. c.path
    if c.binary then
      s = s .. " (binary)"
    elseif c.added > 0 or c.removed > 0 then
      s = s .. string.format(" +%d -%d", c.added, c.removed)
    end
    parts[#parts + 1] = s
  end
  return table.concat(parts, ", ")
end

local function file_changes(changes)
  local out = {}
  for _, c in ipairs(changes) do
    if c.kind ~= "dir" then out[#out + 1] = c end
  end
  return out
end

-- restore sets the files to target; expected is where the session left them. It asks other
-- scripts (before_restore), and the user when hand changes would be overwritten. It returns
-- the restore's result, or nil and why.
local function restore(target, expected, why, force)
  local ev = pi.emit("before_restore", { target = target, expected = expected, reason = why })
  if ev.cancel then
    return nil, "cancelled by " .. tostring(ev.script) .. (ev.reason and (": " .. tostring(ev.reason)) or "")
  end
  local res, err, partial = pi.checkpoint.restore(target, { expected = expected, force = force, note = why,
    max_file_size = store_opts.max_file_size, max_files = store_opts.max_files })
  if not res and partial and #partial.conflicts > 0 then
    local list = summary(partial.conflicts, 8)
    if not pi.confirm("Overwrite changes made since the snapshot?",
        "These files changed since pi last saw them and would be overwritten: " .. list) then
      return nil, "refused: files changed since the snapshot would be overwritten (" .. list .. "); use --force to overwrite"
    end
    res, err = pi.checkpoint.restore(target, { expected = expected, force = true, note = why,
      max_file_size = store_opts.max_file_size, max_files = store_opts.max_files })
  end
  if not res then return nil, err end
  pi.emit("restore", { target = target, reason = why, changes = res.changes })
  return res
end

local function tell_model(text)
  pi.send_message({ custom_type = "checkpoint", content = text, display = false })
end

-- ── snapshots around the turns ───────────────────────────────────────────────────────────

local function new_run_id() return string.format("%d-%d", os.time(), math.random(1, 1e9)) end

pi.on("agent_start", function() run_id = new_run_id() end)

pi.on("turn_start", function() turn_before = nil end)

local too_large = false -- the project holds more than max_files paths: said once, then quiet

pi.on("tool_call", function(ev)
  if turn_before or ev.read_only or too_large then return end
  run_id = run_id or new_run_id() -- woken by this call: the run's agent_start went by
  if pending then pending:wait(60) end -- the last turn's after-snapshot first: it must not see this call's changes
  local snap, err = pi.checkpoint.snapshot({ note = "before " .. ev.tool_name, max_file_size = store_opts.max_file_size, max_files = store_opts.max_files })
  if not snap then
    too_large = tostring(err):find("too many files", 1, true) ~= nil
    pi.notify("checkpoints: no snapshot before " .. ev.tool_name .. ": " .. tostring(err) ..
      (too_large and " (no more snapshots in this session; [checkpoints] max_files raises the limit)" or ""), "warning")
    return
  end
  turn_before = snap
  took_snapshot = true
end)

pi.on("turn_end", function()
  if not turn_before then return end
  local before, run = turn_before, run_id
  turn_before = nil
  local done = pi.future()
  pending = done
  local after, err = pi.checkpoint.snapshot({ note = "after turn", max_file_size = store_opts.max_file_size, max_files = store_opts.max_files })
  if after and after.id ~= before.id then
    local skipped = {}
    for _, s in ipairs(after.skipped) do skipped[#skipped + 1] = s.path .. " (" .. s.reason .. ")" end
    if #skipped > 0 then
      pi.notify("checkpoints: not snapshotted: " .. table.concat(skipped, ", "), "warning")
    end
    pi.append_entry("checkpoint", { kind = "turn", run = run, before = before.id, after = after.id,
      state = after.id, skipped = pi.array(skipped) })
  elseif not after then
    pi.notify("checkpoints: no snapshot after the turn: " .. tostring(err), "warning")
  end
  done:resolve(true)
  if pending == done then pending = nil end
end)

pi.on("agent_end", function()
  if pending then pending:wait(60) end
  if took_snapshot and not pruned then
    pruned = true
    pi.checkpoint.prune({ max_age_days = cfg.max_age_days, max_bytes = (cfg.max_total_mb or 1024) * 1048576 })
  end
end)

-- ── /undo and /redo ──────────────────────────────────────────────────────────────────────

local function undo_redo(kind, args)
  if not pi.is_idle() then return pi.notify("/" .. kind .. ": wait for the answer to finish (or Escape)", "warning") end
  if pending then pending:wait(60) end
  local force = args:find("%-%-force") ~= nil
  local state, runs, redo = replay(entries())
  local run = redo[#redo]
  if kind == "undo" then run = runs[#runs] end
  if not run then
    return pi.notify("/" .. kind .. ": no file changes to " .. kind .. " on this branch", "info")
  end
  local target = run.after
  if kind == "undo" then target = run.before end
  local res, err = restore(target, state or run.after, kind, force)
  if not res then return pi.notify("/" .. kind .. ": " .. err, "error") end
  pi.append_entry("checkpoint", { kind = kind, run = run.run, state = target })
  local files = file_changes(res.changes)
  local what = #files > 0 and summary(files) or "no file differed"
  pi.notify(string.format("/%s: %d file(s) %s: %s", kind, #files,
    kind == "undo" and "put back as before that answer" or "re-applied", what), "info")
  if #files > 0 then
    tell_model(kind == "undo"
      and ("[checkpoints] The user undid the file changes of an earlier answer; these files are back as they were before it: "
        .. summary(files, 40) .. ". Do not assume those edits are still there; read a file before editing it.")
      or ("[checkpoints] The user re-applied the file changes of an earlier answer: " .. summary(files, 40) .. "."))
  end
end

pi.register_command({ name = "undo", description = "put the files back as before the last answer that changed them (--force: over hand edits)",
  run = function(args) undo_redo("undo", args or "") end })
pi.register_command({ name = "redo", description = "re-apply the file changes /undo took back",
  run = function(args) undo_redo("redo", args or "") end })

-- ── /tree and /fork ──────────────────────────────────────────────────────────────────────

local tree_move = nil -- {restore = bool, from = state} between session_before_* and the move

local function ask_files(target_leaf)
  local now = state_at(pi.session_leaf())
  local there = state_at(target_leaf)
  if not there or there == now then return { restore = false } end
  local mode = cfg.tree_files or "ask"
  if mode == "files" then return { restore = true, from = now, there = there } end
  if mode == "conversation" then return { restore = false, from = now } end
  local choice = pi.select("The files there differ from the files now", { "conversation and files", "conversation only", "cancel" })
  if choice == nil or choice == "cancel" then return nil end
  return { restore = choice == "conversation and files", from = now, there = there }
end

pi.on("session_before_tree", function(ev)
  tree_move = ask_files(ev.target_id)
  if tree_move == nil then return { cancel = true } end
end)

pi.on("session_tree", function(ev)
  local move = tree_move
  tree_move = nil
  if not move then return end
  local there = state_at(ev.new_leaf_id)
  if move.restore and there then
    local res, err = restore(there, move.from, "tree")
    if not res then
      pi.notify("/tree: the files stay as they were: " .. err, "error")
      pi.append_entry("checkpoint", { kind = "restore", state = move.from })
      return
    end
    pi.notify(string.format("/tree: %d file(s) set to that point: %s", #file_changes(res.changes), summary(file_changes(res.changes))), "info")
    pi.append_entry("checkpoint", { kind = "restore", state = there })
  elseif move.from then
    pi.append_entry("checkpoint", { kind = "restore", state = move.from }) -- the files did not move with the conversation
  end
end)

pi.on("session_before_fork", function(ev)
  if ev.position ~= "before" then return end -- /clone keeps the leaf: its files are the files now
  tree_move = ask_files(ev.entry_id)
  if tree_move == nil then return { cancel = true } end
  tree_move.fork = true
end)

pi.on("session_start", function(ev)
  local move = tree_move
  if ev.reason ~= "fork" or not move or not move.fork then return end
  tree_move = nil
  local there = state_at(pi.session_leaf())
  if move.restore and there and there ~= move.from then
    local res, err = restore(there, move.from, "fork")
    if not res then
      pi.notify("/fork: the files stay as they were: " .. err, "error")
      pi.append_entry("checkpoint", { kind = "restore", state = move.from })
      return
    end
    pi.notify(string.format("/fork: %d file(s) set to that point", #file_changes(res.changes)), "info")
    pi.append_entry("checkpoint", { kind = "restore", state = there })
  elseif move.from then
    pi.append_entry("checkpoint", { kind = "restore", state = move.from })
  end
end)

-- ── pi checkpoints ───────────────────────────────────────────────────────────────────────

local usage = [[
pi checkpoints list                    the project's snapshots, oldest first (every session's)
pi checkpoints diff ID [ID2]           what changed from snapshot ID to ID2 (default: the files now)
pi checkpoints restore ID [--force] [--dry-run]
                                       set the files to snapshot ID; refused when files changed
                                       since the newest snapshot would be overwritten, unless --force
pi checkpoints prune                   drop snapshots by [checkpoints] max_age_days and max_total_mb]]

local function resolve(io, prefix)
  if not prefix then io.eprint(usage) return nil end
  local id, err = pi.checkpoint.resolve(prefix)
  if not id then io.eprint("pi checkpoints: " .. err) end
  return id
end

local function print_changes(out, changes)
  for _, c in ipairs(changes) do
    local detail = c.binary and "binary" or string.format("+%d -%d", c.added, c.removed)
    out(string.format("%-8s %-8s %s", c.op, detail, c.path))
  end
end

local sub = {}

function sub.list(args, io)
  local recs, err = pi.checkpoint.list()
  if not recs then io.eprint("pi checkpoints: " .. err) return 1 end
  for _, r in ipairs(recs) do
    io.print(string.format("%s  %s  %s", shortid(r.id), os.date("%Y-%m-%d %H:%M:%S", math.floor(r.time)), r.note))
  end
  return 0
end

function sub.diff(args, io)
  local from = resolve(io, args[2])
  if not from then return 2 end
  local to = nil
  if args[3] then
    to = resolve(io, args[3])
    if not to then return 2 end
  end
  local changes, err = pi.checkpoint.diff(from, to, store_opts)
  if not changes then io.eprint("pi checkpoints: " .. err) return 1 end
  print_changes(io.print, changes)
  return 0
end

function sub.restore(args, io)
  local id = resolve(io, args[2])
  if not id then return 2 end
  local force, dry = false, false
  for i = 3, #args do
    if args[i] == "--force" then force = true elseif args[i] == "--dry-run" then dry = true
    else io.eprint("pi checkpoints restore: unknown option " .. args[i]) return 2 end
  end
  local recs = pi.checkpoint.list() or {}
  local expected = #recs > 0 and recs[#recs].id or nil
  local ev = pi.emit("before_restore", { target = id, expected = expected, reason = "command" })
  if ev.cancel then io.eprint("pi checkpoints: restore cancelled by " .. tostring(ev.script)) return 1 end
  local res, err, partial = pi.checkpoint.restore(id, { expected = expected, force = force, dry_run = dry,
    note = "pi checkpoints restore", max_file_size = store_opts.max_file_size, max_files = store_opts.max_files })
  if not res then
    if partial and #partial.conflicts > 0 then
      io.eprint("pi checkpoints: refused: these files changed since the newest snapshot and would be overwritten (--force overwrites):")
      print_changes(io.eprint, partial.conflicts)
    else
      io.eprint("pi checkpoints: " .. err)
    end
    return 1
  end
  if not dry then pi.emit("restore", { target = id, reason = "command", changes = res.changes }) end
  print_changes(io.print, res.changes)
  io.print(string.format("%s %d path(s); the files before are snapshot %s", dry and "would change" or "changed",
    #res.changes, shortid(res.before)))
  return 0
end

function sub.prune(args, io)
  local res, err = pi.checkpoint.prune({ max_age_days = cfg.max_age_days, max_bytes = (cfg.max_total_mb or 1024) * 1048576 })
  if not res then io.eprint("pi checkpoints: " .. err) return 1 end
  io.print(string.format("removed %d snapshot(s), %d object(s), %d bytes; %d bytes left", res.snapshots, res.objects, res.freed, res.left))
  return 0
end

pi.register_subcommand({ name = "checkpoints", description = "the project's file snapshots",
  run = function(args, io)
    local fn = sub[args[1] or ""]
    if not fn then
      if args[1] == nil or args[1] == "help" then io.print(usage) return 0 end
      io.eprint("pi checkpoints: unknown command " .. args[1] .. "\n" .. usage)
      return 2
    end
    return fn(args, io)
  end })
