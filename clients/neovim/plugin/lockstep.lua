-- User commands of lockstep. The client starts only after require("lockstep").setup{} (or on
-- the first command, with the defaults).
if vim.g.loaded_lockstep == 1 then
  return
end
vim.g.loaded_lockstep = 1

if vim.fn.has("nvim-0.7.2") ~= 1 then
  vim.api.nvim_echo({ { "lockstep needs Neovim 0.7.2 or newer", "WarningMsg" } }, true, {})
  return
end

local command = vim.api.nvim_create_user_command

command("LockstepAsk", function(opts)
  require("lockstep").ask_command(opts)
end, {
  nargs = "*",
  range = true,
  desc = "Ask the lockstep agent (about the current file and selected lines)",
})

command("LockstepApplyBlocks", function(opts)
  require("lockstep").apply_blocks({
    range = opts.range,
    line1 = opts.line1,
    line2 = opts.line2,
    dry_run = opts.bang,
  })
end, {
  range = true,
  bang = true,
  desc = "Apply the edit blocks in this buffer (! = dry run)",
})

command("LockstepCancel", function()
  require("lockstep").cancel()
end, { desc = "Cancel the last lockstep job" })

command("LockstepSession", function()
  require("lockstep").session()
end, { desc = "Show the lockstep session" })

command("LockstepResetSession", function()
  require("lockstep").reset_session()
end, { desc = "Clear the lockstep session" })

command("LockstepTrust", function()
  require("lockstep").trust()
end, { desc = "Trust this folder: its .lockstep.json applies in full" })

command("LockstepChat", function()
  require("lockstep").open_chat()
end, { desc = "Open the lockstep chat buffer" })

-- Review and revert (settings.approval = "review"); no mappings are set, see :help lockstep-review.
command("LockstepReview", function()
  require("lockstep").review()
end, { desc = "List the changes proposed for review in the quickfix list" })

command("LockstepAccept", function(opts)
  require("lockstep").accept(opts.bang)
end, { bang = true, desc = "Accept the proposed change under the cursor (! = every one in the file)" })

command("LockstepReject", function(opts)
  require("lockstep").reject(opts.bang)
end, { bang = true, desc = "Reject the proposed change under the cursor (! = every one in the file)" })

command("LockstepRevert", function(opts)
  require("lockstep").revert(opts.args)
end, { nargs = "?", desc = "Undo the changes of a lockstep job (default: the last one)" })

-- Stored sessions (the server keeps each conversation on disk): pick one, or resume by id.
command("LockstepSessions", function()
  require("lockstep").sessions()
end, { desc = "Pick a stored lockstep session of this project and resume it" })

command("LockstepResume", function(opts)
  require("lockstep").resume(opts.args)
end, { nargs = "?", desc = "Resume a stored lockstep session (no id: pick one)" })
