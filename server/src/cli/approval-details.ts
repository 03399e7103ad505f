// The terminal's question about a command the model wants to run and about a call of an MCP
// server's tool (lockstep/approve, kinds `command` and `call`): the whole command line, where it
// runs, whether it is sandboxed, what "always" would allow; the server, the tool and the
// arguments (the server redacted and bounded them). Then one key, and the outcome in words.
// The question is input from the server: read leniently, printed without escape sequences.
import type { Io } from "./io.js";
import type { Prompter } from "./prompt.js";
import { paint } from "./stream-view.js";
import { oneLine, terminalSafe } from "./terminal-text.js";

/** Who answers: --yes, a person through the prompter, or no one. */
interface QuestionAsking {
  yes: boolean;
  prompter?: Prompter;
}

interface CommandDetails {
  command: string;
  cwd: string;
  sandboxed: boolean;
  sandbox: string;
  reasons: string[];
  prefixes: string[];
  canStop: boolean;
}

interface CallDetails {
  tool: string;
  server: string;
  serverTool: string;
  arguments: string;
  canStop: boolean;
}

const text = (v: unknown): string => (typeof v === "string" ? v : "");
const texts = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x) => typeof x === "string") : []);

function readCommand(r: Record<string, unknown>): CommandDetails | undefined {
  if (typeof r["command"] !== "string") return undefined;
  const decisions = texts(r["decisions"]);
  return {
    command: r["command"],
    cwd: text(r["cwd"]) || ".",
    sandboxed: r["sandboxed"] === true,
    sandbox: text(r["sandbox"]),
    reasons: texts(r["reasons"]),
    // "always" only where the server offers it.
    prefixes: decisions.includes("always") ? texts(r["prefixes"]) : [],
    canStop: decisions.includes("stop"),
  };
}

function readCall(r: Record<string, unknown>): CallDetails | undefined {
  if (typeof r["server"] !== "string" || typeof r["tool"] !== "string") return undefined;
  return {
    tool: r["tool"],
    server: r["server"],
    serverTool: text(r["server_tool"]) || r["tool"],
    arguments: text(r["arguments"]) || "{}",
    canStop: texts(r["decisions"]).includes("stop"),
  };
}

