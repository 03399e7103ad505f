-- Review and revert. With `approval = "review"` the server stages each change the agent
-- proposes, hunk by hunk (an information diagnostic over each hunk, code actions on it); here
-- are the commands around that: the pending hunks in the quickfix list (:LockstepReview), a
-- decision on the hunk under the cursor or on a whole file (:LockstepAccept[!],
-- :LockstepReject[!]) and undoing a job (:LockstepRevert). Every function takes the lockstep
-- client that serves the current buffer (init.lua finds it) and reports with vim.notify.

local lsp = require("lockstep.lsp")
local reply = require("lockstep.reply")
local proposed = require("lockstep.proposed")

local M = {}

local api = vim.api
local notify = reply.notify
local levels = vim.log.levels

--- The title of the quickfix list :LockstepReview fills. While that list is the current one,
--- every decision refreshes it.
M.QF_TITLE = "lockstep review"

-- Runs a lockstep command and calls `done(data)` with the data of a successful reply.
local function run(client, bufnr, name, argument, done)
  lsp.execute(client, bufnr, name, argument, reply.on_data(done))
end

-- The server names files relative to its root.
local function absolute(client, file_path)
  if file_path:sub(1, 1) == "/" or file_path:match("^%a:[/\\]") then
    return file_path
  end
  return (client.config.root_dir or vim.fn.getcwd()) .. "/" .. file_path
end

local function is_ours()
  return vim.fn.getqflist({ title = 0 }).title == M.QF_TITLE
end

--- Fill the quickfix list with every pending hunk (one entry per hunk, over the lines it
--- changes) and open it. `opts.refresh`: only update the list, and only while it is current.
function M.list(client, bufnr, opts)
  opts = opts or {}
  run(client, bufnr, "lockstep.review", vim.empty_dict(), function(data)
    local items = {}
    for _, change in ipairs(type(data.pending) == "table" and data.pending or {}) do
      for _, hunk in ipairs(change.hunks or {}) do
        table.insert(items, {
          filename = absolute(client, change.file_path),
          lnum = hunk.line,
          end_lnum = hunk.end_line,
          col = 1,
          -- A hunk whose own lines changed since cannot land: shown as a warning, with why.
          type = hunk.conflict and "W" or "I",
          text = string.format("[%s] %s %s%s", hunk.hunk_id, change.tool, proposed.summary(hunk), hunk.conflict and (" — conflict: " .. hunk.conflict) or ""),
        })
      end
    end
    local current = is_ours()
    if opts.refresh and not current then
      return
    end
    if #items == 0 and not current then
      notify("nothing waits for review")
      return
    end
    vim.fn.setqflist({}, current and "r" or " ", { title = M.QF_TITLE, items = items })
    if opts.refresh then
      return
    end
    if #items == 0 then
      notify("nothing waits for review")
    else
      vim.cmd("botright copen")
    end
  end)
end

--- Report the hunks a decision settled (`lockstep.decide`'s data) and refresh the review list.
function M.decided(client, bufnr, data)
  local lines, level = {}, levels.INFO
  for _, hunk in ipairs(type(data.hunks) == "table" and data.hunks or {}) do
    local line = tostring(hunk.hunk_id) .. " " .. tostring(hunk.status)
    if type(hunk.message) == "string" and hunk.message ~= "" then
      line = line .. ": " .. hunk.message
    end
    if hunk.status == "conflict" then
      level = levels.WARN
    end
    table.insert(lines, line)
  end
  notify(#lines > 0 and table.concat(lines, "\n") or "nothing was decided", level)
  M.list(client, bufnr, { refresh = true })
end

-- The file buffer and line a decision is about: the cursor's, or in the quickfix window the
-- entry under the cursor.
local function target(bufnr)
  local line = api.nvim_win_get_cursor(0)[1]
  if vim.bo[bufnr].buftype ~= "quickfix" then
    return bufnr, line
  end
  local info = vim.fn.getwininfo(api.nvim_get_current_win())[1] or {}
  local item = (info.loclist == 1 and vim.fn.getloclist(0) or vim.fn.getqflist())[line]
  if item and item.bufnr > 0 then
    return item.bufnr, item.lnum
  end
  return nil
end

local function hunk_at(pending, line)
  for _, change in ipairs(type(pending) == "table" and pending or {}) do
    for _, hunk in ipairs(change.hunks or {}) do
      if hunk.line <= line and line <= hunk.end_line then
        return hunk
      end
    end
  end
  return nil
end

--- Decide ("apply" or "reject") the hunk under the cursor, or with `whole_file` every pending
--- hunk of the current file.
function M.decide(client, bufnr, decision, whole_file)
  local file_buf, line = target(bufnr)
  local name = file_buf and api.nvim_buf_get_name(file_buf) or ""
  if name == "" or vim.bo[file_buf].buftype ~= "" then
    notify("not a file: put the cursor on a proposed change (:LockstepReview lists them)", levels.WARN)
    return
  end
  local file = vim.fn.fnamemodify(name, ":p")
  local function decide(argument)
    run(client, bufnr, "lockstep.decide", argument, function(data)
      M.decided(client, bufnr, data)
    end)
  end
  if whole_file then
    decide({ file_path = file, decision = decision })
    return
  end
  -- Where the hunks are now: the request carries the buffer's pending changes first.
  run(client, bufnr, "lockstep.review", { file_path = file }, function(data)
    local hunk = hunk_at(data.pending, line)
    if not hunk then
      local where = vim.fn.fnamemodify(file, ":~:.")
      notify(string.format("no proposed change at line %d of %s (:LockstepReview lists them)", line, where), levels.WARN)
      return
    end
    decide({ id = hunk.hunk_id, decision = decision })
  end)
end

--- Undo the changes of job `job_id` (the last job that changed a file when nil), file by file;
--- a file whose undone lines were edited since is left as it is and reported.
function M.revert(client, bufnr, job_id)
  local argument = (job_id and job_id ~= "") and { job_id = job_id } or vim.empty_dict()
  run(client, bufnr, "lockstep.revert", argument, function(data)
    local lines, level = { "revert of " .. tostring(data.job_id) }, levels.INFO
    for _, file in ipairs(type(data.files) == "table" and data.files or {}) do
      local message = tostring(file.message or "")
      if file.status == "conflict" then
        level = levels.WARN
      else
        message = reply.first_line(message)
      end
      table.insert(lines, string.format("%-9s %s  %s", tostring(file.status), tostring(file.file_path), message))
    end
    notify(table.concat(lines, "\n"), level)
  end)
end

return M
