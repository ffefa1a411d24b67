-- mcp.lua: MCP servers as tools, written on the public pi API (pi.spawn, pi.http, pi.future).
--
-- Each [mcp.servers.NAME] of pi.toml is a server: `command` (+ args, env, cwd) runs it and
-- speaks JSON-RPC over its stdin and stdout, one message a line; `url` (+ headers) talks to a
-- streamable HTTP server (POST per message, the answer as JSON or as an event stream).
-- Every tool of a server becomes a tool named mcp__NAME__TOOL with the server's input schema
-- (`tools = [...]` keeps only the ones named); every prompt a command /mcp:NAME:PROMPT.
--
-- A server starts at the first prompt (or with pi when `eager = true`); the prompt waits for
-- it up to `timeout` seconds (default 60, also the limit of every request). A server that
-- crashes is started again once; after a second crash its tools return an error until
-- `/mcp restart NAME`. A server the project's .pi/pi.toml names runs only once the directory
-- is trusted. /mcp lists the servers, their state and tools.
--
-- When the declarations of the MCP tools and the scripts' other tools together would take more
-- than a tenth of the model's window, the MCP tools are registered deferred and the model gets
-- one tool, mcp_search, in their place: it names the servers and their tools in a line, and
-- finds tools by name or keyword, which are then offered from the model's next call (the loop
-- declares them). [mcp] search = true or false forces it on or off.

local PROTOCOL = "2025-06-18"
local KNOWN_PROTOCOLS = { ["2025-06-18"] = true, ["2025-03-26"] = true, ["2024-11-05"] = true }
local DEFAULT_TIMEOUT = 60
local MAX_MESSAGE = 16 * 1024 * 1024
local STDERR_LINES = 20

local SEARCH = "mcp_search"
local SEARCH_FOUND = 5 -- tools one search adds at most
local SEARCH_LISTING = 1200 -- characters of tool names the search tool's description lists

local servers, order = {}, {}
local searching = false -- the MCP tools are deferred behind SEARCH

local function notify(level, msg) pi.notify("mcp: " .. msg, level) end

-- tbl is x when it is a table, else an empty one: a server's answer can hold anything.
local function tbl(x) if type(x) == "table" then return x end return {} end

local function str(x) if type(x) == "string" then return x end return "" end

local function timeout_of(s) return s.conf.timeout or DEFAULT_TIMEOUT end

-- tool_name makes mcp__SERVER__TOOL fit pi's tool names: letters, digits, _ and -, 64 at most.
local function tool_name(server, tool)
  return (("mcp__" .. server .. "__" .. tool):gsub("[^%w_-]", "_"):sub(1, 64))
end

local function command_name(server, prompt)
  return (("mcp:" .. server .. ":" .. prompt):gsub("[^%w_:.-]", "_"))
end

---------------------------------------------------------------------------------------------
-- Messages in and out.

local handle_message -- forward: function(s, msg)

-- fail_pending ends every request in flight with an error.
local function fail_pending(s, why)
  local pending = s.pending
  s.pending = {}
  for _, p in pairs(pending) do p.on_result(nil, why) end
end

