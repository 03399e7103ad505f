-- :LockstepSession as a person reads it: `lockstep.session`'s answer (and what waits for review)
-- formatted one fact a line in a scratch buffer, the wrapped server's state first among equals
-- when it failed. :checkhealth lockstep reports the wrapped server the same way (M.wrapped).

local lsp = require("lockstep.lsp")
local reply = require("lockstep.reply")

local M = {}

local api = vim.api

-- JSON null arrives as vim.NIL.
local function value(v)
  if v == nil or v == vim.NIL then
    return nil
  end
  return v
end

local function list(v)
  v = value(v)
  return type(v) == "table" and v or {}
end

local function plural(n, word)
  return string.format("%d %s%s", n, word, n == 1 and "" or "s")
end

--- The wrapped server's state: "ok" (running), "warn" (restarting) or "error" (failed, or
--- stopped on a server that says so), a line saying it, and what is missing (a list; may be
--- empty). nil when nothing is wrapped.
function M.wrapped(w)
  w = value(w)
  if type(w) ~= "table" then
    return nil
  end
  local state = tostring(value(w.state) or "unknown")
  local text = string.format("%s: %s", tostring(value(w.server) or "?"), state)
  local reason = value(w.reason)
  if reason then
    text = text .. " (" .. tostring(reason) .. ")"
  end
  local restarts = tonumber(value(w.restarts)) or 0
  if restarts > 0 then
    text = text .. ", " .. plural(restarts, "restart")
  end
  local level = state == "running" and "ok" or state == "restarting" and "warn" or "error"
  local missing = {}
  for _, feature in ipairs(list(w.missing)) do
    table.insert(missing, tostring(feature))
  end
  return level, text, missing
end

local function model_line(data)
  local line = string.format("%s %s", tostring(value(data.provider) or "?"), tostring(value(data.model) or "(no model set)"))
  local base = value(data.baseUrl)
  if base then
    line = line .. " at " .. tostring(base)
  end
  if data.key_found == true then
    return line .. " · API key found"
  end
  return line
    .. (base and " · no API key (a local endpoint needs none)" or (" · no API key found (a local model needs none: "
      .. "\"provider\": \"ollama\" in .lockstep.json)"))
end

local function review_line(pending)
  local hunks, files, names = 0, 0, {}
  for _, change in ipairs(list(pending)) do
    hunks = hunks + #list(change.hunks)
    if not names[change.file_path] then
      names[change.file_path] = true
      files = files + 1
    end
  end
  if hunks == 0 then
    return "nothing waits"
  end
  local shown = vim.tbl_keys(names)
  table.sort(shown)
  return string.format("%s in %s wait%s: %s (:LockstepReview)", plural(hunks, "hunk"), plural(files, "file"), hunks == 1 and "s" or "", table.concat(shown, ", "))
end

local function companion_line(c)
  c = value(c)
  if type(c) ~= "table" then
    return "off"
  end
  if c.enabled == false then
    return "off" .. (value(c.reason) and (" (" .. tostring(c.reason) .. ")") or "")
  end
  local diffs = #list(c.pending_diffs)
  return string.format("port %s, %s, %s", tostring(value(c.port) or "?"), plural(tonumber(value(c.agents)) or 0, "agent"), diffs == 0 and "no pending diff" or plural(diffs, "pending diff"))
end

local function joined(items)
  local names = {}
  for _, item in ipairs(list(items)) do
    table.insert(names, tostring(item))
  end
  return #names == 0 and "none" or table.concat(names, ", ")
end

