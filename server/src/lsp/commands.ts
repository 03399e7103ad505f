// workspace/executeCommand: `lockstep.<tool>` runs the tool of that name from
// the registry, as the user's own action (no approval prompt); the agent's
// commands go to the agent service. Every answer is an envelope.
import { errorEnvelope, type Envelope } from "../tools/envelope.js";
import { invokeTool, toolsFor } from "../tools/registry.js";
import type { ToolConditions, ToolContext } from "../tools/tool.js";

export const AGENT_COMMANDS = [
  "ask",
  "job",
  "cancel",
  "session",
  "reset_session",
  "review",
  "decide",
  "revert",
  "sessions",
  "resume",
  "trust",
] as const;
export type AgentCommand = (typeof AGENT_COMMANDS)[number];

export const COMMAND_PREFIX = "lockstep.";

/** Every command the server lists in executeCommandProvider: the tools that exist under `conditions`, and the agent's. */
export function commandNames(conditions: ToolConditions = {}): string[] {
  return [...toolsFor(conditions).map((t) => t.name), ...AGENT_COMMANDS].map((n) => COMMAND_PREFIX + n);
}

export interface CommandRoutes {
  toolContext(signal: AbortSignal): ToolContext;
  agent(command: AgentCommand, args: unknown, signal: AbortSignal): Promise<Envelope>;
}

/** The one object argument of a command; `{}` when none was given. */
function argumentOf(args: unknown[] | undefined): unknown {
  if (!args || args.length === 0) return {};
  return args[0];
}

export async function executeCommand(
  routes: CommandRoutes,
  command: string,
  args: unknown[] | undefined,
  signal: AbortSignal,
): Promise<Envelope> {
  if (!command.startsWith(COMMAND_PREFIX)) {
    return errorEnvelope(
      "invalid_argument",
      `Unknown command \`${command}\`: lockstep's commands start with \`${COMMAND_PREFIX}\`.`,
    );
  }
  const name = command.slice(COMMAND_PREFIX.length);
  if ((AGENT_COMMANDS as readonly string[]).includes(name))
    return routes.agent(name as AgentCommand, argumentOf(args), signal);
  return invokeTool(name, argumentOf(args), routes.toolContext(signal));
}
