// What a session view and a health check say of commands: the mode, the prefixes allowed, the
// test command, and the sandbox commands get here (or why there is none), as short lines the
// editors show as they are.
import { findSandbox } from "../commands/index.js";
import type { CommandSettings } from "./command-question.js";

export interface CommandFacts {
  mode: CommandSettings["commands"];
  /** The sandbox setting, and whether this machine has one. */
  sandbox_setting: CommandSettings["sandbox"];
  sandbox_available: boolean;
  sandbox_network: boolean;
  allowed: string[];
  test_command: string | null;
  /** One line: how commands are approved, what runs unasked, the test command. */
  summary: string;
  /** One line: the sandbox commands get, or why they get none and what follows from it. */
  sandbox: string;
}

const MODES: Record<CommandSettings["commands"], string> = {
  ask: "asked before each one",
  auto: "run unasked inside the sandbox, asked where there is none",
  off: "off: the agent runs no commands",
};

export async function commandFacts(s: CommandSettings): Promise<CommandFacts> {
  const probe = await findSandbox();
  const available = probe.kind === "available";
  const net = s.sandboxNetwork ? "network allowed" : "no network";
  const sandbox =
    s.sandbox === "off"
      ? "off: commands run with your user's full access"
      : available
        ? `${probe.backend.name}: only the project writable (.git read-only), ${net}`
        : `none: ${probe.reason}; ${s.sandbox === "on" ? "sandbox is on, so commands are refused" : "commands run unsandboxed and are always asked"}`;
  const parts = [MODES[s.commands]];
  if (s.commands !== "off" && s.allowedCommands.length > 0)
    parts.push(`unasked: ${s.allowedCommands.join(", ")}`);
  if (s.commands !== "off" && s.testCommand !== undefined) parts.push(`tests: ${s.testCommand}`);
  return {
    mode: s.commands,
    sandbox_setting: s.sandbox,
    sandbox_available: available,
    sandbox_network: s.sandboxNetwork,
    allowed: [...s.allowedCommands],
    test_command: s.testCommand ?? null,
    summary: parts.join("; "),
    sandbox,
  };
}
