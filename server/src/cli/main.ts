// The `lockstep` command's one dispatcher: the language server (the default), the help and
// the version, and each command, loaded from its own file: the tools from the shell
// (tool-commands.ts), `ask`, `demo`, `config`, `trust`, `sessions`, `revert`, `mcp` and `acp`. A
// command's failure is said once here: a usage error with the command's help (exit 2),
// anything else as it is (exit 1); the tool commands say theirs as envelopes.
// cli/ knows nothing of how the agent runs: `ask` and `demo` reach it as an editor would,
// through a spawned language server (server-client.ts); the tool commands call the registry.
import { VERSION } from "../version.js";
import { reportFailure } from "./command-errors.js";
import { commandHelp, USAGE } from "./help.js";
import { processIo, UsageError, type Io } from "./io.js";
import { runLanguageServer, runStdioServer } from "./server-commands.js";
import { runToolCommand } from "./tool-commands.js";

// The worker threads that run large engine jobs load this bundle and call this.
export { runEngineJob } from "../tools/engine-offload.js";

type Command = (args: string[], io: Io) => Promise<number>;

/** The commands that are not tools, each loaded on first use. */
const COMMANDS: Record<string, () => Promise<Command>> = {
  ask: async () => (await import("./ask-command.js")).askCommand,
  demo: async () => (await import("./demo.js")).runDemo,
  config: async () => (await import("./config-command.js")).configCommand,
  sessions: async () => (await import("./sessions-commands.js")).sessionsCommand,
  revert: async () => (await import("./sessions-commands.js")).revertCommand,
  trust: async () => (await import("./trust-command.js")).trustCommand,
};

export async function main(argv: string[], io: Io = processIo): Promise<number> {
  const [command, ...rest] = argv;
  if (command === "--help" || command === "-h" || command === "help") {
    io.stdout(USAGE + "\n");
    return 0;
  }
  if (command !== undefined && (rest.includes("--help") || rest.includes("-h"))) {
    const help = commandHelp(command);
    if (help !== undefined) {
      io.stdout(help + "\n");
      return 0;
    }
  }
  // The server speaks LSP on stdin: a person at a terminal who typed `lockstep` wants the help instead.
  if (command === undefined && process.stdin.isTTY && io === processIo) {
    io.stderr(
      "lockstep is a language server: your editor starts it (see README). Commands for the shell:\n\n" +
        USAGE +
        "\n",
    );
    return 2;
  }
  if (command === "--version" || command === "-v") {
    io.stdout(VERSION + "\n");
    return 0;
  }
  if (command === undefined || command.startsWith("--")) return runLanguageServer(argv, io);
  if (command === "mcp" || command === "acp") return runStdioServer(command, rest, io);
  const load = Object.hasOwn(COMMANDS, command) ? COMMANDS[command] : undefined;
  // An unknown command is answered as the tool commands answer: an envelope for a program.
  if (!load) return runToolCommand(command, rest, io);
  try {
    return await (
      await load()
    )(rest, io);
  } catch (error) {
    return reportFailure(command, error, error instanceof UsageError, io.stderr);
  }
}