-- The last job started or streamed here (`lockstep.job`'s data): its id, state and files.
local function job_line(job)
  if type(job) ~= "table" then
    return "none started here"
  end
  local files = list(job.files_changed)
  return string.format("%s %s%s", tostring(job.job_id), tostring(value(job.status) or "?"), #files > 0 and (", changed " .. joined(files)) or "")
end

--- One line per MCP server of the session (`lockstep.session`'s mcp_servers): its state, its
--- tools or why it failed with its last stderr line; nil when none is configured.
function M.mcp_lines(servers)
  local out = {}
  for _, s in ipairs(list(servers)) do
    local state = tostring(value(s.status) or "?")
    local text
    if state == "connected" then
      text = string.format("%s: connected, %s", tostring(s.name), plural(#list(s.tools), "tool"))
    elseif state == "not started" then
      text = string.format("%s: starts with the first request", tostring(s.name))
    else
      text = string.format("%s: %s%s", tostring(s.name), state, value(s.error) and (" (" .. tostring(s.error) .. ")") or "")
      if value(s.stderr) then
        text = text .. "; last stderr: " .. tostring(s.stderr)
      end
    end
    table.insert(out, { ok = state == "connected" or state == "not started", text = text })
  end
  return out
end

--- The formatted view of `data` (`lockstep.session`'s data), `pending` (`lockstep.review`'s) and
--- `job` (`lockstep.job`'s data of the last job, or nil), as lines.
function M.lines(data, pending, job)
  data = type(data) == "table" and data or {}
  local out = { "lockstep " .. tostring(value(data.version) or "") .. " session", "" }
  local function add(label, text)
    table.insert(out, string.format("%-13s%s", label, text))
  end
  add("model", model_line(data))
  -- Provider, baseUrl and model set in different places (the editor's over .lockstep.json): said, not hidden.
  if value(data.model_warning) then
    add("", "WARNING: " .. tostring(data.model_warning))
  end
  add("approval", tostring(value(data.approval) or "?"))
  -- run_command: how commands are approved, and the sandbox they get here or why there is none.
  local commands = list(data.commands)
  if value(commands.summary) then
    add("commands", tostring(commands.summary))
    add("sandbox", tostring(value(commands.sandbox) or "?"))
  end
  add("last job", job_line(job))
  add("review", review_line(pending))
  add("context", joined(data.files_in_context))
  add("always allow", joined(data.always_allowed))
  add("history", plural(tonumber(value(data.history_messages)) or 0, "message"))
  local usage = list(data.usage)
  add("usage", string.format("%d tokens in, %d out", tonumber(value(usage.input_tokens)) or 0, tonumber(value(usage.output_tokens)) or 0))
  add("instructions", tostring(value(data.project_instructions) or "none"))
  add("companion", companion_line(data.companion))
  local companion = list(data.companion)
  if value(companion.discovery_file) then
    add("", "discovery file " .. tostring(companion.discovery_file))
  end
  if value(companion.environment) then
    add("", "in a terminal: " .. tostring(companion.environment))
  end
  local servers = M.mcp_lines(data.mcp_servers)
  for i, server in ipairs(servers) do
    add(i == 1 and "mcp servers" or "", server.text)
  end
  for _, problem in ipairs(list(data.mcp_problems)) do
    add(#servers == 0 and "mcp servers" or "", tostring(problem))
  end
  local level, text, missing = M.wrapped(data.wrapped)
  if not level then
    add("wrapped", "nothing (lockstep runs alone)")
  else
    add("wrapped", text)
    if #missing > 0 then
      add("", "missing: " .. table.concat(missing, ", "))
    end
    if level == "error" then
      add("", "lockstep's own commands and agent keep working without it")
    end
  end
  return out
end

M.BUFFER_NAME = "lockstep://session"

--- Show `lines` in the session buffer (reused), in a split below; `q` closes it.
function M.open(lines)
  local bufnr = vim.fn.bufnr(M.BUFFER_NAME)
  if bufnr < 0 then
    bufnr = api.nvim_create_buf(false, true)
    api.nvim_buf_set_name(bufnr, M.BUFFER_NAME)
    vim.bo[bufnr].filetype = "lockstep-session"
    vim.keymap.set("n", "q", "<cmd>close<cr>", { buffer = bufnr, silent = true })
  end
  vim.bo[bufnr].modifiable = true
  api.nvim_buf_set_lines(bufnr, 0, -1, false, lines)
  vim.bo[bufnr].modifiable = false
  local win = vim.fn.bufwinid(bufnr)
  if win < 0 then
    vim.cmd("botright " .. math.min(#lines, 20) .. "split")
    api.nvim_win_set_buf(0, bufnr)
  else
    api.nvim_set_current_win(win)
  end
  return bufnr
end

--- Fetch the session, what waits for review and the last job (`last_job`: { client_id, job_id }
--- or nil) and open the view.
function M.show(client, bufnr, last_job)
  lsp.execute(client, bufnr, "lockstep.session", vim.empty_dict(), reply.on_data(function(data)
    lsp.execute(client, bufnr, "lockstep.review", vim.empty_dict(), reply.on_data(function(review)
      local job_client = last_job and vim.lsp.get_client_by_id(last_job.client_id)
      if not job_client then
        M.open(M.lines(data, review.pending))
        return
      end
      lsp.execute(job_client, bufnr, "lockstep.job", { job_id = last_job.job_id }, function(err, result)
        M.open(M.lines(data, review.pending, (reply.unwrap(err, result))))
      end)
    end))
  end))
end

return M
