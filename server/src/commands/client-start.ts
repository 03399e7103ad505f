// A command started by another program (an ACP client's terminal, `terminal/create`): the same
// shell line, sandbox and quiet environment as `runner.ts`, as one program and its arguments.
// The starting process's environment is the client's, not lockstep's, so the key variables
// (and the ones that force colour back on) are unset by `env -u` in front of everything, and
// the variables lockstep sets are passed for the client to add.
import { existsSync } from "node:fs";
import { commandEnvironment } from "./environment.js";
import { SHELL, type RunRequest } from "./runner.js";

/** The shell line `runCommand` runs too: stderr joined to stdout inside the shell, in the order written. */
export function commandArgv(command: string): string[] {
  return [SHELL, "-c", `exec 2>&1\n${command}`];
}

/** Removed whatever the client's environment holds: they force colour back on. */
const COLOUR_FORCING = ["FORCE_COLOR", "CLICOLOR_FORCE"];

export interface ClientStart {
  command: string;
  args: string[];
  env: { name: string; value: string }[];
}

export function clientStart(req: Pick<RunRequest, "command" | "cwd" | "remove" | "sandbox">): ClientStart {
  const argv = commandArgv(req.command);
  const start = req.sandbox
    ? req.sandbox.backend.wrap(argv, req.cwd, req.sandbox.policy)
    : { file: argv[0]!, args: argv.slice(1), env: {} };
  const unset = [...new Set([...req.remove, ...COLOUR_FORCING])].flatMap((name) => ["-u", name]);
  const env = commandEnvironment({}, [], start.env);
  return {
    command: existsSync("/usr/bin/env") ? "/usr/bin/env" : "env",
    args: [...unset, start.file, ...start.args],
    env: Object.entries(env).map(([name, value]) => ({ name, value: String(value) })),
  };
}
