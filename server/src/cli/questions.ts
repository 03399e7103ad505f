// What the terminal client asks the person running it: whether a change may land (the
// server's approval prompt) and, at the end of a run that changed files, whether to keep
// them or undo the whole run. No one to ask and no --yes is a no; so is Ctrl-C or the end
// of the input, and what is then on disk is said file by file.
import type { MessageConnection } from "vscode-jsonrpc/node.js";
import type { MessageActionItem, ShowMessageRequestParams } from "vscode-languageserver";
import type { Io } from "./io.js";
import type { Prompter } from "./prompt.js";
import { paint } from "./stream-view.js";
import { terminalSafe } from "./terminal-text.js";

/** Who answers: --yes, a person through the prompter, or no one. */
export interface Asking {
  yes: boolean;
  prompter?: Prompter;
}

/** What the client reads of a finished job (lockstep.job). */
export interface JobView {
  tool_calls?: { kind?: string }[];
  files_changed?: string[];
}

/** Answers the server's approval prompt (window/showMessageRequest) with one of its actions. */
export async function askUser(
  raw: ShowMessageRequestParams,
  asking: Asking,
  io: Io,
): Promise<MessageActionItem | null> {
  // The message names files and quotes the model: no escape sequence of theirs reaches the terminal.
  const params = { ...raw, message: terminalSafe(raw.message) };
  const actions = params.actions ?? [];
  const apply = actions.find((a) => a.title === "Apply" || a.title === "Run once");
  const reject = actions.find((a) => a.title === "Reject") ?? null;
  if (asking.yes) {
    io.stdout(paint.dim(`\n? ${params.message} → Apply (--yes)\n`));
    return apply ?? null;
  }
  if (!asking.prompter) {
    io.stdout(`\n? ${params.message}\n  No terminal to ask and no --yes: rejected.\n`);
    return reject;
  }
  // A call of an MCP server's tool also offers "always allow this server".
  const server = actions.find((a) => a.title.startsWith("Always allow server"));
  const keys = server ? ["y", "n", "a", "s"] : ["y", "n", "a"];
  const also = server ? " / always this [s]erver" : "";
  const answer = await asking.prompter.choose(`\n? ${params.message} [y]es / [n]o / [a]lways${also}: `, keys);
  if (!("key" in answer)) {
    io.stdout(`  No answer (${answer.end === "interrupt" ? "Ctrl-C" : "end of input"}): rejected.\n`);
    return reject;
  }
  if (answer.key === "s" && server) return server;
  if (answer.key === "a") return actions.find((a) => a.title.startsWith("Always")) ?? apply ?? null;
  return answer.key === "y" ? (apply ?? null) : reject;
}

type Reverted = {
  ok: boolean;
  data?: { files?: { file_path: string; status: string; message: string }[] };
  error?: { message: string };
};

/**
 * At the end of a run that changed files, when there is someone to ask (and approval is not
 * auto): keep them, or undo the whole run (lockstep.revert). No answer (Ctrl-C, Ctrl-D, the end
 * of the input) keeps nothing. Resolves with whether the changes were kept.
 */
export async function offerUndo(
  conn: MessageConnection,
  jobId: string,
  job: JobView,
  asking: Asking & { autoApproval: boolean },
  io: Io,
): Promise<"kept" | "undone" | "no-answer"> {
  const { dim, green, red } = paint;
  const changed = job.files_changed ?? [];
  if (changed.length === 0 || asking.yes || !asking.prompter || asking.autoApproval) return "kept";
  const answer = await asking.prompter.choose(
    `\n? Keep the changes to ${changed.join(", ")}? [Y]es / [u]ndo the whole run: `,
    ["y", "u"],
    "y",
  );
  if ("key" in answer && answer.key === "y") {
    io.stdout(dim(`Kept: ${changed.join(", ")} on disk as changed.\n`));
    return "kept";
  }
  if (!("key" in answer)) {
    const why = answer.end === "interrupt" ? "Ctrl-C" : "end of input";
    io.stdout(`No answer (${why}): undoing the run, nothing is kept that you did not keep.\n`);
  }
  const reverted = (await conn.sendRequest("workspace/executeCommand", {
    command: "lockstep.revert",
    arguments: [{ job_id: jobId }],
  })) as Reverted;
  if (!reverted.ok) {
    io.stdout(
      red(
        `✘ ${reverted.error?.message ?? "revert failed"}\nOn disk: the run's changes to ${changed.join(", ")} are still there.\n`,
      ),
    );
  } else {
    const files = reverted.data?.files ?? [];
    for (const f of files)
      io.stdout(
        `${f.status === "reverted" ? green("↶") : f.status === "conflict" ? red("✘") : dim("·")} ${f.message}\n`,
      );
    const back = files.filter((f) => f.status === "reverted").map((f) => f.file_path);
    const left = files.filter((f) => f.status !== "reverted").map((f) => f.file_path);
    const undone = back.length > 0 ? `${back.join(", ")} as before the run` : "nothing was undone";
    io.stdout(
      `On disk: ${undone}${left.length > 0 ? `; ${left.join(", ")} still changed (see above)` : ""}.\n`,
    );
  }
  return "key" in answer ? "undone" : "no-answer";
}
