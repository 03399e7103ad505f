// The approval question as plain data, for a client that shows the change while it asks
// (lockstep's own clients: the terminal, Neovim, Emacs): the words, each file's diff, and
// the answers the question takes. The answer is parsed here too: a client is input.
// Knows nothing of LSP: lsp/approval.ts sends it as the `lockstep/approve` request.
import * as z from "zod";
import { approvalMessage, type UserDecision } from "./policy.js";
import type { ProposedChange } from "./proposal.js";

export interface QuestionFile {
  file_path: string;
  op: "add" | "update" | "delete" | "move";
  moved_from?: string;
  /** Unified diff of this file (cut at DIFF_LIMIT characters, saying so). */
  diff: string;
  added: number;
  removed: number;
}

export interface ApprovalQuestion {
  /** A change of files (a command's or an MCP call's question is another kind: lsp/approve-details.ts). */
  kind: "change";
  /** One line, the same words as the prompt where the editor has no diff to show. */
  message: string;
  tool: string;
  job_id?: string;
  files: QuestionFile[];
  /** What the question accepts: a decision, and `reason` with the user's words for a "no". */
  decisions: readonly ["apply", "always", "reject", "stop"];
}

/** How much of the diffs the question carries: a client pages them, but a huge one is cut. */
export const DIFF_LIMIT = 400_000;

export function approvalQuestion(change: ProposedChange): ApprovalQuestion {
  const files = change.files && change.files.length > 0 ? change.files : [change];
  let budget = DIFF_LIMIT;
  return {
    kind: "change",
    message: approvalMessage(change),
    tool: change.tool,
    ...(change.job_id !== undefined ? { job_id: change.job_id } : {}),
    files: files.map((f) => {
      const whole = f.diff;
      const diff =
        whole.length <= budget
          ? whole
          : `${whole.slice(0, Math.max(0, budget))}\n… (the rest of this diff, ${whole.length - budget} characters, is not shown)\n`;
      budget = Math.max(0, budget - whole.length);
      const op = f.op ?? (f.before === null ? "add" : "update");
      return {
        file_path: f.file_path,
        op,
        ...(f.moved_from !== undefined ? { moved_from: f.moved_from } : {}),
        diff,
        added: f.added,
        removed: f.removed,
      };
    }),
    decisions: ["apply", "always", "reject", "stop"],
  };
}

/** The longest "no, because …" a question takes (a change's, a command's, an MCP call's). */
export const REASON_LIMIT = 4000;

const answerSchema = z.object({
  decision: z.enum(["apply", "always", "reject", "stop"]),
  reason: z.string().max(REASON_LIMIT).optional(),
});

/** The client's answer: a decision; `null`, or anything else, is no choice (the change is staged instead). */
export function parseAnswer(raw: unknown): UserDecision | "dismissed" {
  const parsed = answerSchema.safeParse(raw);
  if (!parsed.success) return "dismissed";
  return withReason(parsed.data.decision, parsed.data.reason);
}

/** A "reject" with words becomes `{ reason }` (trimmed); blank words are a plain "reject". */
export function withReason<D extends string>(decision: D, words: string | undefined): D | { reason: string } {
  const said = words?.trim() ?? "";
  return decision === "reject" && said !== "" ? { reason: said } : decision;
}
