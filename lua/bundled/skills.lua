-- skills.lua: Agent Skills (agentskills.io) for pi, written on the public pi API.
--
-- A skill is a folder with a SKILL.md file: frontmatter with a name and a description, then
-- instructions. pi lists the skills in the system prompt (when the read tool is active) so the
-- model can read one when a task fits, and /skill:name args pastes a skill into the prompt.
--
-- Where skills are found, first match of a name wins:
--   $PI_HOME/skills, ~/.agents/skills, then .pi/skills and .agents/skills in the working
--   directory and each parent up to the git root.
-- A folder holding SKILL.md is one skill (nothing below it is searched); other folders are
-- searched further. Plain .md files directly in $PI_HOME/skills or .pi/skills are skills too.
-- Packages' skills/ folders and the paths of resources_discover handlers join them.
-- Copy this file to $PI_HOME/lua/skills.lua to change it, or switch it off in pi.toml.

local MAX_NAME, MAX_DESCRIPTION = 64, 1024

local function warn(path, msg)
  pi.notify("skill " .. path .. ": " .. msg, "warning")
end

-- Path helpers use plain find: Lua patterns are slow on long paths in gopher-lua.
local function last_slash(p)
  local i = 0
  while true do
    local j = p:find("/", i + 1, true)
    if not j then return i end
    i = j
  end
end
local function dirname(p)
  local i = last_slash(p)
  if i == 0 then return "." end
  if i == 1 then return "/" end
  return p:sub(1, i - 1)
end
local function basename(p) return p:sub(last_slash(p) + 1) end
local function depth(p)
  local n, i = 0, 0
  while true do
    i = p:find("/", i + 1, true)
    if not i then return n end
    n = n + 1
  end
end

local function xml_escape(s)
  return (s:gsub("[&<>\"']", { ["&"] = "&amp;", ["<"] = "&lt;", [">"] = "&gt;", ['"'] = "&quot;", ["'"] = "&apos;" }))
end

