-- Plan mode: explore and plan with read-only tools, then switch back to make changes.
-- `pi --plan` starts in it; /plan or ctrl+alt+p toggles it. While it is on, the footer says
-- so, the model is told, and a call to any tool that could change something is refused.

pi.register_flag{name = "plan", type = "boolean", description = "start in plan mode (read-only tools)", default = false}

local saved -- the tools active before plan mode; nil when it is off

local function enter()
  if saved then return end
  saved = pi.active_tools()
  local read_only = {}
  for _, t in ipairs(pi.all_tools()) do
    if t.read_only then read_only[#read_only + 1] = t.name end
  end
  pi.set_active_tools(read_only)
  pi.set_status("plan-mode", "⏸ plan mode")
end

local function leave()
  if not saved then return end
  pi.set_active_tools(saved)
  saved = nil
  pi.set_status("plan-mode", nil)
end

local function toggle()
  if saved then leave() else enter() end
  pi.notify(saved and "Plan mode on: read-only tools" or "Plan mode off: all tools back", "info")
end

pi.register_command{name = "plan", description = "toggle plan mode (read-only tools)", run = toggle}
pi.register_shortcut{key = "ctrl+alt+p", description = "toggle plan mode", run = toggle}

pi.on("session_start", function()
  if pi.flag("plan") then enter() end
end)

pi.on("before_agent_start", function(ev)
  if saved then
    return {system_prompt = ev.system_prompt .. "\n\nYou are in plan mode: explore with the read-only tools and " ..
      "answer with a numbered plan. Do not try to change files."}
  end
end)

pi.on("tool_call", function(ev)
  if saved and not ev.read_only then
    return {block = true, reason = "Plan mode is on: only read-only tools may run. Ask the user to leave plan mode."}
  end
end)