-- stdio: one JSON message a line. Lines are put together here (a message may be megabytes).
local function stdio_reader(s, gen)
  local parts, size = {}, 0
  return function(chunk)
    if s.gen ~= gen then return end
    local start = 1
    while true do
      local nl = chunk:find("\n", start, true)
      if not nl then break end
      parts[#parts + 1] = chunk:sub(start, nl - 1)
      local line = table.concat(parts)
      parts, size, start = {}, 0, nl + 1
      if line:find("%S") then
        local msg, err = pi.json_decode(line)
        if err then notify("warning", s.name .. ": not JSON: " .. err) else handle_message(s, msg) end
      end
    end
    local rest = chunk:sub(start)
    size = size + #rest
    if size > MAX_MESSAGE then
      notify("error", s.name .. ": a message over " .. math.floor(MAX_MESSAGE / 1048576) .. " MiB was dropped")
      parts, size = {}, 0
    elseif #rest > 0 then
      parts[#parts + 1] = rest
    end
  end
end

-- sse_reader reads a POST's answer: a JSON body, or an event stream whose data fields are
-- messages. It returns the stream callback and a function to call when the body has ended.
local function sse_reader(s)
  local buf, json_parts, mode = "", {}, nil
  local data = {}
  local function event_done()
    if #data > 0 then
      local msg = pi.json_decode(table.concat(data, "\n"))
      if msg then handle_message(s, msg) end
    end
    data = {}
  end
  local function feed(chunk)
    if not mode then
      local first = chunk:match("^%s*(.)")
      if not first then return end
      mode = (first == "{" or first == "[") and "json" or "sse"
    end
    if mode == "json" then json_parts[#json_parts + 1] = chunk return end
    buf = buf .. chunk
    while true do
      local nl = buf:find("\n", 1, true)
      if not nl then break end
      local line = buf:sub(1, nl - 1):gsub("\r$", "")
      buf = buf:sub(nl + 1)
      if line == "" then
        event_done()
      elseif line:sub(1, 5) == "data:" then
        data[#data + 1] = line:sub(6):gsub("^ ", "")
      end
    end
  end
  local function finish()
    if mode == "json" then
      local msg = pi.json_decode(table.concat(json_parts))
      if msg and msg.jsonrpc then handle_message(s, msg)
      elseif type(msg) == "table" then for _, m in ipairs(msg) do handle_message(s, m) end end
    else
      event_done()
    end
  end
  return feed, finish
end

-- send writes one message to the server. Over HTTP it waits for the answer's body (the
-- messages in it are handled as they arrive), so it must run where waiting is allowed.
local function send(s, msg)
  local body = pi.json_encode(msg)
  if s.conf.command then
    if not (s.proc and s.proc:running()) then return nil, "the server is not running" end
    return s.proc:write(body .. "\n")
  end
  local headers = { ["Content-Type"] = "application/json", ["Accept"] = "application/json, text/event-stream" }
  for k, v in pairs(s.conf.headers or {}) do headers[k] = v end
  if s.session then headers["Mcp-Session-Id"] = s.session end
  if s.protocol then headers["MCP-Protocol-Version"] = s.protocol end
  local feed, finish = sse_reader(s)
  local res, err = pi.http { method = "POST", url = s.conf.url, headers = headers, body = body,
    stream = feed, timeout = timeout_of(s) }
  if not res then return nil, err end
  if res.headers["mcp-session-id"] then s.session = res.headers["mcp-session-id"] end
  finish()
  if res.status == 404 and s.session then s.session = nil end
  if res.status >= 400 then return nil, "HTTP " .. res.status end
  return true
end

-- request sends method and calls on_result(result, err) when the answer comes, without
-- waiting (a stdout callback must not wait for stdout).
local function request(s, method, params, on_result, extra)
  local id = s.next_id
  s.next_id = id + 1
  local p = extra or {}
  p.on_result = on_result
  s.pending[id] = p
  local ok, err = send(s, { jsonrpc = "2.0", id = id, method = method, params = params })
  if not ok and s.pending[id] then
    s.pending[id] = nil
    on_result(nil, err)
  end
  return id
end

-- call sends method and waits for its result (tools, commands and the input handler only).
local function call(s, method, params, extra)
  local f = pi.future()
  local id = request(s, method, params, function(result, err) f:resolve({ result = result, err = err }) end, extra)
  local r, werr = f:wait(timeout_of(s))
  if not r then
    s.pending[id] = nil
    send(s, { jsonrpc = "2.0", method = "notifications/cancelled", params = { requestId = id, reason = "timed out" } })
    return nil, method .. " timed out after " .. timeout_of(s) .. " s", id
  end
  return r.result, r.err, id
end

local function notify_server(s, method, params)
  return send(s, { jsonrpc = "2.0", method = method, params = params or {} })
end

local function respond(s, id, result, err)
  local msg = { jsonrpc = "2.0", id = id }
  if err then msg.error = { code = -32601, message = err } else msg.result = result end
  send(s, msg)
end

handle_message = function(s, msg)
  if type(msg) ~= "table" then return end
  if msg.method then
    if msg.id ~= nil then -- a request from the server
      if msg.method == "ping" then respond(s, msg.id, {}) else respond(s, msg.id, nil, "method not found: " .. msg.method) end
    elseif msg.method == "notifications/progress" then
      local params = tbl(msg.params)
      local p = params.progressToken ~= nil and s.progress[params.progressToken]
      if p then p(params) end
    elseif msg.method == "notifications/tools/list_changed" then
      s.stale = true -- listed again before the next prompt, when pi picks up tools
    elseif msg.method == "notifications/prompts/list_changed" then
      s.stale = true
    end
    return
  end
  local p = s.pending[msg.id]
  if not p then return end
  s.pending[msg.id] = nil
  if msg.error ~= nil then
    local e = tbl(msg.error)
    p.on_result(nil, (type(e.message) == "string" and e.message or "error") .. (type(e.code) == "number" and (" (" .. e.code .. ")") or ""))
  else
    p.on_result(tbl(msg.result))
  end
end

---------------------------------------------------------------------------------------------
-- Content, tools and prompts.

-- content_blocks maps MCP content to pi's blocks: text and images as they are, resources as
-- their text (or a line naming them), audio as a line naming it.
local function content_blocks(content)
  local out = {}
  for _, c in ipairs(tbl(content)) do
    c = tbl(c)
    if c.type == "text" then
      out[#out + 1] = { type = "text", text = str(c.text) }
    elseif c.type == "image" and type(c.data) == "string" then
      out[#out + 1] = { type = "image", data = c.data, mime_type = str(c.mimeType) }
    elseif c.type == "resource" then
      local r = tbl(c.resource)
      if type(r.text) == "string" then
        out[#out + 1] = { type = "text", text = "[resource " .. str(r.uri) .. "]\n" .. r.text }
      elseif type(r.blob) == "string" and str(r.mimeType):match("^image/") then
        out[#out + 1] = { type = "image", data = r.blob, mime_type = r.mimeType }
      else
        out[#out + 1] = { type = "text", text = "[resource " .. str(r.uri) .. " (" .. (type(r.mimeType) == "string" and r.mimeType or "binary") ..
          ", " .. #str(r.blob) .. " bytes of base64)]" }
      end
    elseif c.type == "resource_link" then
      out[#out + 1] = { type = "text", text = "[resource link " .. str(c.name) .. ": " .. str(c.uri) .. "]" }
    elseif c.type == "audio" then
      out[#out + 1] = { type = "text", text = "[audio (" .. str(c.mimeType) .. "), " .. #str(c.data) .. " bytes of base64]" }
    end
  end
  return out
end

local function tool_result(result)
  local blocks = content_blocks(result.content)
  if #blocks == 0 and result.structuredContent then
    blocks = { { type = "text", text = pi.json_encode(result.structuredContent) } }
  end
  return { content = blocks, is_error = result.isError == true, details = result.structuredContent }
end

local ensure_ready -- forward: function(s) → true or nil, message

local function run_tool(s, tool, args, ctx)
  local ok, err = ensure_ready(s)
  if not ok then return { content = err, is_error = true } end
  local id, token = s.next_id, "pi-" .. s.next_id
  ctx.on_abort(function()
    s.pending[id], s.progress[token] = nil, nil
    notify_server(s, "notifications/cancelled", { requestId = id, reason = "aborted by the user" })
  end)
  s.progress[token] = function(p)
    local text = str(p.message) ~= "" and p.message or "working"
    if type(p.progress) == "number" then
      text = text .. " (" .. p.progress .. (type(p.total) == "number" and ("/" .. p.total) or "") .. ")"
    end
    ctx.update(text)
  end
  local result, cerr = call(s, "tools/call", { name = tool, arguments = args or {}, _meta = { progressToken = token } })
  s.progress[token] = nil
  if not result then
    return { content = "MCP server " .. s.name .. ": " .. tool .. " failed: " .. tostring(cerr), is_error = true }
  end
  return tool_result(result)
end

local function allowed(s, name)
  local list = s.conf.tools or {}
  if #list == 0 then return true end
  for _, n in ipairs(list) do if n == name then return true end end
  return false
end

-- set_tools registers the server's tools, and unregisters those it no longer lists.
local function set_tools(s, list)
  local keep = {}
  for _, t in ipairs(tbl(list)) do
    t = tbl(t)
    if type(t.name) == "string" and allowed(s, t.name) then
      local name, tool = tool_name(s.name, t.name), t.name
      local about = type(t.description) == "string" and t.description or type(t.title) == "string" and t.title
      local def = { name = name, description = about or ("MCP tool " .. tool .. " of " .. s.name),
        parameters = type(t.inputSchema) == "table" and t.inputSchema or { type = "object" },
        deferred = searching, execute = function(args, ctx) return run_tool(s, tool, args, ctx) end }
      if s.tools[name] then pi.unregister_tool(name) end -- listed again: no warning
      local ok, err = pcall(pi.register_tool, def)
      if not ok then
        def.parameters = { type = "object" }
        pcall(pi.register_tool, def)
        notify("warning", s.name .. ": tool " .. tool .. ": its input schema is not usable (" .. tostring(err) .. "); arguments go unchecked")
      end
      keep[name] = tool
      s.defs[name] = def
    end
  end
  for name in pairs(s.tools) do
    if not keep[name] then pi.unregister_tool(name) s.defs[name] = nil end
  end
  s.tools = keep
end

local function prompt_text(result)
  local parts = {}
  for _, m in ipairs(tbl(result.messages)) do
    for _, b in ipairs(content_blocks({ tbl(m).content })) do
      if b.type == "text" then parts[#parts + 1] = b.text end
    end
  end
  return table.concat(parts, "\n\n")
end

-- prompt_commands maps "mcp:NAME:PROMPT" to {s, prompt, names}.
local prompt_commands = {}

-- get_prompt fetches a prompt's text, the words of text filling its arguments in order (the
-- last argument takes the rest).
local function get_prompt(entry, text)
  local s, names = entry.s, entry.names
  local ok, err = ensure_ready(s)
  if not ok then return nil, err end
  local args, i = {}, 0
  for word in (text or ""):gmatch("%S+") do
    i = i + 1
    if names[i] then args[names[i]] = word elseif names[#names] then args[names[#names]] = args[names[#names]] .. " " .. word end
  end
  local result, cerr = call(s, "prompts/get", { name = entry.prompt, arguments = args })
  if not result then return nil, s.name .. ": prompt " .. entry.prompt .. ": " .. tostring(cerr) end
  return prompt_text(result)
end

local function set_prompts(s, list)
  for _, p in ipairs(tbl(list)) do
    p = tbl(p)
    if type(p.name) == "string" and not s.prompts[p.name] then
      s.prompts[p.name] = true
      local names = {}
      for _, a in ipairs(tbl(p.arguments)) do
        if type(tbl(a).name) == "string" then names[#names + 1] = a.name end
      end
      local cmd = command_name(s.name, p.name)
      local entry = { s = s, prompt = p.name, names = names }
      prompt_commands[cmd] = entry
      pi.register_command { name = cmd, description = str(p.description) ~= "" and p.description or ("MCP prompt of " .. s.name),
        argument_hint = table.concat(names, " "),
        run = function(text)
          local prompt, err = get_prompt(entry, text)
          if prompt then pi.send_user_message(prompt) else notify("error", err) end
        end }
    end
  end
end

---------------------------------------------------------------------------------------------
-- The search tool: the MCP tools behind one declaration when theirs would crowd the window.

local search_mode -- [mcp] search: true, false, or nil (by the window)

-- listing names each server's tools in a line, or counts them once the names grow too long.
local function listing()
  local lines, size = {}, 0
  for _, sname in ipairs(order) do
    local names = {}
    for _, tool in pairs(servers[sname].tools) do names[#names + 1] = tool end
    table.sort(names)
    if #names > 0 then
      local line = sname .. ": " .. table.concat(names, ", ")
      if size + #line > SEARCH_LISTING then line = sname .. ": " .. #names .. " tools" end
      lines[#lines + 1] = line
      size = size + #line
    end
  end
  return table.concat(lines, "; ")
end

local function first_line(text)
  return (str(text):match("^[^\n]*"):sub(1, 200))
end

-- search finds the MCP tools query names (a tool's name, whole or without mcp__SERVER__) or
-- describes (its words in the name score above those in the description).
local function search(query)
  local q = str(query):lower():gsub("^%s+", ""):gsub("%s+$", "")
  local words = {}
  for w in q:gmatch("[%w_%-]+") do if #w > 1 then words[#words + 1] = w end end
  local found = {}
  for _, sname in ipairs(order) do
    local s = servers[sname]
    for name, tool in pairs(s.tools) do
      local lname, about = name:lower(), str(s.defs[name] and s.defs[name].description):lower()
      local score = (q == lname or q == tool:lower()) and 1000 or 0
      for _, w in ipairs(words) do
        if lname:find(w, 1, true) then score = score + 10 elseif about:find(w, 1, true) then score = score + 1 end
      end
      if score > 0 then found[#found + 1] = { name = name, score = score, about = s.defs[name] and s.defs[name].description } end
    end
  end
  table.sort(found, function(a, b) if a.score ~= b.score then return a.score > b.score end return a.name < b.name end)
  if #found == 0 then
    return { content = "No MCP tool matches \"" .. q .. "\". The tools are " .. listing() .. ".", is_error = true }
  end
  local names, lines = {}, { "These tools can be called from your next step:" }
  for i = 1, math.min(#found, SEARCH_FOUND) do
    names[#names + 1] = found[i].name
    lines[#lines + 1] = "- " .. found[i].name .. ": " .. first_line(found[i].about)
  end
  return { content = table.concat(lines, "\n"), added_tools = names }
end

local search_about -- the search tool's description as registered; nil while it is not

-- register_search declares the search tool, again when the servers' tools have changed.
local function register_search()
  local about = "Find MCP tools by name or keyword; the tools found can be called from your next step. " ..
    "Servers and their tools: " .. listing()
  if about == search_about then return end
  if search_about then pi.unregister_tool(SEARCH) end
  search_about = about
  pi.register_tool { name = SEARCH, read_only = true, description = about,
    parameters = { type = "object", required = { "query" },
      properties = { query = { type = "string", description = "a tool's name, or words of what it should do" } } },
    execute = function(args) return search(args.query) end }
end

-- tool_tokens is what the declarations of the scripts' tools (MCP's among them) cost.
local function tool_tokens()
  local total = 0
  for _, t in ipairs(pi.all_tools()) do
    if not t.builtin and t.name ~= SEARCH then total = total + (t.tokens or 0) end
  end
  return total
end

-- apply_budget puts the MCP tools behind the search tool when their declarations would take
-- more than a tenth of the window (or [mcp] search says so), and back when they fit.
local function apply_budget()
  local on, tokens, window = search_mode, tool_tokens(), pi.context_usage().context_window
  if on == nil then on = window ~= nil and tokens > window / 10 end
  local any = false
  for _, sname in ipairs(order) do any = any or next(servers[sname].tools) ~= nil end
  on = on and any
  if on == searching then
    if on then register_search() end -- the servers' tools may have changed
    return
  end
  searching = on
  for _, sname in ipairs(order) do
    local defs, names = servers[sname].defs, {}
    for name in pairs(defs) do names[#names + 1] = name end
    table.sort(names) -- one order every time: the tools' order is part of the request's prefix
    for _, name in ipairs(names) do
      defs[name].deferred = on
      pi.unregister_tool(name)
      pcall(pi.register_tool, defs[name])
    end
  end
  if on then
    register_search()
    if search_mode == nil then
      notify("info", "the tools' declarations (about " .. tokens .. " tokens) would take " ..
        math.floor(100 * tokens / window) .. "% of the " .. window .. "-token window: the model gets " .. SEARCH ..
        " to ask for the MCP tools it needs")
    end
  else
    pi.unregister_tool(SEARCH)
    search_about = nil
  end
end

---------------------------------------------------------------------------------------------
-- The life of a server: starting, initializing, crashing, restarting.

local start -- forward

-- set_state moves a server on; reaching ready or failed resolves who waits for it.
local function set_state(s, state, err)
  s.state, s.error = state, err
  if (state == "ready" or state == "failed") and s.ready then s.ready:resolve(state) end
end

-- ask sends a request and passes its answer to k. Over stdio it does not wait (the answer
-- comes in a stdout callback); over HTTP it waits, so that k runs once the response's
-- headers (the session id) are in.
local function ask(s, method, params, k)
  if s.conf.url then
    local result, err = call(s, method, params)
    k(result, err)
  else
    request(s, method, params, k)
  end
end

local function list_all(s, method, key, done)
  ask(s, method, {}, function(result, err)
    if result then done(result[key]) else done(nil, err) end
  end)
end

-- initialize runs the handshake: each answer sends the next request.
local function initialize(s)
  local params = { protocolVersion = PROTOCOL, capabilities = {},
    clientInfo = { name = "pi", version = tostring(pi.version) } }
  ask(s, "initialize", params, function(result, err)
    if not result then set_state(s, "failed", "initialize: " .. tostring(err)) return end
    if not KNOWN_PROTOCOLS[str(result.protocolVersion)] then
      set_state(s, "failed", "the server speaks MCP " .. tostring(result.protocolVersion) .. ", which pi does not")
      if s.proc then s.stopping = true s.proc:kill() end
      return
    end
    s.protocol, s.info, s.caps = result.protocolVersion, tbl(result.serverInfo), tbl(result.capabilities)
    notify_server(s, "notifications/initialized")
    local function tools_then_ready()
      list_all(s, "tools/list", "tools", function(list, lerr)
        if not list then set_state(s, "failed", "tools/list: " .. tostring(lerr)) return end
        set_tools(s, list)
        set_state(s, "ready")
      end)
    end
    if s.caps.prompts then
      list_all(s, "prompts/list", "prompts", function(list)
        set_prompts(s, list)
        tools_then_ready()
      end)
    else
      tools_then_ready()
    end
  end)
end

local function on_exit(s, gen, code, sig)
  if s.gen ~= gen then return end
  s.proc = nil
  local why = "exited with " .. (sig and ("signal " .. sig) or ("code " .. tostring(code)))
  fail_pending(s, "the server " .. why)
  if s.stopping then s.stopping = false return end
  local tail = table.concat(s.stderr, "\n")
  if tail ~= "" then why = why .. "; it printed:\n" .. tail end
  if s.restarts < 1 then
    s.restarts = s.restarts + 1
    notify("warning", s.name .. " " .. why .. "\nstarting it again")
    start(s)
  else
    set_state(s, "failed", why)
    notify("error", s.name .. " " .. why .. "\nits tools return errors until /mcp restart " .. s.name)
  end
end

start = function(s)
  s.gen = (s.gen or 0) + 1
  local gen = s.gen
  s.ready = pi.future()
  s.pending, s.progress, s.stderr, s.session, s.protocol = {}, {}, {}, nil, nil
  set_state(s, "starting")
  if s.conf.url then
    initialize(s) -- over HTTP this waits for each answer in turn
    return
  end
  local h, err = pi.spawn { cmd = s.conf.command, args = s.conf.args, env = s.conf.env, cwd = s.conf.cwd, lines = false,
    on_stdout = stdio_reader(s, gen),
    on_stderr = function(chunk)
      for line in chunk:gmatch("[^\n]+") do
        table.insert(s.stderr, line)
        if #s.stderr > STDERR_LINES then table.remove(s.stderr, 1) end
      end
    end,
    on_exit = function(code, sig) on_exit(s, gen, code, sig) end }
  if not h then
    set_state(s, "failed", err)
    return
  end
  s.proc = h
  initialize(s)
end

local function stop(s)
  if s.proc then
    s.stopping = true
    s.proc:kill()
    s.proc = nil
  end
  s.gen = (s.gen or 0) + 1
  fail_pending(s, "the server was stopped")
  set_state(s, "stopped")
end

-- ensure_ready starts a server that is not running and waits until it is ready.
ensure_ready = function(s)
  if s.state == "disabled" or s.state == "untrusted" then return nil, "MCP server " .. s.name .. " is " .. s.state end
  if s.state == "stopped" then start(s) end
  if s.state == "starting" then
    local state = s.ready:wait(timeout_of(s))
    if not state then return nil, "MCP server " .. s.name .. " did not start within " .. timeout_of(s) .. " s" end
  end
  if s.state ~= "ready" then
    return nil, "MCP server " .. s.name .. " is not running: " .. tostring(s.error) .. " (/mcp restart " .. s.name .. " tries again)"
  end
  return true
end

-- refresh lists tools (and prompts) again after the server said they changed.
local function refresh(s)
  s.stale = false
  local result = call(s, "tools/list", {})
  if result then set_tools(s, result.tools) end
  if s.caps and s.caps.prompts then
    local prompts = call(s, "prompts/list", {})
    if prompts then set_prompts(s, prompts.prompts) end
  end
end

---------------------------------------------------------------------------------------------
-- Configuration, events and /mcp.

local function setup()
  local cfg = pi.config("mcp") or {}
  if type(cfg.search) == "boolean" then search_mode = cfg.search end
  local trusted = pi.project_trusted()
  for name, conf in pairs(cfg.servers or {}) do
    local s = { name = name, conf = conf, tools = {}, defs = {}, prompts = {}, pending = {}, progress = {}, stderr = {},
      next_id = 1, restarts = 0, state = "stopped" }
    if conf.enabled == false then
      s.state = "disabled"
    elseif conf.project and not trusted then
      s.state = "untrusted"
      notify("warning", "not starting " .. name .. " from the project's .pi/pi.toml: this directory is not trusted " ..
        "(pi --trust, or /trust, lets it run)")
    end
    servers[name] = s
    order[#order + 1] = name
  end
  table.sort(order)
end

setup()
if #order == 0 then return end -- nothing configured: no command, no handlers, no cost

for _, name in ipairs(order) do
  local s = servers[name]
  if s.conf.eager and s.state == "stopped" and s.conf.command then start(s) end
end

-- Servers over HTTP with eager = true connect once the session has started.
pi.on("session_start", function()
  for _, name in ipairs(order) do
    local s = servers[name]
    if s.conf.eager and s.state == "stopped" then ensure_ready(s) end
  end
end)

-- Before a prompt reaches the model, every enabled server is started (or waited for), so its
-- tools are there for the run.
pi.on("input", function(ev)
  local waiting = {}
  for _, name in ipairs(order) do
    local s = servers[name]
    waiting[name] = s.state == "stopped" or s.state == "starting"
    if s.state == "stopped" and s.conf.command then start(s) end -- in parallel; waited for below
  end
  for _, name in ipairs(order) do
    local s = servers[name]
    if waiting[name] then
      local ok, err = ensure_ready(s)
      if not ok then notify("warning", err) end
    end
    if s.state == "ready" and s.stale then refresh(s) end
  end
  apply_budget()
  -- /mcp:NAME:PROMPT typed before the server had listed its prompts (the first prompt of a
  -- session, or after /reload) reaches here as text: expand it now.
  local cmd, rest = str(ev.text):match("^/(mcp:%S+)%s*(.*)$")
  local entry = cmd and prompt_commands[cmd]
  if entry then
    local prompt, err = get_prompt(entry, rest)
    if prompt then return { text = prompt } end
    notify("error", err)
    return { handled = true }
  end
end)

local function describe(s)
  local where = s.conf.url or (s.conf.command .. " " .. table.concat(s.conf.args or {}, " "))
  local line = s.name .. "  " .. s.state .. "  " .. where
  if s.error and s.state == "failed" then line = line .. "\n  " .. s.error:gsub("\n", "\n  ") end
  local names = {}
  for name in pairs(s.tools) do names[#names + 1] = name end
  table.sort(names)
  if #names > 0 then line = line .. "\n  tools: " .. table.concat(names, ", ") end
  local prompts = {}
  for p in pairs(s.prompts) do prompts[#prompts + 1] = "/" .. command_name(s.name, p) end
  table.sort(prompts)
  if #prompts > 0 then line = line .. "\n  prompts: " .. table.concat(prompts, ", ") end
  return line
end

pi.register_command { name = "mcp", description = "MCP servers: list them, or restart one (/mcp restart NAME)",
  argument_hint = "[restart NAME]",
  complete = function(prefix)
    local out = {}
    for _, name in ipairs(order) do
      if ("restart " .. name):sub(1, #prefix) == prefix then out[#out + 1] = "restart " .. name end
    end
    return out
  end,
  run = function(args)
    local verb, name = (args or ""):match("^%s*(%S*)%s*(%S*)")
    if verb == "restart" then
      local s = servers[name]
      if not s then notify("error", "no server named " .. name) return end
      if s.state == "disabled" or s.state == "untrusted" then notify("error", name .. " is " .. s.state) return end
      stop(s)
      s.restarts = 0
      local ok, err = ensure_ready(s)
      if ok then notify("info", "restarted " .. describe(s)) else notify("error", err) end
      return
    end
    if verb ~= "" then notify("error", "/mcp takes no argument or restart NAME") return end
    local lines = {}
    for _, n in ipairs(order) do lines[#lines + 1] = describe(servers[n]) end
    pi.notify("MCP servers:\n" .. table.concat(lines, "\n"), "info")
  end }