-- name_problems lists how a name breaks the spec; each is only a warning.
local function name_problems(name, dir_name)
  local out = {}
  if dir_name and name ~= dir_name then
    out[#out + 1] = string.format("name %q does not match its folder %q", name, dir_name)
  end
  if #name > MAX_NAME then
    out[#out + 1] = string.format("name is longer than %d characters (%d)", MAX_NAME, #name)
  end
  if not name:match("^[a-z0-9-]+$") then
    out[#out + 1] = "name has characters other than a-z, 0-9 and hyphens"
  end
  if name:sub(1, 1) == "-" or name:sub(-1) == "-" then
    out[#out + 1] = "name starts or ends with a hyphen"
  end
  if name:find("--", 1, true) then
    out[#out + 1] = "name has consecutive hyphens"
  end
  return out
end

-- load_skill reads one skill file; root_file marks a plain .md directly in a skills root,
-- whose name comes from the file, not the folder.
local function load_skill(path, root_file)
  local text, err = pi.read_file(path)
  if not text then
    warn(path, "cannot read: " .. tostring(err))
    return nil
  end
  local meta = pi.parse_frontmatter(text) or {}
  local folder = basename(dirname(path))
  local default_name = root_file and basename(path):sub(1, -4) or folder
  local name = type(meta.name) == "string" and meta.name ~= "" and meta.name or default_name
  for _, problem in ipairs(name_problems(name, not root_file and folder or nil)) do
    warn(path, problem)
  end
  local description = meta.description
  if type(description) ~= "string" or description:match("^%s*$") then
    warn(path, "description is required; skill not loaded")
    return nil
  end
  if #description > MAX_DESCRIPTION then
    warn(path, string.format("description is longer than %d characters (%d)", MAX_DESCRIPTION, #description))
  end
  return {
    name = name,
    description = description,
    file = path,
    base_dir = dirname(path),
    hidden = meta["disable-model-invocation"] == true,
  }
end

-- find_in_root lists the skill files under one root, shallowest first.
local function find_in_root(root, allow_root_files)
  local found = {}
  if not pi.stat(root) then return found end
  local files = pi.glob(root .. "/**/SKILL.md") or {}
  local depths = {}
  for _, f in ipairs(files) do depths[f] = depth(f) end
  table.sort(files, function(a, b)
    if depths[a] ~= depths[b] then return depths[a] < depths[b] end
    return a < b
  end)
  local roots = {} -- folders already taken by a skill: nothing below them counts
  for _, f in ipairs(files) do
    local dir, inside = dirname(f), false
    if not f:find("/node_modules/", 1, true) then
      for taken in pairs(roots) do
        if dir == taken or dir:sub(1, #taken + 1) == taken .. "/" then inside = true break end
      end
      if not inside then
        roots[dir] = true
        found[#found + 1] = { path = f }
      end
    end
  end
  if allow_root_files and not roots[root] then
    for _, f in ipairs(pi.glob(root .. "/*.md") or {}) do
      if basename(f) ~= "SKILL.md" then found[#found + 1] = { path = f, root_file = true } end
    end
  end
  return found
end

-- skill_roots lists where to look, in precedence order, without duplicates.
local function skill_roots()
  local roots, seen = {}, {}
  local function add(dir, root_files)
    if dir and not seen[dir] then
      seen[dir] = true
      roots[#roots + 1] = { dir = dir, root_files = root_files }
    end
  end
  local home = os.getenv("HOME")
  if pi.pi_home() ~= "" then add(pi.pi_home() .. "/skills", true) end
  if home then add(home .. "/.agents/skills", false) end
  for _, pkg in ipairs(pi.package_dirs()) do add(pkg .. "/skills", true) end
  local dir = pi.cwd()
  while dir and dir ~= "" do
    add(dir .. "/.pi/skills", dir == pi.cwd())
    add(dir .. "/.agents/skills", false)
    if pi.stat(dir .. "/.git") then break end
    local parent = dirname(dir)
    if parent == dir or parent == "." then break end
    dir = parent
  end
  return roots
end

local skills, by_name = {}, {}
-- add_skills loads the skill files of entries ({path, root_file}) and gives each a /skill:
-- command; a name already taken keeps its first skill.
local function add_skills(entries)
  for _, entry in ipairs(entries) do
    local s = load_skill(entry.path, entry.root_file)
    if s then
      local first = by_name[s.name]
      if first then
        warn(s.file, string.format("name %q is taken by %s; this one is ignored", s.name, first.file))
      else
        by_name[s.name] = s
        skills[#skills + 1] = s
        local ok = pcall(pi.register_command, { name = "skill:" .. s.name, description = s.description })
        if not ok then warn(s.file, "no /skill: command: the name cannot be a command name") end
      end
    end
  end
end

for _, root in ipairs(skill_roots()) do add_skills(find_in_root(root.dir, root.root_files)) end

-- Paths the scripts' resources_discover handlers add (this late handler runs after theirs): a
-- folder is searched like a skills root, a file is one skill.
pi.on("resources_discover", function(ev)
  for _, path in ipairs(ev.skill_paths or {}) do
    if path:sub(-3) == ".md" then
      add_skills({ { path = path, root_file = basename(path) ~= "SKILL.md" } })
    else
      add_skills(find_in_root(path, true))
    end
  end
end, { late = true })

-- prompt_section is what the model sees; skills it may not pick itself are left out.
local function prompt_section()
  local lines = {}
  for _, s in ipairs(skills) do
    if not s.hidden then
      lines[#lines + 1] = "  <skill>"
      lines[#lines + 1] = "    <name>" .. xml_escape(s.name) .. "</name>"
      lines[#lines + 1] = "    <description>" .. xml_escape(s.description) .. "</description>"
      lines[#lines + 1] = "    <location>" .. xml_escape(s.file) .. "</location>"
      lines[#lines + 1] = "  </skill>"
    end
  end
  if #lines == 0 then return "" end
  return "\n\nSkills hold extra instructions for particular kinds of task. When a task fits a skill's"
    .. " description, read its file with the read tool before you start. Paths inside a skill file"
    .. " are relative to the folder that holds it.\n\n<available_skills>\n"
    .. table.concat(lines, "\n") .. "\n</available_skills>"
end

local function read_active()
  for _, name in ipairs(pi.active_tools() or {}) do
    if name == "read" then return true end
  end
  return false
end

pi.on("before_agent_start", function(ev)
  if not read_active() then return nil end
  local section = prompt_section()
  if section == "" then return nil end
  return { system_prompt = ev.system_prompt .. section }
end)

-- /skill:name args → the skill's instructions, then the arguments.
pi.on("input", function(ev)
  local name, args = ev.text:match("^/skill:(%S+)%s*(.-)%s*$")
  local s = name and by_name[name]
  if not s then return nil end
  local text, err = pi.read_file(s.file)
  if not text then
    pi.notify("/skill:" .. name .. ": cannot read " .. s.file .. ": " .. tostring(err), "error")
    return nil
  end
  local _, body = pi.parse_frontmatter(text)
  local out = string.format('<skill name="%s" location="%s">\nPaths in this skill are relative to %s.\n\n%s\n</skill>',
    xml_escape(s.name), xml_escape(s.file), s.base_dir, (body:gsub("^%s+", ""):gsub("%s+$", "")))
  if args ~= "" then out = out .. "\n\n" .. args end
  return { text = out }
end, { late = true })
