-- :checkhealth lockstep

local M = {}

local health = vim.health or require("health")
local start = health.start or health.report_start
local ok = health.ok or health.report_ok
local info = health.info or health.report_info
local warn = health.warn or health.report_warn
local error = health.error or health.report_error

local DEFAULT_CMD = { "lockstep", "--stdio" }

-- Run `argv` for at most `timeout_ms`; returns exit code (or nil on timeout) and stdout.
local function run(argv, timeout_ms)
  local output = {}
  local ok_start, job = pcall(vim.fn.jobstart, argv, {
    stdout_buffered = true,
    on_stdout = function(_, data)
      output = data or {}
    end,
  })
  if not ok_start or job <= 0 then
    return nil, "could not start"
  end
  local code = vim.fn.jobwait({ job }, timeout_ms)[1]
  if code == -1 then
    vim.fn.jobstop(job)
    return nil, "timed out"
  end
  vim.wait(100, function()
    return #output > 0
  end)
  return code, vim.trim(table.concat(output, "\n"))
end

-- The server command with `--version` in place of the transport flag (and of the wrapped
-- server's command, in wrap mode).
local function version_argv(cmd)
  local argv = {}
  for _, arg in ipairs(cmd) do
    if arg == "--wrap" then
      break
    end
    if arg ~= "--stdio" then
      table.insert(argv, arg)
    end
  end
  table.insert(argv, "--version")
  return argv
end

function M.check()
  start("lockstep: Neovim")
  local v = vim.version()
  local version = string.format("%d.%d.%d", v.major, v.minor, v.patch)
  if vim.fn.has("nvim-0.7.2") == 1 then
    ok("Neovim " .. version)
  else
    error("Neovim " .. version .. " is too old: lockstep needs 0.7.2 or newer")
  end

  start("lockstep: server command")
  local config = require("lockstep").config()
  if not config then
    info("require('lockstep').setup{} has not run; checking the default command")
  end
  local cmd = config and config.cmd or DEFAULT_CMD
  info("command: " .. table.concat(cmd, " "))
  local path = vim.fn.exepath(cmd[1])
  if path == "" then
    error(string.format("`%s` is not executable", cmd[1]), {
      "Put lockstep's `lockstep` bin on PATH (`npm install -g .` or `npm link` in a lockstep checkout),",
      "or set cmd = { 'node', '/path/to/lockstep/bin/lockstep.js', '--stdio' } in setup{}",
    })
    return
  end
  ok(string.format("`%s` found at %s", cmd[1], path))

  local argv = version_argv(cmd)
  local code, output = run(argv, 5000)
  if code == 0 and output ~= "" then
    ok("`" .. table.concat(argv, " ") .. "` answers: " .. output)
  else
    error(string.format("`%s` failed (%s): %s", table.concat(argv, " "), tostring(code or "no exit"), output or ""))
  end

  start("lockstep: clients")
  local clients = require("lockstep.lsp").get_clients()
  if #clients == 0 then
    info("no lockstep client is running (one starts when a file buffer opens after setup{})")
  end
  for _, client in ipairs(clients) do
    local buffers = 0
    for _ in pairs(client.attached_buffers or {}) do
      buffers = buffers + 1
    end
    ok(string.format("client %d: root %s, %d buffer(s)", client.id, tostring(client.config.root_dir), buffers))
    -- The model as the server sees it: provider, model and whether a key was found (never the key).
    local reply = client.request_sync("workspace/executeCommand", { command = "lockstep.session", arguments = { {} } }, 2000)
    local data = reply and reply.result and reply.result.ok and reply.result.data
    if data then
      local model = data.model ~= vim.NIL and data.model or "(not set)"
      local line = string.format("model: %s %s%s", tostring(data.provider), tostring(model), data.baseUrl ~= vim.NIL and data.baseUrl and (" at " .. data.baseUrl) or "")
      -- Provider, baseUrl and model from different places (the editor's settings over .lockstep.json)
      -- may not fit together: never reported as OK.
      local mixed = data.model_warning ~= vim.NIL and data.model_warning or nil
      if mixed then
        warn(line, {
          mixed,
          "Set them in one place: only in .lockstep.json (then leave them out of setup{} settings), or all three in setup{}.",
        })
      elseif data.key_found or data.baseUrl ~= vim.NIL and data.baseUrl then
        ok(line .. (data.key_found and ", API key found" or ", no API key (a local endpoint needs none)"))
      else
        warn(line .. ", no API key found", {
          "Set GEMINI_API_KEY (gemini), ANTHROPIC_API_KEY (anthropic) or OPENAI_API_KEY (openai), or the variable apiKeyEnv names, where Neovim starts.",
          'A local model needs no key: put {"provider": "ollama", "model": "qwen2.5-coder:7b"} in .lockstep.json at the project root (lmstudio and llamacpp work the same way).',
        })
      end
      -- run_command: how commands are approved, and whether they get a sandbox here.
      local commands = type(data.commands) == "table" and data.commands or nil
      if commands then
        info("commands: " .. tostring(commands.summary))
        if commands.sandbox_available == true or commands.sandbox_setting == "off" then
          ok("sandbox: " .. tostring(commands.sandbox))
        else
          warn("sandbox: " .. tostring(commands.sandbox), {
            "On Linux, install bubblewrap (Debian: apt-get install bubblewrap) so commands run sandboxed.",
            'Or set commands = "off" in the settings: the agent then runs no commands.',
          })
        end
      end
      -- What search_files runs on: ripgrep, or JavaScript and why.
      if type(data.search) == "string" then
        info("search: " .. data.search)
      end
      -- The MCP servers of the user's settings: one that failed is named with why.
      for _, server in ipairs(require("lockstep.session_view").mcp_lines(data.mcp_servers)) do
        if server.ok then
          ok("MCP server " .. server.text)
        else
          warn("MCP server " .. server.text, { "lockstep config starts each one and says why it fails." })
        end
      end
      -- Wrap mode: the wrapped server's state, and what is missing while it is not running.
      local level, text, missing = require("lockstep.session_view").wrapped(data.wrapped)
      if level == "ok" then
        ok("wrapped server " .. text)
      elseif level then
        local report = level == "warn" and warn or error
        report("wrapped server " .. text, #missing > 0 and { "missing: " .. table.concat(missing, ", ") } or nil)
      end
    end
  end
  if config and next(config.settings) then
    info("settings: " .. vim.inspect(config.settings, { newline = " ", indent = "" }))
  end
  if not config or config.filetypes == nil then
    info("attaches to every file buffer (filetypes = nil)")
  else
    info("attaches to filetypes: " .. table.concat(config.filetypes, ", "))
  end
end

return M
