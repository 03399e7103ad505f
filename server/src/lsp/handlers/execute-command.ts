// workspace/executeCommand. Bound by method name: the library's own binding
// reads `params.workDoneToken` first and answers `params: null` with a
// TypeError. The protocol's shape is a claim; it is checked here.
import { MessageType, type CancellationToken } from "vscode-languageserver";
import { errorEnvelope, type Envelope } from "../../tools/envelope.js";
import { findTool } from "../../tools/registry.js";
import { signalOf } from "../cancellation.js";
import { COMMAND_PREFIX, executeCommand } from "../commands.js";
import { commandProgress } from "../progress.js";
import type { ServerContext } from "../server-context.js";
import { agentCommands } from "./agent-commands.js";

export function executeCommandHandler(ctx: ServerContext) {
  const agent = agentCommands(ctx);
  return async (raw: unknown, token: CancellationToken): Promise<Envelope> => {
    const params = raw as { command?: unknown; arguments?: unknown[] } | null;
    if (typeof params !== "object" || params === null || typeof params.command !== "string") {
      return errorEnvelope(
        "invalid_argument",
        'Invalid Argument: workspace/executeCommand needs params {command: "lockstep.<name>", arguments: [{...}]}; the request had none or a command that is not a string.',
        ["Send the command's name as a string, and its argument object as the one element of arguments."],
      );
    }
    if (params.arguments !== undefined && !Array.isArray(params.arguments)) {
      return errorEnvelope(
        "invalid_argument",
        `Invalid Argument: the arguments of ${params.command} must be a list holding one object.`,
        ["Send arguments: [{...}]."],
      );
    }
    const command = params.command;
    ctx.debug("command", { command, arguments: params.arguments });
    const workspace = ctx.state.workspace;
    const result = workspace
      ? await executeCommand(
          {
            toolContext: (signal) => ({
              workspace,
              signal,
              approve: async () => "apply",
              journal: ctx.journal,
              progress: commandProgress(ctx.connection, ctx.state.flags.workDoneProgress),
              conditions: ctx.conditions,
              ...(ctx.childDiagnostics ? { diagnostics: ctx.childDiagnostics } : {}),
            }),
            agent,
          },
          command,
          params.arguments,
          signalOf(token),
        )
      : errorEnvelope("internal_error", "Internal Error: the server was not initialized.");
    ctx.debug("result", result);
    tellTheUser(ctx, command, params.arguments?.[0], result);
    return result;
  };
}

/** Editors show a command's answer nowhere: a failed change, or how many edit blocks landed, is said in a message. */
function tellTheUser(ctx: ServerContext, command: string, argument: unknown, result: Envelope): void {
  const tool = command.startsWith(COMMAND_PREFIX)
    ? findTool(command.slice(COMMAND_PREFIX.length), ctx.conditions)
    : undefined;
  if (tool?.kind !== "modify") return;
  if (!result.ok) return ctx.warn(result.error.message);
  const blocks = result.data["blocks"];
  if (!Array.isArray(blocks)) return;
  const dryRun = (argument as { dry_run?: unknown } | undefined)?.dry_run === true;
  ctx.notify(
    MessageType.Info,
    `lockstep: ${blocks.length} edit block${blocks.length === 1 ? "" : "s"} ${dryRun ? "checked" : "applied"}.`,
  );
}
