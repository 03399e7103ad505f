// The environment a command runs in: the server's, without the provider keys, and told that
// no one is at a terminal: no pager, no colour, no prompt for a password or an editor.

/** Set for every command: each keeps a tool from waiting for a person or painting its output. */
const QUIET: Record<string, string> = {
  PAGER: "cat",
  GIT_PAGER: "cat",
  MANPAGER: "cat",
  SYSTEMD_PAGER: "cat",
  NO_COLOR: "1",
  CLICOLOR: "0",
  TERM: "dumb",
  GIT_TERMINAL_PROMPT: "0",
  GIT_EDITOR: "true",
  DEBIAN_FRONTEND: "noninteractive",
  PIP_NO_INPUT: "1",
};

/** Removed whatever the server had: they force colour back on. */
const COLOUR_FORCING = ["FORCE_COLOR", "CLICOLOR_FORCE"];

export function commandEnvironment(
  base: NodeJS.ProcessEnv,
  remove: readonly string[],
  extra: Record<string, string> = {},
): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...base };
  for (const name of [...remove, ...COLOUR_FORCING]) delete env[name];
  return { ...env, ...QUIET, ...extra };
}
