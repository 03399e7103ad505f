-- The chat buffer: a scratch buffer (`lockstep://chat`) where prompts and the agent's
-- streamed answers (`lockstep/stream` notifications) are rendered as they arrive.
--
--   ## you · src/app.ts:10-20
--   explain this function
--
--   ## lockstep · job-1
--   The function parses ...
--   [tool] read_file src/app.ts
--   [ok] read_file: Read 120 lines.
--   [done] done · files changed: src/app.ts

local M = {}

local api = vim.api

local BUFFER_NAME = "lockstep://chat"

local state = {
  bufnr = nil,
  split = "botright vsplit",
  jobs = {}, -- job_id -> { streamed_text = bool, finished = bool }
  current_job = nil, -- the job whose output the buffer's tail belongs to
  line_open = false, -- the last line is answer text that the next text delta continues
  output_open = false, -- the last line is a command's output that its next output continues
}

function M.configure(opts)
  state.split = opts.split or state.split
end

local function buffer()
  if state.bufnr and api.nvim_buf_is_valid(state.bufnr) then
    return state.bufnr
  end
  local existing = vim.fn.bufnr(BUFFER_NAME)
  local bufnr = existing ~= -1 and existing or api.nvim_create_buf(false, true)
  if existing == -1 then
    api.nvim_buf_set_name(bufnr, BUFFER_NAME)
  end
  vim.bo[bufnr].buftype = "nofile"
  vim.bo[bufnr].bufhidden = "hide"
  vim.bo[bufnr].swapfile = false
  vim.bo[bufnr].filetype = "lockstep"
  vim.bo[bufnr].syntax = "markdown"
  vim.bo[bufnr].modifiable = false
  state.bufnr = bufnr
  state.line_open = false
  return bufnr
end

function M.bufnr()
  return buffer()
end

--- Show the chat buffer in a split of the current tab page, keeping the cursor where it is.
function M.open()
  local bufnr = buffer()
  if vim.fn.bufwinid(bufnr) ~= -1 then
    return
  end
  local previous = api.nvim_get_current_win()
  vim.cmd(state.split)
  api.nvim_win_set_buf(0, bufnr)
  vim.wo.wrap = true
  vim.wo.linebreak = true
  vim.wo.number = false
  if api.nvim_win_is_valid(previous) then
    api.nvim_set_current_win(previous)
  end
end

-- Keep windows showing the chat at its end, unless the user moved the cursor up in it.
local function follow(bufnr, was_at_end)
  local last = api.nvim_buf_line_count(bufnr)
  for _, win in ipairs(api.nvim_list_wins()) do
    if api.nvim_win_get_buf(win) == bufnr then
      if win ~= api.nvim_get_current_win() or was_at_end[win] then
        api.nvim_win_set_cursor(win, { last, 0 })
      end
    end
  end
end

local function at_end_by_window(bufnr)
  local last = api.nvim_buf_line_count(bufnr)
  local result = {}
  for _, win in ipairs(api.nvim_list_wins()) do
    if api.nvim_win_get_buf(win) == bufnr then
      result[win] = api.nvim_win_get_cursor(win)[1] >= last
    end
  end
  return result
end

--- Append `text` to the buffer. With `continue`, the first line of `text` extends the last
--- line of the buffer (streamed deltas); otherwise `text` starts on new lines.
local function write(text, continue)
  local bufnr = buffer()
  local was_at_end = at_end_by_window(bufnr)
  local lines = vim.split(text, "\n", { plain = true })
  vim.bo[bufnr].modifiable = true
  local count = api.nvim_buf_line_count(bufnr)
  local empty = count == 1 and api.nvim_buf_get_lines(bufnr, 0, 1, false)[1] == ""
  if continue then
    local last = api.nvim_buf_get_lines(bufnr, count - 1, count, false)[1] or ""
    lines[1] = last .. lines[1]
    api.nvim_buf_set_lines(bufnr, count - 1, count, false, lines)
  elseif empty then
    api.nvim_buf_set_lines(bufnr, 0, 1, false, lines)
  else
    api.nvim_buf_set_lines(bufnr, count, count, false, lines)
  end
  vim.bo[bufnr].modifiable = false
  follow(bufnr, was_at_end)
