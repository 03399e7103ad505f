-- lockstep for Neovim: attaches the lockstep language server to file buffers and offers the
-- agent commands (:LockstepAsk, :LockstepApplyBlocks, :LockstepCancel, :LockstepSession) and
-- the review's (:LockstepReview, :LockstepAccept, :LockstepReject, :LockstepRevert, in
-- review.lua). Everything else (staged edits, patches, `lockstep: ...` comments) comes through
-- the ordinary code-action menu.

local lsp = require("lockstep.lsp")
local chat = require("lockstep.chat")
local approval = require("lockstep.approval")
local reply = require("lockstep.reply")
local review = require("lockstep.review")
local proposed = require("lockstep.proposed")
local session_view = require("lockstep.session_view")
local target = require("lockstep.target")

local M = {}

local api = vim.api

local defaults = {
  -- The server command; e.g. { "node", "/path/to/lockstep/bin/lockstep.js", "--stdio" }.
  cmd = { "lockstep", "--stdio" },
  -- nil attaches to every file buffer (code, markdown, text); a list restricts to filetypes.
  filetypes = nil,
  -- Sent as initializationOptions and as the `lockstep` section of workspace/configuration:
  -- { model?, approval? = "ask"|"auto"|"review", closedFileEdits? = "editor"|"disk", transcript?, debug? }
  settings = {},
  -- Tried in order; the nearest directory holding the first marker found is the root.
  root_markers = { ".git", ".hg", "package.json", "pyproject.toml", "Cargo.toml", "go.mod" },
  -- The Ex command that opens the chat window.
  chat = { split = "botright vsplit" },
  -- How long a command waits for a just-started server to finish `initialize`.
  startup_timeout = 10000,
}

local config = nil

-- The last job started from this Neovim (the target of :LockstepCancel).
local last_job = nil

local notify = reply.notify
local unwrap = reply.unwrap

local function fetch_job(client, job_id, status, message)
  lsp.execute(client, api.nvim_get_current_buf(), "lockstep.job", { job_id = job_id }, function(err, result)
    local data = unwrap(err, result)
    chat.finished(job_id, status, data, message)
  end)
end

local function follow_job(client_id, job_id)
  last_job = { client_id = client_id, job_id = job_id }
  chat.started(job_id)
end

-- Handlers installed on the lockstep client only; other language servers keep Neovim's.
local handlers = {}

handlers["lockstep/stream"] = function(_, params, ctx)
  if type(params) ~= "table" or params.job_id == nil then
    return
  end
  if not last_job or last_job.job_id ~= params.job_id then
    last_job = { client_id = ctx.client_id, job_id = params.job_id }
  end
  if chat.stream(params) then
    local client = vim.lsp.get_client_by_id(ctx.client_id)
    if client then
      fetch_job(client, params.job_id, params.status, params.message)
    else
      chat.finished(params.job_id, params.status, nil, params.message)
    end
  end
end

handlers["window/showMessageRequest"] = approval.show_message_request
handlers["lockstep/approve"] = approval.approve

-- Before the agent runs a command: the buffers of the files it changed are written, so the
-- command sees its text. Answers the uris written, and those whose write failed with why; a
-- buffer not loaded or not modified is left (the server reads the disk again).
handlers["lockstep/saveFiles"] = function(_, params)
  local saved, failed = {}, {}
  for _, uri in ipairs((type(params) == "table" and params.uris) or {}) do
    local bufnr = vim.uri_to_bufnr(uri)
    if vim.api.nvim_buf_is_loaded(bufnr) and vim.bo[bufnr].modified then
      local ok, err = pcall(vim.api.nvim_buf_call, bufnr, function()
        vim.cmd("silent write")
      end)
      if ok and not vim.bo[bufnr].modified then
        table.insert(saved, uri)
      else
        table.insert(failed, { uri = uri, message = ok and "still modified after writing" or tostring(err) })
      end
    end
  end
  return { saved = saved, failed = failed }
end

-- Neovim's own handler shows the diagnostics; proposed.lua draws the pending hunks' proposed lines.
handlers["textDocument/publishDiagnostics"] = function(err, params, ctx, handler_config)
  vim.lsp.handlers["textDocument/publishDiagnostics"](err, params, ctx, handler_config)
  proposed.published(params, vim.lsp.get_client_by_id(ctx.client_id))
end

