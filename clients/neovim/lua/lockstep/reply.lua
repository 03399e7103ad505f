-- Reading the server's replies and reporting them: every command answers with the envelope
-- `{ok = true, data}` or `{ok = false, error = {code, message, suggestions}, data?}`.

local M = {}

--- vim.notify with the plugin's prefix.
function M.notify(message, level)
  vim.notify("lockstep: " .. message, level or vim.log.levels.INFO)
end

--- The first line of a message (block and tool messages can run long).
function M.first_line(message)
  return (tostring(message or ""):match("^[^\n]*"))
end

--- Turn a command reply into `data` or a readable failure; the data of a failure (if any)
--- is the third value.
function M.unwrap(err, result)
  if err then
    return nil, "request failed: " .. (type(err) == "table" and tostring(err.message) or tostring(err))
  end
  if type(result) ~= "table" then
    return nil, "the server sent no result"
  end
  if result.ok == false then
    local e = type(result.error) == "table" and result.error or {}
    local text = string.format("%s: %s", e.code or "error", e.message or "unknown error")
    for _, suggestion in ipairs(type(e.suggestions) == "table" and e.suggestions or {}) do
      text = text .. "\n  - " .. tostring(suggestion)
    end
    return nil, text, type(result.data) == "table" and result.data or nil
  end
  return type(result.data) == "table" and result.data or {}, nil
end

--- A command callback that hands the data of a successful reply to `done(data)` and reports
--- a failure as an error.
function M.on_data(done)
  return function(err, result)
    local data, failure = M.unwrap(err, result)
    if failure then
      M.notify(failure, vim.log.levels.ERROR)
    else
      done(data)
    end
  end
end

-- Report each block's status; `failure` is the error of a reply that failed as a whole.
local function render_blocks(data, dry_run, failure)
  local blocks = type(data.blocks) == "table" and data.blocks or {}
  if #blocks == 0 then
    M.notify(failure or "no edit blocks found", failure and vim.log.levels.ERROR or vim.log.levels.WARN)
    return
  end
  local counts, order, lines = {}, {}, {}
  local level = failure and vim.log.levels.ERROR or vim.log.levels.INFO
  for _, block in ipairs(blocks) do
    local status = tostring(block.status)
    if not counts[status] then
      counts[status] = 0
      table.insert(order, status)
    end
    counts[status] = counts[status] + 1
    if status == "failed" then
      level = vim.log.levels.ERROR
    elseif (status == "skipped" or status == "not_in_context") and level ~= vim.log.levels.ERROR then
      level = vim.log.levels.WARN
    end
    table.insert(lines, string.format("%-14s %s  %s", status, block.file_path or "?", M.first_line(block.message)))
  end
  local summary = {}
  for _, status in ipairs(order) do
    table.insert(summary, counts[status] .. " " .. status)
  end
  local header = string.format(
    "%s%d edit block%s: %s",
    dry_run and "(dry run) " or "",
    #blocks,
    #blocks == 1 and "" or "s",
    table.concat(summary, ", ")
  )
  table.insert(lines, 1, header)
  if type(data.files_auto_added) == "table" and #data.files_auto_added > 0 then
    table.insert(lines, "added to the session (resend those blocks): " .. table.concat(data.files_auto_added, ", "))
  end
  if type(data.files_changed) == "table" and #data.files_changed > 0 then
    table.insert(lines, "files changed: " .. table.concat(data.files_changed, ", "))
  end
  if failure then
    table.insert(lines, failure)
  end
  M.notify(table.concat(lines, "\n"), level)
end

--- Report the reply of `lockstep.apply_edit_blocks` (a failed reply still carries the blocks).
function M.report_blocks(err, result, dry_run)
  local data, failure, failed_data = M.unwrap(err, result)
  if failure and not (failed_data and failed_data.blocks) then
    M.notify(failure, vim.log.levels.ERROR)
  else
    render_blocks(data or failed_data, dry_run, failure)
  end
end

return M
