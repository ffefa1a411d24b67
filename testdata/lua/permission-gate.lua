-- permission-gate.lua: stop the model from running dangerous shell commands.
--
-- Commands that can never be undone are blocked outright; risky ones need a yes from the
-- user (pi.confirm). Without a user to ask (print and JSON modes) pi.confirm answers no, so
-- risky commands are blocked there too. Put it in $PI_HOME/init.lua or .pi/init.lua.

local never = {
  "rm%s+%-[a-zA-Z]*r[a-zA-Z]*f?%s+/%s*$",   -- rm -rf /
  "rm%s+%-[a-zA-Z]*r[a-zA-Z]*f?%s+~/?%s*$", -- rm -rf ~
  "mkfs",
  "dd%s+.*of=/dev/",
  ":%(%)%s*{%s*:|:&%s*};:",                 -- fork bomb
}

-- Patterns see the command with a space on each side, so [%s;&|] marks a word start.
local ask = {
  "[%s;&|]rm%s+%-[a-zA-Z]*r",  -- recursive deletes
  "git%s+push%s.*%-%-force",
  "git%s+push%s.*%s%-f%s",
  "git%s+reset%s+%-%-hard",
  "[%s;&|]sudo%s",
  "curl[^|]*|%s*sh",
}

local function matches(command, patterns)
  for _, p in ipairs(patterns) do
    if command:find(p) then return p end
  end
  return nil
end

pi.on("tool_call", function(ev)
  if ev.tool_name ~= "bash" or type(ev.input.command) ~= "string" then return nil end
  local command = ev.input.command
  if matches(command, never) or matches(" " .. command .. " ", never) then
    return { block = true, reason = "This command is blocked by the permission gate: it cannot be undone. Find another way." }
  end
  if matches(" " .. command .. " ", ask) then
    if not pi.confirm("Allow this command?", command) then
      return { block = true, reason = "The user did not allow this command. Ask them how to proceed." }
    end
  end
  return nil
end)
