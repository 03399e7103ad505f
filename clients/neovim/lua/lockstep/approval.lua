-- The approval question: `lockstep/approve` carries each file's diff (or a command's line, or
-- an MCP call's arguments), shown in a floating window while the question is asked
-- (question.lua); `window/showMessageRequest` is the plain form (Apply / Always allow <tool>
-- this session / Reject / Stop the run).
--
-- Neovim 0.10+ runs server requests inside a coroutine, so the answer can wait for an
-- asynchronous `vim.ui.select` (telescope, fzf-lua, dressing, ...). Neovim 0.7 calls the
-- handler on the main thread and sends whatever it returns, so there the choice has to be
-- made synchronously, which the built-in `vim.ui.select` does (through `inputlist()`).
-- Either way, headless Neovim with the built-in `vim.ui.select` is answered with `null`
-- instead of blocking forever on `inputlist()`; the server then keeps the change staged
-- for review through code actions.

local M = {}

local function builtin_select()
  local info = debug.getinfo(vim.ui.select, "S")
  return info ~= nil and info.source:find("vim/ui.lua", 1, true) ~= nil
end

--- Headless with the built-in select, nobody can answer: said once per question, and `true`.
local function nobody_to_ask()
  if #vim.api.nvim_list_uis() == 0 and builtin_select() then
    vim.notify("lockstep: approval requested with no UI to ask; left staged for review", vim.log.levels.WARN)
    return true
  end
  return false
end

--- Asks `ask(opts, on_answer)` (vim.ui.select or vim.ui.input) on the main thread (0.7) or in
--- the request's coroutine (0.10+); `nil` when no answer could be had now (`late` is then said).
local function answer_now(ask, opts, late)
  local co, is_main = coroutine.running()
  if co and not is_main then
    ask(opts, function(answer)
      vim.schedule(function()
        coroutine.resume(co, answer)
      end)
    end)
    return coroutine.yield()
  end
  local answered, answer = false, nil
  ask(opts, function(choice)
    answered = true
    answer = choice
  end)
  if not answered and late then
    vim.notify(late, vim.log.levels.WARN)
  end
  return answer
end

local LATE = "lockstep: this Neovim needs an immediate answer, but vim.ui.select replied later; "
  .. "the change stays staged: review it with :LockstepReview or the code actions"

local function select_now(items, opts)
  return answer_now(function(o, done)
    vim.ui.select(items, o, done)
  end, opts, LATE)
end

--- The reason for a "no".
local function input_now(opts)
  return answer_now(vim.ui.input, opts)
end

--- The `lockstep/approve` handler: the change (or command, or call) in a floating window, then
--- the question. Answers `{ decision, reason? }`, or `vim.NIL` (no choice: a change is staged
--- for review, a command or a call does not run).
function M.approve(_, params)
  if type(params) ~= "table" or nobody_to_ask() then
    return vim.NIL
  end
  local question = require("lockstep.question")
  local shown = question.show(params)
  local ok, answer = pcall(question.ask, params, select_now, input_now)
  question.close(shown)
  if not ok then
    vim.notify("lockstep: " .. tostring(answer), vim.log.levels.ERROR)
    return vim.NIL
  end
  return answer or vim.NIL
end

--- The LSP handler: `(err, params, ctx) -> MessageActionItem | vim.NIL`.
function M.show_message_request(_, params)
  local actions = params and params.actions or {}
  if #actions == 0 then
    vim.notify("lockstep: " .. ((params and params.message) or ""), vim.log.levels.INFO)
    return vim.NIL
  end
  if nobody_to_ask() then
    return vim.NIL
  end
  local kind = ({ [1] = "Error", [2] = "Warning", [3] = "Info", [4] = "Log" })[params.type]
  return select_now(actions, {
    prompt = (kind and ("lockstep (" .. kind .. "): ") or "lockstep: ") .. (params.message or ""),
    kind = "lockstep.approval",
    format_item = function(action)
      return action.title
    end,
  }) or vim.NIL
end

return M
