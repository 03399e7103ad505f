-- The approval question with the change in it (`lockstep/approve`): each file's diff in a
-- floating window while the choices are asked; "Show the whole diff" opens it in a tab and
-- asks again; "Reject and say why" (for a change, a command or a call) asks for the words the
-- model will read. A command's question shows its line, where it runs, the sandbox and what
-- "always" allows; an MCP call's the server, the tool and the arguments (the server redacted
-- and bounded them).
-- Neovim 0.7.2 APIs only (nvim_open_win with border, no title).

local M = {}

local api = vim.api

local function split(text)
  return vim.split(tostring(text or ""), "\n", { plain = true })
end

local function has(list, item)
  return type(list) == "table" and vim.tbl_contains(list, item)
end

local function command_lines(params)
  local where = (params.cwd == nil or params.cwd == ".") and "the project root" or params.cwd
  local out = { "run_command in " .. where .. ":" }
  for _, line in ipairs(split(params.command)) do
    table.insert(out, "  $ " .. line)
  end
  table.insert(out, tostring(params.sandbox or (params.sandboxed and "Sandboxed." or "Not sandboxed.")))
  if type(params.reasons) == "table" and #params.reasons > 0 then
    table.insert(out, "Asked because: " .. table.concat(params.reasons, "; ") .. ".")
  end
  if has(params.decisions, "always") and type(params.prefixes) == "table" then
    local quoted = {}
    for _, p in ipairs(params.prefixes) do
      table.insert(quoted, "`" .. tostring(p) .. "`")
    end
    table.insert(out, "Always would allow: " .. table.concat(quoted, ", ") .. " for this session")
  else
    table.insert(out, "This command cannot be allowed for the session; it is asked about each time.")
  end
  return out
end

local function call_lines(params)
  local out = {
    string.format("MCP server %s, tool %s (%s)", tostring(params.server), tostring(params.server_tool), tostring(params.tool)),
    "Arguments:",
  }
  for _, line in ipairs(split(params.arguments)) do
    table.insert(out, "  " .. line)
  end
  return out
end

--- What the window shows: each file's diff under its own header, a command, or a call.
function M.lines(params)
  if params.kind == "command" then
    return command_lines(params)
  elseif params.kind == "call" then
    return call_lines(params)
  end
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

local function filetype_of(params)
  return ({ command = "sh", call = "json" })[params.kind] or "diff"
end

local function scratch(lines, filetype)
  local buf = api.nvim_create_buf(false, true)
  api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  api.nvim_buf_set_option(buf, "filetype", filetype or "diff")
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
    table.insert(lines, string.format("... %d more lines: choose \"%s\"", #M.lines(params) - height + 1, M.show_title(params)))
  end
  local width = 20
  for _, line in ipairs(lines) do
    width = math.max(width, vim.fn.strdisplaywidth(line))
  end
  width = math.min(width, columns - 4)
  local buf = scratch(lines, filetype_of(params))
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

--- The choice that shows everything in a tab.
function M.show_title(params)
  return (params.kind == "command" or params.kind == "call") and "Show it all" or "Show the whole diff"
end

local function choices(params)
  if params.kind == "command" then
    local out = { { title = "Run once", decision = "once" } }
    if has(params.decisions, "always") then
      table.insert(out, { title = tostring(params.always or "Always allow this command this session"), decision = "always" })
    end
    table.insert(out, { title = "Reject", decision = "reject" })
    table.insert(out, { title = "Reject and say why", decision = "reject", reason = true })
    if has(params.decisions, "stop") then
      table.insert(out, { title = "Stop the run", decision = "stop" })
    end
    table.insert(out, { title = M.show_title(params), show = true })
    return out
  elseif params.kind == "call" then
    local out = {
      { title = "Apply", decision = "apply" },
      { title = "Always allow " .. tostring(params.tool) .. " this session", decision = "always_tool" },
      { title = "Always allow server " .. tostring(params.server) .. " this session", decision = "always_server" },
      { title = "Reject", decision = "reject" },
      { title = "Reject and say why", decision = "reject", reason = true },
    }
    if has(params.decisions, "stop") then
      table.insert(out, { title = "Stop the run", decision = "stop" })
    end
    table.insert(out, { title = M.show_title(params), show = true })
    return out
  end
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
  local buf = scratch(M.lines(params), filetype_of(params))
  vim.cmd("tabnew")
  api.nvim_win_set_buf(0, buf)
  vim.cmd("redraw")
end

--- One line for the picker; the window shows the rest.
function M.prompt(params)
  if params.kind == "command" then
    local where = (params.cwd == nil or params.cwd == ".") and "" or (" in " .. tostring(params.cwd))
    return "lockstep wants to run" .. where .. ": " .. split(params.command)[1] .. (#split(params.command) > 1 and " ..." or "")
  elseif params.kind == "call" then
    return string.format("lockstep wants to call %s on the MCP server %s", tostring(params.server_tool), tostring(params.server))
  end
  return "lockstep: " .. tostring(params.message or "")
end

--- Asks until there is a decision; `nil` when the question was closed without one.
function M.ask(params, select, input)
  local opts = {
    prompt = M.prompt(params),
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
