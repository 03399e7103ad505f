-- What the agent proposes, shown where it would go: under each hunk that waits for review, its
-- removed and added lines as virtual lines (extmark `virt_lines`) in the diff colours, with a
-- header naming the hunk. The server publishes a diagnostic per pending hunk and publishes again
-- whenever one is staged, decided or moves; each publish for a buffer fetches that file's hunks
-- (`lockstep.review`) and redraws them, so decided hunks vanish with their diagnostics.

local lsp = require("lockstep.lsp")

local M = {}

local api = vim.api

M.namespace = api.nvim_create_namespace("lockstep_proposed")

-- Linked by default, so a colour scheme (or the user) can give them their own colours; linked
-- again after a colour scheme loads, which clears them.
local function link_highlights()
  vim.cmd([[
    highlight default link LockstepProposedAdd DiffAdd
    highlight default link LockstepProposedDelete DiffDelete
    highlight default link LockstepProposedHeader Comment
  ]])
end
link_highlights()
api.nvim_create_autocmd("ColorScheme", {
  group = api.nvim_create_augroup("lockstep_proposed", { clear = true }),
  callback = link_highlights,
})

-- The latest refresh asked for per buffer: an older reply is dropped.
local generation = {}

--- The removed and added lines of a hunk's unified diff, and whether it starts at the top of
--- the file (no context above its first change).
function M.parse(diff)
  local removed, added, above, changed = {}, {}, 0, false
  for line in tostring(diff or ""):gmatch("[^\n]+") do
    local sign, text = line:sub(1, 1), line:sub(2)
    if sign == "-" then
      table.insert(removed, text)
      changed = true
    elseif sign == "+" then
      table.insert(added, text)
      changed = true
    elseif sign == " " and not changed then
      above = above + 1
    end
  end
  return removed, added, above == 0
end

--- "+a −r: first added line", for a server that sends no `summary`.
function M.summary(hunk)
  if type(hunk.summary) == "string" then
    return hunk.summary
  end
  local removed, added = M.parse(hunk.diff)
  local first = added[1] and vim.trim(added[1]) or (removed[1] and ("− " .. vim.trim(removed[1]))) or ""
  return string.format("+%d −%d", #added, #removed) .. (first ~= "" and (": " .. first) or "")
end

-- The virtual lines of one hunk: a header, then `- old` and `+ new` lines.
local function virt_lines(change, hunk)
  local removed, added = M.parse(hunk.diff)
  local header = string.format("  %s %s %s", hunk.hunk_id, change.tool or "", M.summary(hunk))
  if hunk.conflict then
    header = header .. " (conflict: " .. hunk.conflict .. ")"
  end
  local out = { { { header, "LockstepProposedHeader" } } }
  for _, line in ipairs(removed) do
    table.insert(out, { { "- " .. line, "LockstepProposedDelete" } })
  end
  for _, line in ipairs(added) do
    table.insert(out, { { "+ " .. line, "LockstepProposedAdd" } })
  end
  return out
end

--- Show `pending` (`lockstep.review`'s changes, those of this buffer's file) in `bufnr`, in
--- place of what was shown.
function M.show(bufnr, pending)
  if not api.nvim_buf_is_valid(bufnr) then
    return
  end
  api.nvim_buf_clear_namespace(bufnr, M.namespace, 0, -1)
  local last = api.nvim_buf_line_count(bufnr)
  for _, change in ipairs(type(pending) == "table" and pending or {}) do
    for _, hunk in ipairs(change.hunks or {}) do
      local removed, _, at_top = M.parse(hunk.diff)
      -- An insertion at the top of the file goes above line 1; everything else under its last line.
      local above = at_top and #removed == 0 and hunk.line == 1
      local row = math.max(0, math.min(above and 1 or hunk.end_line, last) - 1)
      api.nvim_buf_set_extmark(bufnr, M.namespace, row, 0, {
        virt_lines = virt_lines(change, hunk),
        virt_lines_above = above,
      })
    end
  end
end

function M.clear(bufnr)
  generation[bufnr] = (generation[bufnr] or 0) + 1
  if api.nvim_buf_is_valid(bufnr) then
    api.nvim_buf_clear_namespace(bufnr, M.namespace, 0, -1)
  end
end

--- Fetch the pending hunks of `bufnr`'s file and show them.
function M.refresh(client, bufnr)
  local name = api.nvim_buf_get_name(bufnr)
  if name == "" then
    return
  end
  generation[bufnr] = (generation[bufnr] or 0) + 1
  local mine = generation[bufnr]
  lsp.execute(client, bufnr, "lockstep.review", { file_path = vim.fn.fnamemodify(name, ":p") }, function(err, result)
    -- A failed fetch leaves the diagnostics to tell; nothing stale is drawn.
    if generation[bufnr] ~= mine then
      return
    end
    local ok = not err and type(result) == "table" and result.ok and type(result.data) == "table"
    M.show(bufnr, ok and result.data.pending or {})
  end)
end

--- After a publishDiagnostics from lockstep: redraw the buffer's proposed lines when it has
--- pending hunks (their diagnostics carry `data.hunk`), clear them when it has none. A file
--- opened later is drawn then: the server publishes its hunks again on didOpen.
function M.published(params, client)
  if type(params) ~= "table" or type(params.uri) ~= "string" then
    return
  end
  local fname = vim.uri_to_fname(params.uri)
  -- By name, not with bufnr(), which reads its argument as a pattern.
  local bufnr
  for _, b in ipairs(api.nvim_list_bufs()) do
    if api.nvim_buf_get_name(b) == fname then
      bufnr = b
    end
  end
  if bufnr == nil or not api.nvim_buf_is_loaded(bufnr) then
    return
  end
  for _, d in ipairs(type(params.diagnostics) == "table" and params.diagnostics or {}) do
    if type(d.data) == "table" and d.data.hunk ~= nil then
      if client then
        M.refresh(client, bufnr)
      end
      return
    end
  end
  M.clear(bufnr)
end

--- The proposed lines shown in `bufnr`: per extmark its 0-based row, whether above, and lines
--- of { text, highlight } (for tests and statuslines).
function M.shown(bufnr)
  local out = {}
  for _, mark in ipairs(api.nvim_buf_get_extmarks(bufnr, M.namespace, 0, -1, { details = true })) do
    local details = mark[4] or {}
    local lines = {}
    for _, chunks in ipairs(details.virt_lines or {}) do
      local chunk = chunks[1] or {}
      table.insert(lines, { chunk[1], chunk[2] })
    end
    table.insert(out, { row = mark[2], above = details.virt_lines_above == true, lines = lines })
  end
  return out
end

return M