end

local function event_line(text)
  write(text, false)
  state.line_open = false
  state.output_open = false
end

-- A running command's output as it comes, each line after a bar so it reads apart from the answer.
local function output(text)
  if text == "" then
    return
  end
  local ends = text:sub(-1) == "\n"
  local lines = vim.split(ends and text:sub(1, -2) or text, "\n", { plain = true })
  for i, line in ipairs(lines) do
    if i > 1 or not state.output_open then
      lines[i] = "│ " .. line
    end
  end
  write(table.concat(lines, "\n"), state.output_open)
  state.line_open = false
  state.output_open = not ends
end

local function job(job_id)
  local entry = state.jobs[job_id]
  if not entry then
    entry = { streamed_text = false, finished = false }
    state.jobs[job_id] = entry
  end
  return entry
end

-- Start the section of `job_id` unless the buffer's tail already belongs to it.
local function enter_job(job_id)
  if state.current_job == job_id then
    return
  end
  state.current_job = job_id
  event_line("")
  event_line("## lockstep · " .. tostring(job_id))
  M.open()
end

local function first_line(message)
  local line = (message or ""):match("^[^\n]*")
  if #line < #(message or "") then
    line = line .. " …"
  end
  return line
end

--- Record a prompt the user sent; `where` describes the file and range, if any.
function M.prompt(prompt, where)
  M.open()
  state.current_job = nil
  event_line("")
  event_line("## you" .. (where and (" · " .. where) or ""))
  event_line(prompt)
end

--- The server accepted a prompt and started `job_id`.
function M.started(job_id)
  job(job_id)
  enter_job(job_id)
end

--- Render one `lockstep/stream` notification. Returns true when it ends the job.
function M.stream(params)
  if type(params) ~= "table" or params.job_id == nil then
    return false
  end
  local entry = job(params.job_id)
  enter_job(params.job_id)
  local kind = params.kind
  if kind == "text" then
    local text = params.text or ""
    if not state.line_open then
      -- A paragraph after an event line starts on the next line, without blank lines.
      text = text:gsub("^\n+", "")
    end
    if text ~= "" then
      write(text, state.line_open)
      state.line_open = true
      entry.streamed_text = true
    end
    state.output_open = false
  elseif kind == "output" then
    output(type(params.text) == "string" and params.text or "")
  elseif kind == "tool_call" then
    local line = string.format("[tool] %s %s", params.tool or "?", params.file_path or "")
    event_line((line:gsub("%s+$", "")))
  elseif kind == "tool_result" then
    local label = params.ok == false and "[failed]" or "[ok]"
    event_line(string.format("%s %s: %s", label, params.tool or "?", first_line(params.message)))
  elseif kind == "status" then
    event_line("[status] " .. (params.message or params.status or ""))
  elseif kind == "done" then
    return true
  end
  return false
end

-- Why a job ended, when it says so: the done notification's message or the job's error.
local function reason(message, data)
  if type(message) == "string" and message ~= "" then
    return message
  end
  local err = data and data.error
  if type(err) == "table" then
    return err.message
  end
  return type(err) == "string" and err or nil
end

--- Render the final state of a job: the status and message of the done notification and the
--- `lockstep.job` data (nil if it could not be read).
function M.finished(job_id, status, data, message)
  local entry = job(job_id)
  if entry.finished then
    return
  end
  entry.finished = true
  enter_job(job_id)
  if data and not entry.streamed_text and type(data.text) == "string" and data.text ~= "" then
    event_line(data.text)
  end
  local summary = "[done] " .. tostring((data and data.status) or status or "done")
  local why = reason(message, data)
  if why then
    summary = summary .. ": " .. first_line(why)
  end
  local changed = data and data.files_changed
  if type(changed) == "table" and #changed > 0 then
    summary = summary .. " · files changed: " .. table.concat(changed, ", ")
  end
  event_line(summary)
end

--- Render an error that ended a job or a request.
function M.error(job_id, message)
  if job_id then
    enter_job(job_id)
  end
  event_line("[error] " .. message)
end

--- The buffer's lines (for tests and scripts).
function M.lines()
  return api.nvim_buf_get_lines(buffer(), 0, -1, false)
end

return M
