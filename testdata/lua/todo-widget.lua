-- A todo list the model keeps: the todo tool adds, checks off and clears items, and the list
-- shows as a widget above the editor. The list is saved in the session as a custom entry.

local items = {}

local function show()
  if #items == 0 then
    pi.set_widget("todo", nil)
    return
  end
  local lines = {}
  for i, it in ipairs(items) do
    lines[#lines + 1] = (it.done and "☑ " or "☐ ") .. i .. ". " .. it.text
  end
  pi.set_widget("todo", lines, {placement = "above"})
end

pi.register_tool{
  name = "todo",
  label = "Todo",
  description = "Keep a todo list the user sees: add an item, mark one done by number, or clear the list.",
  parameters = {type = "object", properties = {
    action = {type = "string", enum = {"add", "done", "clear", "list"}},
    text = {type = "string", description = "the item, for add"},
    index = {type = "integer", description = "the item's number, for done"},
  }, required = {"action"}},
  execute = function(args)
    if args.action == "add" then
      if not args.text or args.text == "" then return {content = "add needs text", is_error = true} end
      items[#items + 1] = {text = args.text, done = false}
    elseif args.action == "done" then
      local it = items[args.index or 0]
      if not it then return {content = "no item " .. tostring(args.index), is_error = true} end
      it.done = true
    elseif args.action == "clear" then
      items = {}
    end
    show()
    pi.append_entry("todo", {items = items})
    local out = {}
    for i, it in ipairs(items) do out[#out + 1] = i .. ". [" .. (it.done and "x" or " ") .. "] " .. it.text end
    return {content = #out > 0 and table.concat(out, "\n") or "The list is empty."}
  end,
}
