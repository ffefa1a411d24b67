-- templates.lua: prompt templates for pi, written on the public pi API.
--
-- Every .md file in $PI_HOME/prompts and in the project's .pi/prompts is a template named
-- after the file: typing /name args sends the file's text with the arguments filled in.
--   $1, $2, …        one argument (missing ones are empty)
--   $@, $ARGUMENTS   all arguments, joined by spaces
--   ${@:N}           arguments from the Nth on;  ${@:N:L}  L arguments from the Nth
-- Arguments split at spaces and tabs; 'single' or "double" quotes keep spaces together.
-- Values are inserted as they are: a "$1" inside an argument stays "$1".
-- Frontmatter: description (else the first line is used) and argument-hint (for completion).
-- When both folders have a template of one name, the one in $PI_HOME wins, as in pi.

local function warn(msg) pi.notify("prompt template " .. msg, "warning") end

-- parse_args splits an argument string like pi does: no escapes, quotes group.
local function parse_args(s)
  local args, cur, quote = {}, {}, nil
  for i = 1, #s do
    local c = s:sub(i, i)
    if quote then
      if c == quote then quote = nil else cur[#cur + 1] = c end
    elseif c == '"' or c == "'" then
      quote = c
    elseif c == " " or c == "\t" then
      if #cur > 0 then args[#args + 1] = table.concat(cur); cur = {} end
    else
      cur[#cur + 1] = c
    end
  end
  if #cur > 0 then args[#args + 1] = table.concat(cur) end
  return args
end

local function slice(args, from, count)
  if from < 1 then from = 1 end
  local last = count and (from + count - 1) or #args
  local out = {}
  for i = from, math.min(last, #args) do out[#out + 1] = args[i] end
  return table.concat(out, " ")
end

-- substitute fills placeholders in one pass over the template, so nothing an argument brings
-- in is ever substituted again.
local function substitute(content, args)
  local out, i = {}, 1
  local all = table.concat(args, " ")
  while true do
    local s = content:find("$", i, true)
    if not s then out[#out + 1] = content:sub(i) break end
    out[#out + 1] = content:sub(i, s - 1)
    local at = s + 1
    local digits = content:match("^%d+", at)
    local n1, n2 = content:match("^{@:(%d+):(%d+)}", at)
    local n = content:match("^{@:(%d+)}", at)
    if digits then
      out[#out + 1] = args[tonumber(digits)] or ""
      i = at + #digits
    elseif n1 then
      out[#out + 1] = slice(args, tonumber(n1), tonumber(n2))
      i = at + #n1 + #n2 + 5
    elseif n then
      out[#out + 1] = slice(args, tonumber(n), nil)
      i = at + #n + 4
    elseif content:sub(at, at + 8) == "ARGUMENTS" then
      out[#out + 1] = all
      i = at + 9
    elseif content:sub(at, at) == "@" then
      out[#out + 1] = all
      i = at + 1
    else
      out[#out + 1] = "$"
      i = at
    end
  end
  return table.concat(out)
end

local function first_line(body)
  local line = body:match("^%s*([^\n]*%S)")
  if not line then return "" end
  if #line > 60 then line = line:sub(1, 60) .. "..." end
  return line
end

local templates = {}
-- load_file makes path (<name>.md) the template /name, unless the name is taken.
local function load_file(path)
  local name = path:match("([^/]+)%.md$")
  local text, err = pi.read_file(path)
  if not text then
    warn(path .. ": cannot read: " .. tostring(err))
  elseif templates[name] then
    warn(path .. ": /" .. name .. " is already defined by " .. templates[name].file .. "; this one is ignored")
  else
    local meta, body = pi.parse_frontmatter(text)
    meta = meta or {}
    local description = type(meta.description) == "string" and meta.description or first_line(body)
    body = body:gsub("^%s+", ""):gsub("%s+$", "")
    templates[name] = { file = path, body = body, description = description }
    local ok = pcall(pi.register_command, {
      name = name, description = description,
      argument_hint = type(meta["argument-hint"]) == "string" and meta["argument-hint"] or nil,
    })
    if not ok then warn(path .. ": /" .. name .. " cannot be a command name") end
  end
end

local function load_dir(dir)
  if not dir or not pi.stat(dir) then return end
  for _, path in ipairs(pi.glob(dir .. "/*.md") or {}) do load_file(path) end
end

-- Paths the scripts' resources_discover handlers add (this late handler runs after theirs):
-- a folder of templates or one .md file.
pi.on("resources_discover", function(ev)
  for _, path in ipairs(ev.prompt_paths or {}) do
    if path:sub(-3) == ".md" then load_file(path) else load_dir(path) end
  end
end, { late = true })

if pi.pi_home() ~= "" then load_dir(pi.pi_home() .. "/prompts") end
load_dir(pi.cwd() .. "/.pi/prompts")
for _, pkg in ipairs(pi.package_dirs()) do load_dir(pkg .. "/prompts") end

pi.on("input", function(ev)
  local name, rest = ev.text:match("^/([^%s]+)[ \t]?(.*)$")
  local t = name and templates[name]
  if not t then return nil end
  return { text = substitute(t.body, parse_args(rest)) }
end, { late = true })
