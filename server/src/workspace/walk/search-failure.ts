// What a search batch that did not finish means for the search: cancelled, a
// thread that failed, or a pattern that ran too long on one file (named).
import { fail, type Outcome } from "../../shared/outcome.js";
import type { Workspace } from "../workspace.js";
import { displayName, type WalkedFile } from "../walk.js";
import type { BatchOutcome } from "./search-worker.js";

export const FILE_TIME_LIMIT_MS = 2000;

export function batchFailure(
  outcome: Exclude<BatchOutcome, { kind: "done" }>,
  files: WalkedFile[],
  sandbox: Workspace["sandbox"],
  request: { pattern: { source: string }; fileTimeLimitMs?: number | undefined },
): Outcome<never> {
  if (outcome.kind === "cancelled")
    return fail("cancelled", "Cancelled: the search stopped; nothing else was done.");
  if (outcome.kind === "failed")
    return fail(
      "internal_error",
      `Internal Error: the search thread failed (${outcome.message}). Nothing was changed; please report this.`,
    );
  const file = files[outcome.index];
  const where = file ? displayName(sandbox, file.root, file.rel) : "a file";
  const seconds = (request.fileTimeLimitMs ?? FILE_TIME_LIMIT_MS) / 1000;
  return fail(
    "timeout",
    `The pattern ${JSON.stringify(request.pattern.source)} ran for over ${seconds} s on ` +
      `${where} without finishing, so the search was stopped: it most likely backtracks ` +
      `catastrophically (a repeated group inside a repetition, such as (a+)+ or (\\w*)*).`,
    [
      "Simplify the pattern (no nested quantifiers), or narrow the search with path or include.",
      "Call search_files again with the simpler pattern.",
    ],
  );
}
