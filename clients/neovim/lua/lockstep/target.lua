-- What a command points the agent at: the buffer's file and the selected range, and that range
-- in LSP positions for the client's position encoding.

local M = {}

local api = vim.api

--- The absolute name of the file `bufnr` shows; nil for scratch, special and URI buffers.
function M.file(bufnr)
  if vim.bo[bufnr].buftype ~= "" then
    return nil
  end
  local name = api.nvim_buf_get_name(bufnr)
  if name == "" or name:match("^%a[%w+.-]*://") then
    return nil
  end
  return vim.fn.fnamemodify(name, ":p")
end

-- LSP `character` of byte column `col` in `line` for the client's position encoding.
local function lsp_character(line, col, encoding)
  local prefix = line:sub(1, col)
  if encoding == "utf-8" then
    return #prefix
  end
  local units = 0
  for char in prefix:gmatch("[%z\1-\127\194-\244][\128-\191]*") do
    units = units + ((encoding ~= "utf-32" and #char == 4) and 2 or 1)
  end
  return units
end

--- The selection an Ex range names, as byte positions (0-based lines, end exclusive).
--- A characterwise visual selection keeps its columns; any other range covers whole lines.
function M.selection(bufnr, opts)
  if not opts or (opts.range or 0) == 0 then
    return nil
  end
  local from = api.nvim_buf_get_mark(bufnr, "<")
  local to = api.nvim_buf_get_mark(bufnr, ">")
  local function line_text(row)
    return api.nvim_buf_get_lines(bufnr, row, row + 1, false)[1] or ""
  end
  if vim.fn.visualmode() == "v" and from[1] == opts.line1 and to[1] == opts.line2 then
    local last = line_text(to[1] - 1)
    local char = last:sub(to[2] + 1):match("^[%z\1-\127\194-\244][\128-\191]*") or ""
    return { from[1] - 1, from[2], to[1] - 1, math.min(to[2] + #char, #last) }
  end
  return { opts.line1 - 1, 0, opts.line2 - 1, #line_text(opts.line2 - 1) }
end

--- A selection of `bufnr` as an LSP range, its characters counted in `encoding`.
function M.lsp_range(bufnr, sel, encoding)
  local function pos(row, col)
    local text = api.nvim_buf_get_lines(bufnr, row, row + 1, false)[1] or ""
    return { line = row, character = lsp_character(text, col, encoding) }
  end
  return { start = pos(sel[1], sel[2]), ["end"] = pos(sel[3], sel[4]) }
end

return M
