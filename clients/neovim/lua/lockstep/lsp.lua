-- The lockstep language client: starting one client per project root, attaching buffers,
-- and sending `workspace/executeCommand`, on every Neovim from 0.7.2 on.
--
-- Version differences handled here and nowhere else:
--   * 0.10+ starts and reuses clients with `vim.lsp.start`; older versions use
--     `vim.lsp.start_client` + `vim.lsp.buf_attach_client` and a root -> client table.
--   * 0.11+ runs commands with `client:exec_cmd` (method call); older versions call
--     `client.request` (a plain function field).

local M = {}

M.NAME = "lockstep"

local api = vim.api
local uv = vim.uv or vim.loop

local function has(version)
  return vim.fn.has("nvim-" .. version) == 1
end

local notify_once = vim.notify_once or vim.notify

-- root_dir -> client id, for Neovim < 0.10 where we reuse clients ourselves.
local client_by_root = {}

local function get_clients()
  if vim.lsp.get_clients then
    return vim.lsp.get_clients({ name = M.NAME })
  end
  local found = {}
  for _, client in pairs(vim.lsp.get_active_clients()) do
    if client.name == M.NAME then
      table.insert(found, client)
    end
  end
  return found
end
M.get_clients = get_clients

local function is_attached(client, bufnr)
  return client.attached_buffers ~= nil and client.attached_buffers[bufnr] == true
end

local function is_stopped(client)
  if has("0.11") then
    return client:is_stopped()
  end
  return client.is_stopped()
end

--- The nearest directory above `path` holding the first marker found, trying markers in
--- order (so `.git` can win over a nested `package.json`). Falls back to the working
--- directory when it contains the file, else the file's own directory.
function M.find_root(path, markers)
  local start = vim.fn.fnamemodify(path, ":p:h")
  for _, marker in ipairs(markers) do
    local dir = start
    while true do
      if uv.fs_stat(dir .. "/" .. marker) then
        return dir
      end
      local parent = vim.fn.fnamemodify(dir, ":h")
      if parent == dir then
        break
      end
      dir = parent
    end
  end
  local cwd = vim.fn.getcwd()
  if start == cwd or vim.startswith(start, cwd .. "/") then
    return cwd
  end
  return start
end

--- Whether lockstep should manage this buffer: a loaded, named, ordinary file buffer whose
--- filetype is allowed (`filetypes = nil` allows every filetype, markdown and text included).
function M.should_attach(bufnr, filetypes)
  if not api.nvim_buf_is_valid(bufnr) or not api.nvim_buf_is_loaded(bufnr) then
    return false
  end
  if vim.bo[bufnr].buftype ~= "" then
    return false
  end
  local name = api.nvim_buf_get_name(bufnr)
  if name == "" or name:match("^%a[%w+.-]*://") then
    return false
  end
  if filetypes == nil then
    return true
  end
  return vim.tbl_contains(filetypes, vim.bo[bufnr].filetype)
end

local function client_capabilities()
  local capabilities = vim.lsp.protocol.make_client_capabilities()
  -- 0.7 answers workspace/configuration but does not say so; the server then would not ask.
  capabilities.workspace = capabilities.workspace or {}
  capabilities.workspace.configuration = true
  -- The approval question comes as lockstep/approve, with each file's diff (approval.lua); so do a
  -- command's (its line, where it runs, the sandbox) and an MCP call's (server, tool, arguments).
  capabilities.experimental = vim.tbl_extend("force", capabilities.experimental or {}, {
    lockstepApproval = true,
    lockstepApprovalKinds = { "command", "call" },
  })
  -- Versioned edits let the server tie each change to the buffer version it was computed on.
  capabilities.workspace.workspaceEdit = vim.tbl_extend("force", capabilities.workspace.workspaceEdit or {}, { documentChanges = true })
  -- The server may ask to save buffers before the agent runs a command (lockstep/saveFiles, init.lua).
  capabilities.experimental = vim.tbl_extend("force", capabilities.experimental or {}, { lockstep = { saveFiles = true } })
  return capabilities
end

