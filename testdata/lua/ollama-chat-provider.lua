-- A provider written in Lua: it speaks Ollama's native chat API (POST /api/chat, one JSON object
-- a line) over pi.http, streaming text, thinking and tool calls back to pi as they arrive, and
-- lists its models from GET /api/tags. Select it with --model ollama-lua/<model>.
--
-- pi.toml:
--   [extensions.ollama-lua]
--   base_url = "http://127.0.0.1:11434"

local cfg = pi.config("ollama-lua") or {}
local base = cfg.base_url or "http://127.0.0.1:11434"

-- text is the text of a message's content, a string or a list of blocks.
local function text(content)
  if type(content) == "string" then return content end
  local parts = {}
  for _, b in ipairs(content or {}) do
    if b.type == "text" then parts[#parts + 1] = b.text end
  end
  return table.concat(parts, "\n")
end

local function wire_messages(req)
  local out = {}
  if req.system_prompt ~= "" then out[#out + 1] = {role = "system", content = req.system_prompt} end
  for _, m in ipairs(req.messages) do
    if m.role == "user" then
      out[#out + 1] = {role = "user", content = text(m.content)}
    elseif m.role == "assistant" then
      local calls = {}
      for _, b in ipairs(m.content) do
        if b.type == "toolCall" then calls[#calls + 1] = {["function"] = {name = b.name, arguments = b.arguments}} end
      end
      out[#out + 1] = {role = "assistant", content = text(m.content), tool_calls = #calls > 0 and calls or nil}
    elseif m.role == "toolResult" then
      out[#out + 1] = {role = "tool", content = text(m.content), tool_name = m.toolName}
    end
  end
  return out
end

local function wire_tools(req)
  local out = {}
  for _, t in ipairs(req.tools) do
    out[#out + 1] = {type = "function", ["function"] = {name = t.name, description = t.description, parameters = t.parameters}}
  end
  return out
end

pi.register_provider("ollama-lua", {
  api = "ollama-lua",
  base_url = base,
  models = function()
    local res, err = pi.http{url = base .. "/api/tags", timeout = 5}
    if not res then error(err) end
    local list = {}
    for _, m in ipairs(pi.json_decode(res.body).models or {}) do
      list[#list + 1] = {id = m.name, context_window = cfg.context_window or 32768}
    end
    return list
  end,
  stream = function(req, out)
    local body = pi.json_encode{model = req.model.id, messages = wire_messages(req), tools = wire_tools(req), stream = true,
      think = req.options.thinking ~= "" and req.options.thinking ~= "off" or nil}
    local pending, reason, calls, failure = "", "stop", 0, nil
    local function line(l)
      local ev = pi.json_decode(l)
      if type(ev) ~= "table" then failure = l; return end
      if ev.error then failure = ev.error; return end
      local msg = ev.message or {}
      if msg.thinking and msg.thinking ~= "" then out.thinking(msg.thinking) end
      if msg.content and msg.content ~= "" then out.text(msg.content) end
      for _, c in ipairs(msg.tool_calls or {}) do
        calls = calls + 1
        out.tool_call{id = "call_" .. calls, name = c["function"].name, arguments = c["function"].arguments}
      end
      if ev.done then
        out.usage{input = ev.prompt_eval_count or 0, output = ev.eval_count or 0}
        if ev.done_reason == "length" then reason = "length" end
      end
    end
    local res, err = pi.http{method = "POST", url = base .. "/api/chat", body = body, timeout = 600,
      headers = {["content-type"] = "application/json"},
      stream = function(chunk)
        pending = pending .. chunk
        local last = 1
        for l, rest in pending:gmatch("([^\n]*)\n()") do
          if l ~= "" then line(l) end
          last = rest
        end
        pending = pending:sub(last)
      end}
    if not res then return nil, err end
    if res.status ~= 200 or failure then return nil, "ollama-lua: " .. res.status .. " " .. tostring(failure or pending) end
    return reason
  end,
})
