-- Stored sessions: the conversations the server keeps on disk for this project.
-- :LockstepSessions picks one through vim.ui.select and resumes it; :LockstepResume [id]
-- resumes the one named (the picker without an id). Once resumed, the next :LockstepAsk
-- continues that conversation and :LockstepRevert undoes its runs. Every function takes the
-- lockstep client that serves the current buffer (init.lua finds it).

local lsp = require("lockstep.lsp")
local reply = require("lockstep.reply")

local M = {}

local function run(client, bufnr, name, argument, done)
  lsp.execute(client, bufnr, name, argument, reply.on_data(done))
end

--- One line of the picker: when, turns, files changed, title.
function M.format(session)
  local files = type(session.files_changed) == "table" and #session.files_changed or 0
  local when = tostring(session.updated or ""):gsub("T", " "):sub(1, 16)
  local live = session.live ~= nil and session.live ~= vim.NIL and "  (live elsewhere)" or ""
  return string.format("%s  %d turns  %d file%s  %s%s", when, session.turns or 0, files, files == 1 and "" or "s", tostring(session.title), live)
end

--- Resume the stored session `id` in this server.
function M.resume(client, bufnr, id)
  if id == nil or id == "" then
    return M.pick(client, bufnr)
  end
  run(client, bufnr, "lockstep.resume", { session_id = id }, function(data)
    reply.notify(tostring(data.message or ("resumed " .. id)))
  end)
end

--- The project's stored sessions, newest first, in vim.ui.select; the choice is resumed.
function M.pick(client, bufnr)
  run(client, bufnr, "lockstep.sessions", vim.empty_dict(), function(data)
    local sessions = type(data.sessions) == "table" and data.sessions or {}
    if #sessions == 0 then
      reply.notify("no stored session for this project")
      return
    end
    vim.ui.select(sessions, { prompt = "lockstep: resume a session", format_item = M.format, kind = "lockstep.sessions" }, function(choice)
      if choice then
        M.resume(client, bufnr, choice.id)
      end
    end)
  end)
end

return M
