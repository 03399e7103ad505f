// The servers the `lockstep` command starts: the language server (no command, or only
// options: --stdio, --debug, --wrap -- CMD ARGS), `lockstep mcp` and `lockstep acp`. Each
// is loaded on first use, so a tool command does not load them.
import { errnoCode } from "../shared/errno.js";
import { commandMessage } from "./command-errors.js";
import { commandHelp, USAGE } from "./help.js";
import type { Io } from "./io.js";

/** The language server on stdio, in front of the user's own server when `--wrap -- CMD ARGS` names one. */
export async function runLanguageServer(argv: string[], io: Io): Promise<number> {
  const wrapAt = argv.indexOf("--wrap");
  let wrap: { command: string; args: string[] } | undefined;
  if (wrapAt >= 0) {
    const [cmd, ...args] = argv.slice(wrapAt + 1 + (argv[wrapAt + 1] === "--" ? 1 : 0));
    if (cmd === undefined || cmd === "") {
      io.stderr(
        "lockstep --wrap: name the language server to wrap after --, e.g. lockstep --stdio --wrap -- pyright-langserver --stdio" +
          `\n\n${USAGE}\n`,
      );
      return 2;
    }
    wrap = { command: cmd, args };
  }
  const { runServer } = await import("../lsp/server.js");
  return runServer(wrapAt >= 0 ? argv.slice(0, wrapAt) : argv, wrap);
}

/** What is wrong with an mcp or acp command line, in its options' words (not Node's). */
function stdioServerProblem(error: unknown): string {
  if (
    errnoCode(error) === "ENOENT" &&
    error instanceof Error &&
    "syscall" in error &&
    error.syscall === "realpath" &&
    "path" in error
  ) {
    return `--root ${String(error.path)}: no such directory; give the workspace's directory`;
  }
  return commandMessage(error);
}

/**
 * `lockstep mcp` and `lockstep acp`: servers on stdio. A failure to start (a bad option, a --root
 * that is not there) is a usage error, named, with the command's help.
 */
export async function runStdioServer(command: "mcp" | "acp", rest: string[], io: Io): Promise<number> {
  try {
    const run =
      command === "mcp"
        ? (await import("../companion/stdio-command.js")).runMcpCommand
        : (await import("../acp/command.js")).runAcpCommand;
    return await run(rest, io.stderr);
  } catch (error) {
    io.stderr(`lockstep ${command}: ${stdioServerProblem(error)}\n\n${commandHelp(command) ?? USAGE}\n`);
    return 2;
  }
}
