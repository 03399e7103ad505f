// Words for a hunk that could not be placed: which hunk, what did not match,
// where the nearest candidate is, and what the model should do next.
import type { ParsedHunk } from "./diff-parse.js";
import type { LineIndex } from "../shared/line-index.js";
import type { LocateError } from "./locate.js";
import type { ErrorCode } from "../../shared/outcome.js";

const MAX_SHOWN = 3;

function quote(text: string): string {
  const short = text.length > 120 ? text.slice(0, 117) + "..." : text;
  return JSON.stringify(short);
}

function hunkName(hunks: readonly ParsedHunk[], h: number): string {
  const hunk = hunks[h]!;
  const where = hunk.headerLine > 0 ? ` (the @@ header on line ${hunk.headerLine} of the diff)` : "";
  return `hunk ${h + 1} of ${hunks.length}${where}`;
}

function oldLines(hunk: ParsedHunk): string[] {
  return hunk.lines.filter((l) => l.op !== "+").map((l) => l.text);
}

const REBUILD =
  "Rebuild the hunk from the exact lines of the latest file state attached here (copy them, do not retype them), with at least 10 unchanged lines of context.";

export function describeLocateError(
  error: LocateError,
  hunks: readonly ParsedHunk[],
  index: LineIndex,
): { code: ErrorCode; message: string; suggestions: string[] } {
  const name = hunkName(hunks, error.hunk);
  switch (error.kind) {
    case "ambiguous": {
      const lines = error.candidates.map((c) => c + 1).join(", ");
      return {
        code: "ambiguous",
        message: `Ambiguous: ${name} fits equally well at lines ${lines}. Nothing was applied.`,
        suggestions: [
          "Add more unchanged context lines around the change (at least 10) so the hunk matches exactly one place.",
          "Or put the true line number in the @@ header, e.g. `@@ -" + (error.candidates[0]! + 1) + " @@`.",
        ],
      };
    }
    case "no_context":
      return unnumberedInsertion(hunks, error.hunk, undefined);
    case "order":
      return {
        code: "invalid_diff",
        message: `Invalid Diff: ${name} and hunk ${error.other + 1} are out of file order or cover the same lines. Nothing was applied.`,
        suggestions: [
          "Order hunks from the top of the file to the bottom, and merge hunks that touch the same lines into one.",
        ],
      };
    case "not_found": {
      const old = oldLines(hunks[error.hunk]!);
      const parts = [
        `Invalid Diff: ${name} does not match the file: its context and removed lines were not found, even allowing for whitespace differences. Nothing was applied.`,
      ];
      const near = error.nearest;
      if (near && near.matched > 0) {
        parts.push(
          `Nearest candidate: lines ${near.start + 1}-${near.start + near.total} of the file, where ${near.matched} of ${near.total} lines match.`,
        );
        for (const d of near.differences.slice(0, MAX_SHOWN)) {
          const actual = index.lines[d.fileLine];
          const got = actual === undefined ? "nothing (past the end of the file)" : quote(actual);
          parts.push(
            `The hunk expects ${quote(old[d.oldIndex]!)} at line ${d.fileLine + 1}, but the file has ${got}.`,
          );
        }
        if (near.differences.length > MAX_SHOWN)
          parts.push(`(${near.differences.length - MAX_SHOWN} more lines differ.)`);
      } else {
        const sample = old.find((l) => l.trim() !== "");
        if (sample !== undefined)
          parts.push(
            `No line of the file resembles ${quote(sample)}: the diff may be for another file or an older version of this one.`,
          );
      }
      return { code: "invalid_diff", message: parts.join(" "), suggestions: [REBUILD] };
    }
  }
}

/**
 * An insertion without context whose header's numbers are not shown exact: what is missing, and
 * what would settle it.
 */
export function unnumberedInsertion(
  hunks: readonly ParsedHunk[],
  h: number,
  why: string | undefined,
): { code: ErrorCode; message: string; suggestions: string[] } {
  return {
    code: "invalid_diff",
    message:
      `Invalid Diff: ${hunkName(hunks, h)} has only added lines and no context, so only its header's line number could say where it belongs, ` +
      `and nothing shows that number exact${why === undefined ? "" : `: ${why}`}. Nothing was applied.`,
    suggestions: [
      "Add 3 unchanged lines of context before and after the insertion (lines starting with a space, copied from the file), and send the diff again.",
      "Or send the diff as git wrote it, with its `index OLD..NEW` line: the blob hashes prove the numbers.",
    ],
  };
}