/** The lines that show a command before its question. */
export function commandLines(c: CommandDetails): string[] {
  const { bold, dim, green, red } = paint;
  const where = c.cwd === "." ? "in the project root" : `in ${oneLine(c.cwd)}`;
  const lines = ["", bold(`? lockstep wants to run ${where}:`)];
  for (const l of terminalSafe(c.command).split("\n")) lines.push(`    ${l}`);
  lines.push(`  ${(c.sandboxed ? green : red)(terminalSafe(c.sandbox))}`);
  if (c.reasons.length > 0) lines.push(`  Asked because: ${terminalSafe(c.reasons.join("; "))}.`);
  const always =
    c.prefixes.length > 0
      ? `[a]lways would allow ${c.prefixes.map((p) => `\`${oneLine(p)}\``).join(", ")} for this session`
      : "This command cannot be allowed for the session; it is asked about each time";
  lines.push(dim(`  ${always}${c.canStop ? "; [s]top ends the run (Ctrl-C too)" : ""}.`));
  return lines;
}

/** The lines that show an MCP call before its question. */
export function callLines(c: CallDetails): string[] {
  const { bold, dim } = paint;
  return [
    "",
    bold(`? lockstep wants to call ${oneLine(c.serverTool)} on the MCP server ${oneLine(c.server)}, with:`),
    ...terminalSafe(c.arguments)
      .split("\n")
      .map((l) => `    ${l}`),
    dim(
      `  [a]lways allows ${oneLine(c.tool)} for this session; [s]erver allows every tool of ${oneLine(c.server)}${c.canStop ? "; Ctrl-C stops the run" : ""}.`,
    ),
  ];
}

export type CommandAnswer = { decision: "once" | "always" | "reject" | "stop"; reason?: string };
export type CallAnswer = {
  decision: "apply" | "always_tool" | "always_server" | "reject" | "stop";
  reason?: string;
};

/** `r`: a line of the user's words for the model; `what` says what did not happen. */
async function rejectWithReason(
  prompter: Prompter,
  io: Io,
  what: string,
  canStop: boolean,
): Promise<{ decision: "reject" | "stop"; reason?: string }> {
  const why = await prompter.line("  Why not? (the model reads this; Enter to send): ");
  if (!("text" in why)) {
    if (why.end === "interrupt" && canStop)
      return (io.stdout(`  Stopped: the run ends here; ${what}.\n`), { decision: "stop" });
    return (io.stdout(`  Rejected: ${what}.\n`), { decision: "reject" });
  }
  const reason = why.text.trim();
  if (reason === "") return (io.stdout(`  Rejected: ${what}.\n`), { decision: "reject" });
  io.stdout(`  Rejected: ${what}; the model is told why.\n`);
  return { decision: "reject", reason };
}

/** Asks about a command; null when the question is not one. */
export async function askCommand(
  raw: Record<string, unknown>,
  asking: QuestionAsking,
  io: Io,
): Promise<CommandAnswer | null> {
  const c = readCommand(raw);
  if (!c) return null;
  const shown = commandLines(c).join("\n") + "\n";
  if (asking.yes) return (io.stdout(shown + paint.dim("  → Run (--yes)\n")), { decision: "once" });
  if (!asking.prompter) {
    io.stdout(shown + "  No terminal to ask and no --yes: rejected; the command did not run.\n");
    return { decision: "reject" };
  }
  io.stdout(shown);
  const keys = ["y", "n", "r", ...(c.prefixes.length > 0 ? ["a"] : []), ...(c.canStop ? ["s"] : [])];
  // [s]top is named on the line above: the question line reads as every other question's.
  const words = `[y]es / [n]o / [r]eason: no, and say why${c.prefixes.length > 0 ? " / [a]lways" : ""}`;
  const answer = await asking.prompter.choose(`  ${words}: `, keys);
  if (!("key" in answer)) {
    // Ctrl-C ends the run where the server offers it; the end of the input only says no.
    if (answer.end === "interrupt" && c.canStop) return (io.stdout(STOPPED), { decision: "stop" });
    io.stdout(
      `  No answer (${answer.end === "interrupt" ? "Ctrl-C" : "end of input"}): rejected; the command did not run.\n`,
    );
    return { decision: "reject" };
  }
  switch (answer.key) {
    case "y":
      return { decision: "once" };
    case "a":
      io.stdout(
        paint.dim(
          `  Always: ${c.prefixes.map((p) => `\`${oneLine(p)}\``).join(", ")} runs without asking for the rest of this session.\n`,
        ),
      );
      return { decision: "always" };
    case "s":
      return (io.stdout(STOPPED), { decision: "stop" });
    case "r":
      return rejectWithReason(asking.prompter, io, "the command did not run", c.canStop);
    default:
      io.stdout("  Rejected: the command did not run; the model is told you said no.\n");
      return { decision: "reject" };
  }
}

const STOPPED =
  "  Stopped: the run ends here; the command did not run and nothing more is asked of the model.\n";

/** Asks about an MCP call; null when the question is not one. */
export async function askCall(
  raw: Record<string, unknown>,
  asking: QuestionAsking,
  io: Io,
): Promise<CallAnswer | null> {
  const c = readCall(raw);
  if (!c) return null;
  const shown = callLines(c).join("\n") + "\n";
  if (asking.yes) return (io.stdout(shown + paint.dim("  → Apply (--yes)\n")), { decision: "apply" });
  if (!asking.prompter) {
    io.stdout(shown + "  No terminal to ask and no --yes: rejected; the tool was not called.\n");
    return { decision: "reject" };
  }
  io.stdout(shown);
  const answer = await asking.prompter.choose(
    "  [y]es / [n]o / [r]eason: no, and say why / [a]lways / always this [s]erver: ",
    ["y", "n", "r", "a", "s"],
  );
  if (!("key" in answer)) {
    if (answer.end === "interrupt" && c.canStop) {
      io.stdout(
        "  Stopped: the run ends here; the tool was not called and nothing more is asked of the model.\n",
      );
      return { decision: "stop" };
    }
    io.stdout(
      `  No answer (${answer.end === "interrupt" ? "Ctrl-C" : "end of input"}): rejected; the tool was not called.\n`,
    );
    return { decision: "reject" };
  }
  if (answer.key === "y") return { decision: "apply" };
  if (answer.key === "a") return { decision: "always_tool" };
  if (answer.key === "s") return { decision: "always_server" };
  if (answer.key === "r") return rejectWithReason(asking.prompter, io, "the tool was not called", c.canStop);
  io.stdout("  Rejected: the tool was not called; the model is told you said no.\n");
  return { decision: "reject" };
}