-- Replies to commands run from the code-action menu (our own requests pass a callback).
handlers["workspace/executeCommand"] = function(err, result, ctx)
  local params = ctx and ctx.params or {}
  if params.command == "lockstep.apply_edit_blocks" then
    local argument = type(params.arguments) == "table" and params.arguments[1] or {}
    reply.report_blocks(err, result, type(argument) == "table" and argument.dry_run == true)
    return
  end
  local data, failure = unwrap(err, result)
  if failure then
    notify(failure, vim.log.levels.ERROR)
  elseif params.command == "lockstep.decide" then
    local client = vim.lsp.get_client_by_id(ctx.client_id)
    if client then
      review.decided(client, api.nvim_get_current_buf(), data)
    end
  elseif data.job_id then
    follow_job(ctx.client_id, data.job_id)
  elseif type(data.message) == "string" then
    notify(data.message)
  end
end

-- Code actions run their command through M.execute (not Neovim's default, which flushes only the
-- current buffer's pending changes), and report the reply like our own commands.
for _, name in ipairs({ "lockstep.apply_edit_blocks", "lockstep.safe_patch", "lockstep.ask", "lockstep.decide" }) do
  vim.lsp.commands[name] = function(command, ctx)
    local client = vim.lsp.get_client_by_id(ctx.client_id)
    if not client then
      return
    end
    local argument = type(command.arguments) == "table" and command.arguments[1] or vim.empty_dict()
    lsp.execute(client, ctx.bufnr, command.command, argument, function(err, result)
      handlers["workspace/executeCommand"](err, result, { client_id = ctx.client_id, params = command })
    end)
  end
end

local function check(name, value, kind, optional)
  if value == nil and optional then
    return
  end
  if type(value) ~= kind then
    error(string.format("lockstep: setup option `%s` must be a %s", name, kind), 3)
  end
end

local function validate(opts)
  check("cmd", opts.cmd, "table")
  check("filetypes", opts.filetypes, "table", true)
  check("settings", opts.settings, "table")
  check("root_markers", opts.root_markers, "table")
  check("chat", opts.chat, "table")
  check("startup_timeout", opts.startup_timeout, "number")
  if type(opts.cmd[1]) ~= "string" then
    error("lockstep: setup option `cmd` must be a list like { 'lockstep', '--stdio' }", 2)
  end
end

local function try_attach(bufnr)
  if lsp.should_attach(bufnr, config.filetypes) then
    lsp.attach(bufnr, config, handlers)
  end
end

--- Configure lockstep and attach it to file buffers, now and as they are opened.
function M.setup(opts)
  if vim.fn.has("nvim-0.7.2") ~= 1 then
    notify("Neovim 0.7.2 or newer is required", vim.log.levels.ERROR)
    return
  end
  local resolved = vim.tbl_deep_extend("force", vim.deepcopy(defaults), opts or {})
  -- Lists replace the defaults rather than merging index by index.
  for _, key in ipairs({ "cmd", "filetypes", "root_markers" }) do
    if opts and opts[key] ~= nil then
      resolved[key] = opts[key]
    end
  end
  validate(resolved)
  config = resolved
  chat.configure(config.chat)

  local group = api.nvim_create_augroup("lockstep", { clear = true })
  api.nvim_create_autocmd({ "BufReadPost", "BufNewFile", "FileType" }, {
    group = group,
    desc = "Attach the lockstep language server",
    callback = function(args)
      local bufnr = args.buf
      -- Scheduled so that filetype detection has run (it is the languageId of didOpen).
      vim.schedule(function()
        try_attach(bufnr)
      end)
    end,
  })
  for _, bufnr in ipairs(api.nvim_list_bufs()) do
    try_attach(bufnr)
  end
end

local function ensure_setup()
  if not config then
    M.setup({})
  end
  return config ~= nil
end

--- The resolved configuration (nil before setup).
function M.config()
  return config
end

local function with_client(bufnr, fn)
  if not ensure_setup() then
    return
  end
  local client = lsp.client_for(bufnr, config, handlers)
  if not client then
    notify("no lockstep server for this buffer (see :checkhealth lockstep)", vim.log.levels.ERROR)
    return
  end
  lsp.when_ready(client, config.startup_timeout, fn)
end

--- Ask the agent. `opts` may carry an Ex range (`range`, `line1`, `line2`) to point the agent
--- at the selected part of the current file.
function M.ask(prompt, opts)
  local bufnr = api.nvim_get_current_buf()
  local file = target.file(bufnr)
  local sel = file and target.selection(bufnr, opts) or nil
  with_client(bufnr, function(client)
    local argument = { prompt = prompt }
    local where = nil
    if file then
      argument.file_path = file
      where = vim.fn.fnamemodify(file, ":~:.")
      if sel then
        argument.range = target.lsp_range(bufnr, sel, client.offset_encoding or "utf-16")
        where = string.format("%s:%d-%d", where, sel[1] + 1, sel[3] + 1)
      end
    end
    chat.prompt(prompt, where)
    lsp.execute(client, bufnr, "lockstep.ask", argument, function(err, result)
      local data, failure = unwrap(err, result)
      if failure then
        chat.error(nil, failure)
        notify(failure, vim.log.levels.ERROR)
      elseif data.job_id == nil then
        chat.error(nil, "the server started no job")
      else
        follow_job(client.id, data.job_id)
      end
    end)
  end)
end

--- :LockstepAsk [prompt]: without a prompt, asks for one with vim.ui.input.
function M.ask_command(opts)
  local prompt = opts.args
  if prompt ~= nil and prompt ~= "" then
    M.ask(prompt, opts)
    return
  end
  vim.ui.input({ prompt = "lockstep> " }, function(input)
    if input and input ~= "" then
      M.ask(input, opts)
    end
  end)
end

--- Send edit blocks (``««« EDIT`` … ``»»» EDIT END``) from the current buffer (or the lines
--- `opts.line1`..`opts.line2` when a range is given); `opts.dry_run` only checks them.
function M.apply_blocks(opts)
  opts = opts or {}
  local bufnr = api.nvim_get_current_buf()
  local first, last = 0, -1
  if (opts.range or 0) > 0 then
    first, last = opts.line1 - 1, opts.line2
  end
  local text = table.concat(api.nvim_buf_get_lines(bufnr, first, last, false), "\n")
  local dry_run = opts.dry_run == true
  with_client(bufnr, function(client)
    local argument = { text = text }
    if dry_run then
      argument.dry_run = true
    end
    lsp.execute(client, bufnr, "lockstep.apply_edit_blocks", argument, function(err, result)
      reply.report_blocks(err, result, dry_run)
    end)
  end)
end

--- Cancel the last job started (or streamed) in this Neovim.
function M.cancel()
  if not last_job then
    notify("no job to cancel", vim.log.levels.WARN)
    return
  end
  local job = last_job
  local client = vim.lsp.get_client_by_id(job.client_id)
  if not client then
    notify("the server that ran " .. tostring(job.job_id) .. " is gone", vim.log.levels.WARN)
    return
  end
  lsp.execute(client, api.nvim_get_current_buf(), "lockstep.cancel", { job_id = job.job_id }, function(err, result)
    local _, failure = unwrap(err, result)
    if failure then
      notify(failure, vim.log.levels.ERROR)
    else
      notify("cancelled " .. tostring(job.job_id))
    end
  end)
end

local function session_command(command, done)
  with_client(api.nvim_get_current_buf(), function(client)
    lsp.execute(client, api.nvim_get_current_buf(), command, vim.empty_dict(), reply.on_data(done))
  end)
end

--- Show the session (model, approval, last job, pending review, context, usage, companion,
--- wrapped server) in a scratch buffer.
function M.session()
  local bufnr = api.nvim_get_current_buf()
  with_client(bufnr, function(client)
    session_view.show(client, bufnr, last_job)
  end)
end

--- Forget the session: context files, history and "always allow" approvals.
function M.reset_session()
  session_command("lockstep.reset_session", function()
    notify("session cleared")
  end)
end

--- Trust the project's folder: its .lockstep.json then applies in full (provider, baseUrl,
--- apiKeyEnv, ...). Recorded in lockstep's state directory, never in the repository.
function M.trust()
  session_command("lockstep.trust", function(data)
    notify(data.message or ("trusted " .. tostring(data.folder)))
  end)
end

-- A review command on the client serving the current buffer: fn(client, bufnr, argument).
local function review_command(fn)
  return function(argument)
    local bufnr = api.nvim_get_current_buf()
    with_client(bufnr, function(client)
      fn(client, bufnr, argument)
    end)
  end
end

--- The pending hunks in the quickfix list.
M.review = review_command(review.list)
--- Accept / reject the hunk under the cursor; `whole_file`: every pending hunk of the file.
M.accept = review_command(function(client, bufnr, whole_file)
  review.decide(client, bufnr, "apply", whole_file)
end)
M.reject = review_command(function(client, bufnr, whole_file)
  review.decide(client, bufnr, "reject", whole_file)
end)
--- Undo job `job_id`'s changes (nil: the last job that changed a file).
M.revert = review_command(review.revert)
--- Stored sessions (sessions.lua): pick one to resume, or resume the one named.
M.sessions = review_command(require("lockstep.sessions").pick)
M.resume = review_command(require("lockstep.sessions").resume)

function M.open_chat()
  chat.open()
end

-- For tests and statuslines.
M.chat = chat
M.handlers = handlers
function M.last_job()
  return last_job
end

return M
