// What `lockstep COMMAND --help` prints: the synopsis and one example each.
import { VERSION } from "../version.js";

export const USAGE = `lockstep ${VERSION}: a language server with a state-verified coding agent

  lockstep [--stdio] [--debug]          run the language server over stdio (the default)
  lockstep --version                    print the version
  lockstep [--stdio] --wrap -- CMD [ARGS...]
                                        the same, in front of your own language server CMD
  lockstep apply-patch [FILE] [--diff F|-] [--base-sha256 HEX] [--dry-run] [--root DIR] [--json]
  lockstep edit FILE (--old TEXT|--old-file F) (--new TEXT|--new-file F)
                [--expected-replacements N] [--base-sha256 HEX] [--dry-run] [--root DIR]
  lockstep apply-blocks [--dry-run] [--stage] [--root DIR]     (model output on stdin)
  lockstep read FILE... [--root DIR]
  lockstep search PATTERN [--path DIR] [--include GLOB] [--case-sensitive] [--max-results N] [--root DIR]
  lockstep find GLOB [--path DIR] [--root DIR]
  lockstep ask "PROMPT" [--root DIR] [--yes] [--provider gemini|openai|anthropic] [--model NAME] [--base-url URL]
               [--api-key-env VAR] [--approval ask|auto|review] [--transcript FILE] [--no-tools] [--replay FILE]
               [--thinking off|adaptive|TOKENS] [--effort low|medium|high|xhigh|max]
               [--commands ask|auto|off] [--sandbox auto|on|off] [--sandbox-network] [--allow-command PREFIX]...
               [--test-command CMD]
  lockstep config [--root DIR] [--json] [the settings flags of ask]   the settings in force, and where each came from
  lockstep trust [DIR] | trust --list | trust --remove DIR   let a folder's .lockstep.json apply in full
  lockstep ask --continue|--resume ID "PROMPT" ...   continue a stored session
  lockstep sessions [--json] | sessions rm ID | sessions prune --days N
  lockstep revert [RUN] [--yes] [--session ID]  undo a stored run (the last by default)
  lockstep demo [--keep]
  lockstep mcp [--port N] [--root DIR] [--disk]   MCP over stdio for agents in a terminal
  lockstep acp [--provider P] [--model M] [--approval ask|auto]   the agent over ACP (Zed, JetBrains, …)

Every command takes --help. Tool commands print a short summary on a terminal, and one JSON
envelope {"ok": ...} on stdout when it is not a terminal or with --json.
Exit status: 0 success, 1 refused or failed, 2 usage error.`;

