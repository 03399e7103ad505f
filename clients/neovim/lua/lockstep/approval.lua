-- `window/showMessageRequest` for the lockstep client: the server asks before the agent
-- modifies a file (Apply / Always allow <tool> this session / Reject).
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