--- The client configuration for one root. `opts` is the resolved setup table; `handlers` maps
--- LSP methods to lockstep's own handlers.
local function client_config(root, opts, handlers)
  local settings = opts.settings or {}
  return {
    name = M.NAME,
    cmd = opts.cmd,
    root_dir = root,
    cmd_cwd = root,
    init_options = next(settings) and settings or vim.empty_dict(),
    settings = { lockstep = next(settings) and settings or vim.empty_dict() },
    capabilities = client_capabilities(),
    handlers = handlers,
    on_exit = function(code, signal, client_id)
      for r, id in pairs(client_by_root) do
        if id == client_id then
          client_by_root[r] = nil
        end
      end
      if code ~= 0 and signal ~= 15 then
        vim.schedule(function()
          vim.notify(
            string.format("lockstep: server exited with code %d (see :checkhealth lockstep)", code),
            vim.log.levels.WARN
          )
        end)
      end
    end,
  }
end

--- Attach lockstep to `bufnr`, starting the client for the buffer's root if needed.
--- Returns the client, or nil when the server command cannot be run.
function M.attach(bufnr, opts, handlers)
  for _, client in ipairs(get_clients()) do
    if is_attached(client, bufnr) then
      return client
    end
  end
  if vim.fn.executable(opts.cmd[1]) ~= 1 then
    notify_once(
      string.format("lockstep: `%s` is not executable; set `cmd` in require('lockstep').setup{}", opts.cmd[1]),
      vim.log.levels.WARN
    )
    return nil
  end
  local root = M.find_root(api.nvim_buf_get_name(bufnr), opts.root_markers)
  local config = client_config(root, opts, handlers)

  if has("0.10") then
    local id = vim.lsp.start(config, { bufnr = bufnr })
    return id and vim.lsp.get_client_by_id(id) or nil
  end

  local id = client_by_root[root]
  local client = id and vim.lsp.get_client_by_id(id)
  if not client or is_stopped(client) then
    id = vim.lsp.start_client(config)
    if not id then
      return nil
    end
    client_by_root[root] = id
  end
  vim.lsp.buf_attach_client(bufnr, id)
  return vim.lsp.get_client_by_id(id)
end

--- A lockstep client to serve a command issued from `bufnr`: the one attached to it, else one
--- whose root holds the buffer's file (or the working directory), else any running one.
function M.client_for(bufnr, opts, handlers)
  for _, client in ipairs(get_clients()) do
    if is_attached(client, bufnr) then
      return client
    end
  end
  if M.should_attach(bufnr, opts.filetypes) then
    local client = M.attach(bufnr, opts, handlers)
    if client then
      return client
    end
  end
  local name = api.nvim_buf_get_name(bufnr)
  local here = name ~= "" and vim.fn.fnamemodify(name, ":p") or vim.fn.getcwd() .. "/"
  local fallback
  for _, client in ipairs(get_clients()) do
    if not is_stopped(client) then
      fallback = fallback or client
      local root = client.config.root_dir
      if root and vim.startswith(here, root .. "/") then
        return client
      end
    end
  end
  return fallback
end

--- Run `fn(client)` once the client has finished `initialize` (requests sent before that
--- are not allowed by the protocol). Gives up after `timeout_ms`.
function M.when_ready(client, timeout_ms, fn)
  local waited = 0
  local function check()
    if client.initialized then
      fn(client)
    elseif is_stopped(client) then
      vim.notify("lockstep: the server stopped before it was ready", vim.log.levels.ERROR)
    elseif waited >= timeout_ms then
      vim.notify("lockstep: the server did not finish starting in time", vim.log.levels.ERROR)
    else
      waited = waited + 50
      vim.defer_fn(check, 50)
    end
  end
  check()
end

--- Send `workspace/executeCommand` with one object argument; `callback(err, result)` gets
--- the JSON-RPC error (if any) and the server's envelope.
function M.execute(client, bufnr, command, argument, callback)
  local arguments = { argument }
  local function handler(err, result)
    callback(err, result)
  end
  -- No buffer on purpose: Neovim then sends the pending changes of EVERY buffer before the
  -- command, so a command issued from one buffer never acts on another's stale text.
  local _ = bufnr
  if has("0.11") then
    client:exec_cmd({ title = command, command = command, arguments = arguments }, {}, handler)
  else
    client.request("workspace/executeCommand", { command = command, arguments = arguments }, handler)
  end
end

return M
