-- run-tests-tool.lua: a custom tool built on pi.exec.
--
-- run_tests runs the project's test command and reports the outcome. The command comes from
-- pi.toml ([extensions.run_tests] command = "go test ./..."), or a default. Because pi.exec
-- yields, the tool does not hold up other tools running in the same batch.

local config = pi.config("run_tests") or {}
local default_command = config.command or "go test ./..."

pi.register_tool({
  name = "run_tests",
  description = "Run the project's tests and report failures. Optionally restrict to a package or path.",
  prompt_snippet = "run the project's test suite",
  prompt_guidelines = { "Run run_tests after changing code, before saying the work is done." },
  parameters = {
    type = "object",
    properties = {
      target = { type = "string", description = "A package or path to test; all tests when empty." },
      timeout = { type = "number", description = "Seconds before the run is stopped (default 300)." },
    },
  },
  execute = function(args, ctx)
    local command = default_command
    if args.target and args.target ~= "" then
      command = command .. " " .. args.target
    end
    ctx.update("running: " .. command)
    local res, err = pi.exec(command, { timeout = args.timeout or 300 })
    if not res then
      return { content = "could not run the tests: " .. err, is_error = true }
    end
    local output = res.stdout .. res.stderr
    if #output > 20000 then
      output = "[earlier output cut]\n" .. output:sub(-20000)
    end
    local verdict = res.code == 0 and "PASS" or (res.killed and "TIMEOUT" or "FAIL (exit code " .. res.code .. ")")
    return {
      content = verdict .. "\n" .. output,
      details = { command = command, code = res.code },
      is_error = res.code ~= 0,
    }
  end,
})
