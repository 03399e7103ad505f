// The terminal's approval question (lockstep/approve): each file's coloured diff first,
// paged when longer than the screen, then one key: yes, no, no with a reason the model reads,
// always, stop (Ctrl-C too: the run ends, nothing more is asked of the model), or the diff
// again. The outcome is said in words. The question is input from the server: read leniently,
// shown bounded by what the server already cut.
import { askCall, askCommand, type CallAnswer, type CommandAnswer } from "./approval-details.js";
import type { Io } from "./io.js";
import type { Prompter } from "./prompt.js";
import { paint } from "./stream-view.js";
import { oneLine, terminalSafe } from "./terminal-text.js";

interface QuestionFile {
  file_path: string;
  op?: string;
  moved_from?: string;
  diff: string;
  added: number;
  removed: number;
}

export interface Question {
  message: string;
  tool: string;
  files: QuestionFile[];
}

export type QuestionAnswer = { decision: "apply" | "always" | "reject" | "stop"; reason?: string };

/** Who answers: --yes, a person through the prompter, or no one. */
export interface QuestionAsking {
  yes: boolean;
  prompter?: Prompter;
  /** Screen rows, for paging; undefined when not a terminal (no paging). */
  rows?: number;
}

/** The question's fields, or undefined when it is not one. */
export function readQuestion(raw: unknown): Question | undefined {
  if (typeof raw !== "object" || raw === null) return undefined;
  const r = raw as Record<string, unknown>;
  if (typeof r["message"] !== "string" || !Array.isArray(r["files"])) return undefined;
  const files = (r["files"] as unknown[]).flatMap((f): QuestionFile[] => {
    if (typeof f !== "object" || f === null) return [];
    const o = f as Record<string, unknown>;
    if (typeof o["file_path"] !== "string" || typeof o["diff"] !== "string") return [];
    return [
      {
        file_path: o["file_path"],
        diff: o["diff"],
        added: Number(o["added"]) || 0,
        removed: Number(o["removed"]) || 0,
        ...(typeof o["op"] === "string" ? { op: o["op"] } : {}),
        ...(typeof o["moved_from"] === "string" ? { moved_from: o["moved_from"] } : {}),
      },
    ];
  });
  return {
    message: terminalSafe(r["message"]),
    tool: typeof r["tool"] === "string" ? r["tool"] : "the tool",
    files,
  };
}

/** Each file's diff, coloured, under a header naming the file and what happens to it. */
export function diffLines(q: Question): string[] {
  const { bold, dim, green, red } = paint;
  const out: string[] = [];
  for (const f of q.files) {
    const what =
      f.op === "move" && f.moved_from
        ? `${f.moved_from} → ${f.file_path}`
        : f.op === "add"
          ? `${f.file_path} (new)`
          : f.op === "delete"
            ? `${f.file_path} (deleted)`
            : f.file_path;
    out.push("", bold(`✎ ${oneLine(what)}`) + dim(` +${f.added} −${f.removed}`));
    for (const l of terminalSafe(f.diff).split("\n")) {
      // The header lines name the file the line above already names.
      if (/^(---|\+\+\+|Index: |={5,})/.test(l)) continue;
      out.push(l.startsWith("+") ? green(l) : l.startsWith("-") ? red(l) : l.startsWith("@@") ? dim(l) : l);
    }
    while (out.at(-1) === "") out.pop();
  }
  return out;
}

/** Shows the diff, a page at a time when it is longer than the screen; false when paging was cut short by Ctrl-C. */
async function showDiff(lines: string[], asking: QuestionAsking, io: Io): Promise<boolean> {
  const page =
    asking.rows !== undefined && asking.prompter?.singleKey === true
      ? Math.max(5, asking.rows - 2)
      : Infinity;
  for (let at = 0; at < lines.length; at += page) {
    io.stdout(lines.slice(at, at + page).join("\n") + "\n");
    if (at + page >= lines.length) break;
    const more = await asking.prompter!.choose(
      paint.dim(`-- ${lines.length - at - page} more lines: space for the next page, q for the question --`),
      [" ", "q"],
      " ",
    );
    if (!("key" in more)) return more.end !== "interrupt";
    if (more.key === "q") break;
  }
  return true;
}

const STOPPED =
  "  Stopped: the run ends here; nothing more is asked of the model, and this change was not applied.\n";

/** Asks about one change, command or MCP call (the question's `kind`); resolves with the answer for the server. */
export async function askQuestion(
  raw: unknown,
  asking: QuestionAsking,
  io: Io,
): Promise<QuestionAnswer | CommandAnswer | CallAnswer | null> {
  if (typeof raw === "object" && raw !== null) {
    const kind = (raw as Record<string, unknown>)["kind"];
    if (kind === "command") return askCommand(raw as Record<string, unknown>, asking, io);
    if (kind === "call") return askCall(raw as Record<string, unknown>, asking, io);
  }
  return askChange(raw, asking, io);
}

async function askChange(raw: unknown, asking: QuestionAsking, io: Io): Promise<QuestionAnswer | null> {
  const q = readQuestion(raw);
  if (!q) return null;
  const lines = diffLines(q);
  if (asking.yes) {
    io.stdout(lines.join("\n") + "\n" + paint.dim(`? ${q.message} → Apply (--yes)\n`));
    return { decision: "apply" };
  }
  if (!asking.prompter) {
    io.stdout(lines.join("\n") + `\n? ${q.message}\n  No terminal to ask and no --yes: rejected.\n`);
    return { decision: "reject" };
  }
  if (!(await showDiff(lines, asking, io))) return (io.stdout(STOPPED), { decision: "stop" });
  for (;;) {
    const keys = "[y]es / [n]o / [r]eason: no, and say why / [a]lways / [s]top the run / [d]iff again";
    const answer = await asking.prompter.choose(`? ${q.message}\n  ${keys}: `, [
      "y",
      "n",
      "r",
      "a",
      "s",
      "d",
    ]);
    if (!("key" in answer)) {
      if (answer.end === "interrupt") return (io.stdout(STOPPED), { decision: "stop" });
      io.stdout("  No answer (end of input): rejected. Nothing was changed.\n");
      return { decision: "reject" };
    }
    switch (answer.key) {
      case "y":
        return { decision: "apply" };
      case "a":
        io.stdout(
          paint.dim(`  Always: ${q.tool} changes land without asking for the rest of this session.\n`),
        );
        return { decision: "always" };
      case "n":
        io.stdout("  Rejected: nothing was changed; the model is told you said no.\n");
        return { decision: "reject" };
      case "s":
        io.stdout(STOPPED);
        return { decision: "stop" };
      case "d":
        if (!(await showDiff(lines, asking, io))) return (io.stdout(STOPPED), { decision: "stop" });
        continue;
      case "r": {
        const why = await asking.prompter.line("  Why not? (the model reads this; Enter to send): ");
        if (!("text" in why)) {
          if (why.end === "interrupt") return (io.stdout(STOPPED), { decision: "stop" });
          io.stdout("  Rejected: nothing was changed.\n");
          return { decision: "reject" };
        }
        const reason = why.text.trim();
        io.stdout(
          reason === ""
            ? "  Rejected: nothing was changed.\n"
            : "  Rejected: nothing was changed; the model is told why.\n",
        );
        return reason === "" ? { decision: "reject" } : { decision: "reject", reason };
      }
    }
  }
}
