-- compaction-hook.lua: take part in compaction.
--
-- Before pi compacts the conversation, this hook either cancels it (when pi.toml says
-- [extensions.compaction] enabled = false) or writes the summary itself with pi.complete,
-- using its own short instructions. If that model call fails, it returns nothing and pi
-- makes its usual summary. After compaction it says how much was saved.

local config = pi.config("compaction") or {}

local function transcript(messages)
  local parts = {}
  for _, m in ipairs(messages or {}) do
    local text = type(m.content) == "string" and m.content or ""
    if type(m.content) == "table" then
      for _, block in ipairs(m.content) do
        if block.type == "text" then text = text .. block.text end
      end
    end
    parts[#parts + 1] = m.role .. ": " .. text
  end
  return table.concat(parts, "\n")
end

pi.on("session_before_compact", function(ev)
  if config.enabled == false then
    return { cancel = true }
  end
  local summary, err = pi.complete(
    "Summarise this coding session so that work can continue from the summary alone. "
      .. "List the goal, decisions made, files touched and the next steps.\n\n" .. transcript(ev.messages),
    { system = "You write terse, factual engineering notes." })
  if not summary then
    pi.notify("compaction hook: " .. err .. "; using the default summary", "warning")
    return nil
  end
  return { summary = summary, details = { by = "compaction-hook.lua" } }
end)

pi.on("session_compact", function(ev)
  if ev.tokens_before and ev.tokens_after then
    pi.notify(string.format("compacted: %d → %d tokens", ev.tokens_before, ev.tokens_after), "info")
  end
end)
