-- The approval question with the change in it (`lockstep/approve`): each file's diff in a
-- floating window while the choices are asked; "Show the whole diff" opens it in a tab and
-- asks again; "Reject and say why" asks for the words the model will read.
-- Neovim 0.7.2 APIs only (nvim_open_win with border, no title).

local M = {}

local api = vim.api

--- The diff lines of every file, each under its own header.
function M.lines(params)
  local out = {}
  for _, file in ipairs(params.files or {}) do
    local head = file.file_path
    if file.op == "move" and file.moved_from then
      head = file.moved_from .. " -> " .. file.file_path
    elseif file.op == "add" then
      head = "new file " .. file.file_path
    elseif file.op == "delete" then
      head = "delete " .. file.file_path
    end
    table.insert(out, string.format("%s (+%d -%d)", head, file.added or 0, file.removed or 0))
    for _, line in ipairs(vim.split(file.diff or "", "\n", { plain = true })) do
      -- The file header lines repeat the path above.
      if not (line:find("^%-%-%- ") or line:find("^%+%+%+ ") or line:find("^===") or line:find("^Index: ")) then
        table.insert(out, line)
      end
    end
  end
  while #out > 0 and out[#out] == "" do
    table.remove(out)
  end
  return out
end

local function scratch(lines)
  local buf = api.nvim_create_buf(false, true)
  api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  api.nvim_buf_set_option(buf, "filetype", "diff")
  api.nvim_buf_set_option(buf, "modifiable", false)
  api.nvim_buf_set_option(buf, "bufhidden", "wipe")
  return buf
end

--- Opens the floating window; returns what `close` needs.
function M.show(params)
  local lines = M.lines(params)
  local columns, rows = vim.o.columns, vim.o.lines
  local height = math.max(1, math.min(#lines, rows - 10))
  if #lines > height then
    lines = vim.list_slice(lines, 1, height - 1)
    table.insert(lines, string.format("... %d more lines: choose \"Show the whole diff\"", #M.lines(params) - height + 1))
  end
  local width = 20
  for _, line in ipairs(lines) do
    width = math.max(width, vim.fn.strdisplaywidth(line))
  end
  width = math.min(width, columns - 4)
  local buf = scratch(lines)
  local ok, win = pcall(api.nvim_open_win, buf, false, {
    relative = "editor",
    row = 1,
    col = math.max(0, math.floor((columns - width) / 2) - 1),
    width = width,
    height = height,
    style = "minimal",
    border = "rounded",
    focusable = false,
  })
  if ok then
    vim.cmd("redraw")
    return { win = win, buf = buf }
  end
  return { buf = buf }
end

function M.close(shown)
  if shown and shown.win and api.nvim_win_is_valid(shown.win) then
    api.nvim_win_close(shown.win, true)
  end
end

local function choices(params)
  return {
    { title = "Apply", decision = "apply" },
    { title = "Always allow " .. tostring(params.tool) .. " this session", decision = "always" },
    { title = "Reject", decision = "reject" },
    { title = "Reject and say why", decision = "reject", reason = true },
    { title = "Stop the run", decision = "stop" },
    { title = "Show the whole diff", show = true },
  }
end

--- The whole diff in a new tab (the user closes it with :tabclose).
local function show_whole(params)
  local buf = scratch(M.lines(params))
  vim.cmd("tabnew")
  api.nvim_win_set_buf(0, buf)
  vim.cmd("redraw")
end

--- Asks until there is a decision; `nil` when the question was closed without one.
function M.ask(params, select, input)
  local opts = {
    prompt = "lockstep: " .. tostring(params.message or ""),
    kind = "lockstep.approval",
    format_item = function(choice)
      return choice.title
    end,
  }
  for _ = 1, 10 do
    local choice = select(choices(params), opts)
    if choice == nil then
      return nil
    end
    if choice.show then
      show_whole(params)
    elseif choice.reason then
      local text = input({ prompt = "Why not (the model reads this): " })
      if text ~= nil and vim.trim(text) ~= "" then
        return { decision = "reject", reason = text }
      end
      return { decision = "reject" }
    else
      return { decision = choice.decision }
    end
  end
  return nil
end

return M