const COMMANDS: Record<string, string> = {
  "apply-patch": `lockstep apply-patch [FILE] [--diff F|-] [--base-sha256 HEX] [--dry-run] [--root DIR]

Applies a unified diff (on stdin, or --diff F) to FILE. Hunks are placed by their content;
all land or none. With --base-sha256 the patch applies only while FILE still has that sha256.
Without FILE: a diff across files (git diff, diff -ruN) or an apply_patch envelope
(*** Begin Patch … *** End Patch), every file written or none. With FILE, a patch that also
changes other files is refused, naming them.

  git diff | lockstep apply-patch src/app.ts --dry-run
  lockstep apply-patch src/app.ts --diff fix.patch --base-sha256 3f2a…
  git diff | lockstep apply-patch`,
  edit: `lockstep edit FILE (--old TEXT|--old-file F) (--new TEXT|--new-file F)
              [--expected-replacements N] [--base-sha256 HEX] [--dry-run] [--root DIR]

Replaces the text --old with --new in FILE, exactly once unless --expected-replacements says otherwise.

  lockstep edit src/app.ts --old 'retries = 3' --new 'retries = 5'`,
  "apply-blocks": `lockstep apply-blocks [--dry-run] [--stage] [--root DIR]

Applies the edit blocks (««« EDIT … »»» EDIT END, or model's answer on stdin. --stage runs git add on the files it changed.

  pbpaste | lockstep apply-blocks --dry-run`,
  read: `lockstep read FILE... [--root DIR]

Prints each file's {file_path, version, sha256, content}; patterns such as 'src/**/*.ts' expand below the root.

  lockstep read src/app.ts`,
  search: `lockstep search PATTERN [--path DIR] [--include GLOB] [--case-sensitive] [--max-results N] [--root DIR]

Searches file contents for a JavaScript regular expression, like grep -n: case-insensitive unless
PATTERN has an upper-case letter; .gitignore, .ignore and .rgignore honoured; binary files,
node_modules and .git skipped (unless --path names them); at most 100 matches unless
--max-results says more. Through ripgrep where it is installed (LOCKSTEP_SEARCH=js: never).

  lockstep search 'function\\s+parseConfig' --include '*.ts'`,
  find: `lockstep find GLOB [--path DIR] [--root DIR]

Lists the files whose path matches GLOB (relative to --path, else the root), with the same ignore rules.

  lockstep find 'src/**/*.test.ts'`,
  ask: `lockstep ask "PROMPT" [--continue | --resume ID] [--root DIR] [--yes] [--provider gemini|openai|anthropic] [--model NAME] [--base-url URL]
             [--api-key-env VAR] [--approval ask|auto|review] [--transcript FILE] [--no-tools] [--replay FILE]
             [--thinking off|adaptive|TOKENS] [--effort low|medium|high|xhigh|max]
             [--commands ask|auto|off] [--sandbox auto|on|off] [--sandbox-network] [--allow-command PREFIX]...
             [--test-command CMD]

Runs the agent on PROMPT in this directory's files, asking before each change (one key on a
terminal, one line from a pipe; --yes: no asking). Settings come from ~/.config/lockstep/config.json
($XDG_CONFIG_HOME), then .lockstep.json at the root, then LOCKSTEP_* variables, then these flags;
lockstep config shows them. --provider openai talks to any OpenAI-compatible endpoint (Ollama,
llama.cpp, vLLM, OpenRouter); --provider anthropic to Claude (ANTHROPIC_API_KEY), with --thinking
and --effort; --api-key-env names the variable holding a key; --no-tools serves
a model without tool calling: it writes edit blocks, lockstep applies them. The agent runs
shell commands (tests, builds) asking first (--commands ask; auto: unasked inside the sandbox;
off: never), in a sandbox where there is one (--sandbox; only the project writable, no network
unless --sandbox-network); --allow-command "npm test" runs that prefix unasked (repeatable; it
replaces the settings files' allowedCommands); --test-command names how the tests are run.

  lockstep ask "rename the helper in @src/app.ts to parseDate"
  lockstep ask --provider openai --base-url http://localhost:11434/v1 --model qwen2.5-coder:7b "fix @src/app.ts"
  lockstep ask --provider anthropic --thinking adaptive --effort high "fix @src/app.ts"
  lockstep ask --continue "and now the tests"     (the newest stored session of this project)`,
  config: `lockstep config [--root DIR] [--json] [--provider P] [--model NAME] [--base-url URL] [--api-key-env VAR] [--approval A] [--transcript FILE] [--no-tools] [--replay FILE]
               [--commands C] [--sandbox S] [--sandbox-network] [--allow-command PREFIX]... [--test-command CMD]

Prints the settings lockstep ask would use in DIR and where each came from: default, the user file
($XDG_CONFIG_HOME/lockstep/config.json, else ~/.config/lockstep/config.json), the project file
(.lockstep.json), a LOCKSTEP_* variable, or a flag. The API key's variable is named, never its value.
Exit 1 when a setting is in error.

  lockstep config
  lockstep config --json`,
  trust: `lockstep trust [DIR] | lockstep trust --list [--json] | lockstep trust --remove DIR

A project's .lockstep.json is the repository's, not yours: until you trust its folder it may set
only model, tools, patchTool, diagnosticsWaitMs, maxTurns and maxToolCalls (up to your own), and
make approval, closedFileEdits, sessions and companion stricter. Trusting DIR (default: the current
directory; it covers the folders below it) lets the rest apply: provider, baseUrl, apiKeyEnv, …
replay, transcript and sessionsDir never come from a project file. The list is kept in
$XDG_STATE_HOME/lockstep/trusted-folders.json (else ~/.local/state/lockstep/…), by real path.

  lockstep trust
  lockstep trust --list`,
  sessions: `lockstep sessions [--json] [--root DIR] | sessions rm ID | sessions prune --days N

Lists this project's stored sessions, newest first: id, last change, turns, files changed,
tokens and title (the first prompt). rm deletes one; prune deletes those unchanged for N days.
They live under $XDG_STATE_HOME/lockstep (else ~/.local/state/lockstep; LOCKSTEP_SESSIONS_DIR moves them).

  lockstep sessions
  lockstep ask --resume 20261125-225201-a1b2c3 "now add the tests"`,
  revert: `lockstep revert [RUN] [--yes] [--session ID] [--root DIR]

Undoes a stored run's changes by content (the last run with changes by default), keeping what was
typed since; a part that conflicts is shown and its file left. Shows what it will undo and asks;
--yes does not ask (needed without a terminal).

  lockstep revert
  lockstep revert 5f1c2b --yes`,
  demo: `lockstep demo [--keep]

Runs a recorded session offline on a copy of the demo project (--keep: leave the copy).

  lockstep demo`,
  mcp: `lockstep mcp [--port N] [--root DIR] [--disk]

Serves lockstep's tools over MCP on stdio, relaying to the editor session for this directory,
or on the disk when there is none (--disk: always the disk).

  claude mcp add lockstep -- lockstep mcp`,
  acp: `lockstep acp [--provider gemini|openai|anthropic] [--model NAME] [--base-url URL] [--approval ask|auto] [--replay FILE] [--debug]

Runs lockstep's agent over the Agent Client Protocol (v1) on stdio, for editors that host
agents: Zed, JetBrains, CodeCompanion, avante, agent-shell. Settings come from the user file,
.lockstep.json at the session's cwd and LOCKSTEP_* variables; flags win. Configuration per
editor: docs/acp.md.

  {"agent_servers": {"lockstep": {"command": "npx", "args": ["lockstep", "acp"]}}}   (Zed settings.json)`,
};

/** The help for one command, or undefined for a command that has none. */
export function commandHelp(command: string): string | undefined {
  const text = COMMANDS[command];
  return text === undefined
    ? undefined
    : `${text}\n\nExit status: 0 success, 1 refused or failed, 2 usage error. All commands: lockstep --help`;
}
