-- permissions.lua: pi's permission policy, written on the public pi API.
--
-- Every tool call passes this guard (the last tool_call handler, so it sees the arguments as
-- the other hooks left them). It decides, from pi.permissions() — [permissions] of pi.toml,
-- --permissions, and the answers the user asked pi to remember — one of:
--   deny   refuse the call, with a reason the model can act on;
--   ask    let the user decide (pi.ask_permission: yes, no, always in this session, always in
--          this project; in print mode refused unless --yes);
--   allow  run it.
-- Rules are "tool" or "tool:pattern". For bash (and powershell) the pattern is a command
-- prefix matched at a word boundary ("bash:git status" covers "git status -s"); for tools
-- with a path (write, edit, read…) it is a glob on the path relative to the project ("*"
-- within a folder, "**" across folders, "?" one character). deny beats ask, ask beats allow,
-- and any rule beats the mode. The mode decides the rest: auto allows everything; ask allows
-- read-only tools and asks about the others; read-only allows read-only tools and refuses
-- the others.
--
-- A bash allow rule applies only to a single command: a command line with ; & | ` $( < > or a
-- newline is never allowed by prefix (it could chain anything after the prefix). deny and ask
-- rules look at every part of such a line. This is a guard against mistakes, not a sandbox:
-- a command can still do anything its program can (a script, an alias, `sh -c`).
--
-- The guard approves what it allows by returning {allow = true}; with permissions on, pi runs
-- no call that no guard approved, so switching this script off refuses everything.

local function trim(s) return (s:gsub("^%s+", ""):gsub("%s+$", "")) end

-- shell_tool says which tools take a command line.
local function shell_tool(name) return name == "bash" or name == "powershell" end

local function has_control(cmd)
  return cmd:find("[;&|`<>\n]") ~= nil or cmd:find("$(", 1, true) ~= nil
end

-- parts splits a command line at ; & | and newlines, for deny and ask rules.
local function parts(cmd)
  local out = {}
  for part in cmd:gsub("%$%(", ";"):gsub("[`()]", ";"):gmatch("[^;&|\n]+") do
    part = trim(part)
    if part ~= "" then out[#out + 1] = part end
  end
  return out
end

local function has_prefix(cmd, prefix)
  prefix = trim(prefix)
  return cmd == prefix or (cmd:sub(1, #prefix) == prefix and cmd:sub(#prefix + 1, #prefix + 1):match("%s") ~= nil)
end

-- clean_path makes a path relative to the project when it is inside it, with . and ..
-- resolved, so that "./a/../.git/config" meets a rule for ".git/**".
local function clean_path(p, cwd)
  p = p:gsub("^@", "")
  if p:sub(1, 2) == "~/" then p = (os.getenv("HOME") or "") .. p:sub(2) end
  if p:sub(1, 1) ~= "/" then p = cwd .. "/" .. p end
  local segs = {}
  for seg in p:gmatch("[^/]+") do
    if seg == ".." then segs[#segs] = nil elseif seg ~= "." then segs[#segs + 1] = seg end
  end
  local abs = "/" .. table.concat(segs, "/")
  if abs:sub(1, #cwd + 1) == cwd .. "/" then return abs:sub(#cwd + 2) end
  return abs
end

local function split(s)
  local out = {}
  for seg in s:gmatch("[^/]+") do out[#out + 1] = seg end
  return out
end

-- segment_pattern turns one glob segment into an anchored Lua pattern.
local function segment_pattern(g)
  local out = g:gsub("[%^%$%(%)%%%.%[%]%+%-]", "%%%0"):gsub("%*", "[^/]*"):gsub("%?", "[^/]")
  return "^" .. out .. "$"
end

local function glob_match(gsegs, i, psegs, j)
  if i > #gsegs then return j > #psegs end
  if gsegs[i] == "**" then
    for k = j, #psegs + 1 do
      if glob_match(gsegs, i + 1, psegs, k) then return true end
    end
    return false
  end
  if j > #psegs or not psegs[j]:match(segment_pattern(gsegs[i])) then return false end
  return glob_match(gsegs, i + 1, psegs, j + 1)
end

local function path_matches(glob, path)
  if (glob:sub(1, 1) == "/") ~= (path:sub(1, 1) == "/") then return false end
  return glob_match(split(glob), 1, split(path), 1)
end

-- matches says whether rule covers the call; kind is "allow", "ask" or "deny".
local function matches(rule, ev, kind)
  local tool, pattern = rule:match("^([^:]+):(.*)$")
  tool = tool or rule
  if tool ~= ev.tool_name and tool ~= "*" then return false end
  if not pattern then return true end
  local input = ev.input or {}
  if shell_tool(ev.tool_name) and type(input.command) == "string" then
    local cmd = trim(input.command)
    if kind == "allow" then return not has_control(cmd) and has_prefix(cmd, pattern) end
    for _, part in ipairs(parts(cmd)) do
      if has_prefix(part, pattern) then return true end
    end
    return false
  end
  if type(input.path) == "string" then return path_matches(trim(pattern), clean_path(input.path, pi.cwd())) end
  return false
end

local function first_match(rules, ev, kind)
  for _, rule in ipairs(rules or {}) do
    if matches(rule, ev, kind) then return rule end
  end
  return nil
end

local function decide(p, ev)
  local rule = first_match(p.deny, ev, "deny")
  if rule then return "deny", "the rule deny = \"" .. rule .. "\" of [permissions] refuses it" end
  if first_match(p.ask, ev, "ask") then return "ask" end
  if first_match(p.allow, ev, "allow") then return "allow" end
  if ev.read_only or p.mode == "auto" then return "allow" end
  if p.mode == "read-only" then
    return "deny", "pi runs in read-only mode, which refuses tools that can change files or run commands. " ..
      "Answer from what you can read, and say what you would change"
  end
  return "ask"
end

-- summary is the call in one line for the question.
local function summary(ev)
  local input = ev.input or {}
  if type(input.command) == "string" then return input.command end
  if type(input.path) == "string" then return input.path end
  local keys = {}
  for k, v in pairs(input) do
    if type(v) ~= "table" then keys[#keys + 1] = k .. "=" .. tostring(v) end
  end
  table.sort(keys)
  local s = table.concat(keys, " ")
  if #s > 200 then s = s:sub(1, 200) .. "…" end
  return s
end

-- remembered is what "always" keeps: a shell command as it is, any other tool whole.
local function remembered(ev)
  local input = ev.input or {}
  if shell_tool(ev.tool_name) and type(input.command) == "string" then
    return ev.tool_name .. ":" .. trim(input.command)
  end
  return ev.tool_name
end

local function guard(ev)
  local verdict, why = decide(pi.permissions(), ev)
  if verdict == "deny" then
    return { block = true, reason = "Tool \"" .. ev.tool_name .. "\" was not run: " .. why .. "." }
  end
  if verdict == "ask" then
    local ok, reason = pi.ask_permission({ tool = ev.tool_name, summary = summary(ev), rule = remembered(ev) })
    if not ok then return { block = true, reason = reason } end
  end
  return { allow = true }
end

-- With mode auto and no rules there is nothing to decide, and pi does not ask for approval.
local p = pi.permissions()
if p.mode ~= "auto" or #(p.allow or {}) + #(p.ask or {}) + #(p.deny or {}) > 0 then
  pi.on("tool_call", guard, { guard = true, late = true })
end
