// Placing a hunk that was computed on one text (the base) onto the text as it
// is now, after someone else changed it. The other changes are read from the
// base → now diff, so the hunk's place follows them exactly, however repetitive
// the file is; a hunk whose own lines (or, for an insertion, whose anchor) were
// changed is a conflict, never forced. Where the now-text holds the hunk's
// lines in more places than the base did, the diff's alignment could be a
// guess: that is a conflict too.
import { fail, succeed, type Failure, type Outcome } from "../shared/outcome.js";
import type { ChangeHunk } from "./hunks.js";
import { linesWithEol } from "../shared/text.js";
import { lineChanges, type LineChange } from "./line-changes.js";

export interface Placed {
  /** The text with the hunk applied. */
  lines: string[];
  /** 0-based line of the result where the hunk's new lines begin. */
  line: number;
}

/** How the text moved on from the base, worked out once for any number of hunks. */
export class MovedText {
  readonly base: readonly string[];
  readonly now: readonly string[];
  private readonly changes: LineChange[];

  constructor(base: string | readonly string[], now: string | readonly string[]) {
    this.base = typeof base === "string" ? linesWithEol(base) : base;
    this.now = typeof now === "string" ? linesWithEol(now) : now;
    this.changes = lineChanges(this.base, this.now);
  }

  /** The hunk applied to the now-text, or why it cannot be. */
  place(hunk: ChangeHunk): Outcome<Placed> {
    const insertion = hunk.start === hunk.end;
    let shift = 0;
    for (const c of this.changes) {
      const touches = insertion
        ? c.start <= hunk.start && c.end >= hunk.start
        : c.start === c.end
          ? c.start > hunk.start && c.start < hunk.end
          : c.start < hunk.end && c.end > hunk.start;
      if (touches) {
        const where = insertion ? `where it inserts (after line ${hunk.start})` : `it changes (lines ${hunk.start + 1}–${hunk.end})`;
        return fail("state_mismatch", `Conflict: the lines ${where} were edited since the change was proposed.`, [
          "Leave it, or make the change again on the text as it is now.",
        ]);
      }
      const before = insertion ? c.end < hunk.start : c.start === c.end ? c.start <= hunk.start : c.end <= hunk.start;
      if (before) shift += c.lines.length - (c.end - c.start);
    }
    const at = hunk.start + shift;
    for (let i = 0; i < hunk.removed.length; i++) {
      if (this.now[at + i] !== hunk.removed[i]) return fail("internal_error", "Internal Error: a hunk's lines are not where the diff placed them; nothing was applied.");
    }
    const block = [...hunk.above, ...hunk.removed, ...hunk.below];
    if (block.length > 0) {
      const nowCount = occurrences(this.now, block);
      if (nowCount > occurrences(this.base, block)) {
        return fail("ambiguous", `Conflict: the lines the change was made on now occur in ${nowCount} places (they were copied since it was proposed), so where it belongs cannot be told.`, [
          "Leave it, or make the change again on the text as it is now.",
        ]);
      }
    }
    return succeed({ lines: [...this.now.slice(0, at), ...hunk.added, ...this.now.slice(at + hunk.removed.length)], line: at });
  }
}

/** Where `block` occurs in `lines` (counted up to 2 more than needed to tell "more"). */
function occurrences(lines: readonly string[], block: readonly string[]): number {
  let n = 0;
  const first = block[0]!;
  outer: for (let i = lines.indexOf(first); i !== -1 && i + block.length <= lines.length; i = lines.indexOf(first, i + 1)) {
    for (let k = 1; k < block.length; k++) if (lines[i + k] !== block[k]) continue outer;
    n++;
  }
  return n;
}

export type AllPlaced = { ok: true; text: string } | { ok: false; hunk: number; error: Failure };

/**
 * Every hunk placed on the now-text, one after another, or none: the first
 * that cannot be placed is the answer. For reverting a change and taking all
 * of a proposal at once.
 */
export function placeAll(base: string, now: string, hunks: readonly ChangeHunk[]): AllPlaced {
  let text = now;
  for (let h = 0; h < hunks.length; h++) {
    const placed = new MovedText(base, text).place(hunks[h]!);
    if (!placed.ok) return { ok: false, hunk: h, error: placed.error };
    text = placed.value.lines.join("");
  }
  return { ok: true, text };
}
