-- The approval question: `lockstep/approve` carries each file's diff, shown in a floating
-- window while the question is asked (question.lua); `window/showMessageRequest` is the
-- plain form (Apply / Always allow <tool> this session / Reject / Stop the run).
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

local function headless()
  return #vim.api.nvim_list_uis() == 0
end

local function select_options(params)
  local kind = ({ [1] = "Error", [2] = "Warning", [3] = "Info", [4] = "Log" })[params.type]
  return {
    prompt = (kind and ("lockstep (" .. kind .. "): ") or "lockstep: ") .. (params.message or ""),
    kind = "lockstep.approval",
    format_item = function(action)
      return action.title
    end,
  }
end

--- Asks `vim.ui.select` on the main thread (0.7) or in the request's coroutine (0.10+);
--- `nil` when no answer could be had now.
local function select_now(items, opts)
  local co, is_main = coroutine.running()
  if co and not is_main then
    vim.ui.select(items, opts, function(choice)
      vim.schedule(function()
        coroutine.resume(co, choice)
      end)
    end)
    return coroutine.yield()
  end
  local answered, answer = false, nil
  vim.ui.select(items, opts, function(choice)
    answered = true
    answer = choice
  end)
  if not answered then
    vim.notify(
      "lockstep: this Neovim needs an immediate answer, but vim.ui.select replied later; "
        .. "the change stays staged: review it with :LockstepReview or the code actions",
      vim.log.levels.WARN
    )
  end
  return answer
end

--- `vim.ui.input` the same way: the reason for a "no".
local function input_now(opts)
  local co, is_main = coroutine.running()
  if co and not is_main then
    vim.ui.input(opts, function(text)
      vim.schedule(function()
        coroutine.resume(co, text)
      end)
    end)
    return coroutine.yield()
  end
  local answer = nil
  vim.ui.input(opts, function(text)
    answer = text
  end)
  return answer
end

--- The `lockstep/approve` handler: the diff in a floating window, then the question.
--- Answers `{ decision, reason? }`, or `vim.NIL` (no choice: the change is staged for review).
function M.approve(_, params)
  if type(params) ~= "table" then
    return vim.NIL
  end
  if headless() and builtin_select() then
    vim.notify("lockstep: approval requested with no UI to ask; left staged for review", vim.log.levels.WARN)
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
  if headless() and builtin_select() then
    vim.notify("lockstep: approval requested with no UI to ask; left staged for review", vim.log.levels.WARN)
    return vim.NIL
  end

  local co, is_main = coroutine.running()
  if co and not is_main then
    vim.ui.select(actions, select_options(params), function(choice)
      vim.schedule(function()
        coroutine.resume(co, choice or vim.NIL)
      end)
    end)
    return coroutine.yield()
  end

  local answered, answer = false, vim.NIL
  vim.ui.select(actions, select_options(params), function(choice)
    answered = true
    answer = choice or vim.NIL
  end)
  if not answered then
    vim.notify(
      "lockstep: this Neovim needs an immediate answer, but vim.ui.select replied later; "
        .. "the change stays staged: review it with :LockstepReview or the code actions",
      vim.log.levels.WARN
    )
  end
  return answer
end

return M
