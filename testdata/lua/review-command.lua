-- review-command.lua: /review [base] asks the model to review the current changes.
--
-- It collects `git diff` against base (default: the working tree against HEAD) and sends it
-- as a user message: straight away when pi is idle, as a follow-up when it is busy. Tab
-- completes branch names.

local function git(args)
  local res = pi.exec("git " .. args)
  if not res or res.code ~= 0 then return nil, res and res.stderr or "git failed" end
  return res.stdout
end

pi.register_command({
  name = "review",
  description = "Review the uncommitted changes (or the changes since a branch)",
  argument_hint = "[base branch]",
  run = function(args)
    local base = args:match("^%s*(%S+)") or "HEAD"
    local diff, err = git("diff " .. base)
    if not diff then
      pi.notify("/review: " .. err, "error")
      return
    end
    if diff == "" then
      pi.notify("/review: nothing to review against " .. base, "info")
      return
    end
    pi.send_user_message("Review these changes against " .. base .. ". Point out bugs, risky edits and missing tests, "
      .. "most important first. Do not change any files.\n\n```diff\n" .. diff .. "```")
  end,
  complete = function(prefix)
    local out = {}
    for branch in (git("branch --format='%(refname:short)'") or ""):gmatch("[^\n]+") do
      if branch:sub(1, #prefix) == prefix then out[#out + 1] = branch end
    end
    return out
  end,
})
