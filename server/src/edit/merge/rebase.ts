// Placing a hunk that was computed on one text (the base) onto the text as it
// is now, after someone else changed it. The other changes are read from the
// base → now diff, so the hunk's place follows them exactly, however repetitive
// the file is; a hunk whose own lines (or, for an insertion, whose anchor) were
// changed is a conflict, never forced. Where the now-text holds the hunk's
// lines in more places than the base did, the diff's alignment could be a
// guess: that is a conflict too.
//
// The base → now diff is computed once for any number of hunks, a hunk finds the
// changes near it by binary search, and copies are counted through an index of
// lines: placing every hunk of a change costs about the diff plus the hunks'
// own lines, not the cube of their number (each hunk re-diffing the whole text).
import { fail, succeed, type Failure, type Outcome } from "../../shared/outcome.js";
import type { ChangeHunk } from "./hunks.js";
import { linesWithEol } from "../shared/text.js";
import { lineChanges, type LineChange } from "./line-changes.js";

export interface Placed {
  /** The text with the hunk applied. */
  lines: string[];
  /** 0-based line of the result where the hunk's new lines begin. */
  line: number;
}

/** Where a hunk's old lines are in the now-text (0-based), once it is known to fit there. */
export interface Located {
  hunk: ChangeHunk;
  at: number;
}

/** How the text moved on from the base, worked out once for any number of hunks. */
export class MovedText {
  readonly base: readonly string[];
  readonly now: readonly string[];
  private readonly changes: LineChange[];
  /** `shiftBefore[i]`: lines the now-text gained (or lost) through changes[0..i). */
  private readonly shiftBefore: number[];
  private baseIndex: LineIndex | undefined;
  private nowIndex: LineIndex | undefined;

  constructor(base: string | readonly string[], now: string | readonly string[]) {
    this.base = typeof base === "string" ? linesWithEol(base) : base;
    this.now = typeof now === "string" ? linesWithEol(now) : now;
    this.changes = lineChanges(this.base, this.now);
    this.shiftBefore = [0];
    for (const c of this.changes)
      this.shiftBefore.push(this.shiftBefore.at(-1)! + c.lines.length - (c.end - c.start));
  }

  /** Where the hunk's old lines are in the now-text, or why it cannot land there. */
  locate(hunk: ChangeHunk): Outcome<Located> {
    const insertion = hunk.start === hunk.end;
    // Changes ending before the hunk starts are wholly before it and cannot touch it: their shift is summed once.
    let i = this.firstEndingAtOrAfter(hunk.start);
    let shift = this.shiftBefore[i]!;
    for (; i < this.changes.length && this.changes[i]!.start <= hunk.end; i++) {
      const c = this.changes[i]!;
      const touches = insertion
        ? c.start <= hunk.start && c.end >= hunk.start
        : c.start === c.end
          ? c.start > hunk.start && c.start < hunk.end
          : c.start < hunk.end && c.end > hunk.start;
      if (touches) {
        const where = insertion
          ? `where it inserts (after line ${hunk.start})`
          : `it changes (lines ${hunk.start + 1}–${hunk.end})`;
        return fail(
          "state_mismatch",
          `Conflict: the lines ${where} were edited since the change was proposed.`,
          ["Leave it, or make the change again on the text as it is now."],
        );
      }
      const before = insertion
        ? c.end < hunk.start
        : c.start === c.end
          ? c.start <= hunk.start
          : c.end <= hunk.start;
      if (before) shift += c.lines.length - (c.end - c.start);
    }
    const at = hunk.start + shift;
    for (let k = 0; k < hunk.removed.length; k++) {
      if (this.now[at + k] !== hunk.removed[k])
        return fail(
          "internal_error",
          "Internal Error: a hunk's lines are not where the diff placed them; nothing was applied.",
        );
    }
    const block = [...hunk.above, ...hunk.removed, ...hunk.below];
    // A text that did not move on holds the same copies: counting them is only needed after a change.
    if (block.length > 0 && this.changes.length > 0) {
      this.baseIndex ??= new LineIndex(this.base);
      this.nowIndex ??= new LineIndex(this.now);
      const baseCount = this.baseIndex.occurrences(block);
      const nowCount = this.nowIndex.occurrences(block);
      if (nowCount > baseCount) {
        return fail(
          "ambiguous",
          `Conflict: the lines the change was made on now occur in ${nowCount} places (they were copied since it was proposed), so where it belongs cannot be told.`,
          ["Leave it, or make the change again on the text as it is now."],
        );
      }
    }
    return succeed({ hunk, at });
  }

  /** The hunk applied to the now-text, or why it cannot be. */
  place(hunk: ChangeHunk): Outcome<Placed> {
    const located = this.locate(hunk);
    if (!located.ok) return located;
    return succeed({ lines: applyLocated(this.now, [located.value]), line: located.value.at });
  }

  /** The first change whose end is at or after `line` (binary search: the changes are in order and disjoint). */
  private firstEndingAtOrAfter(line: number): number {
    let lo = 0;
    let hi = this.changes.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.changes[mid]!.end < line) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

/** Hunks located on the same now-text (disjoint, as the hunks of one change are), applied in one pass. */
export function applyLocated(now: readonly string[], located: readonly Located[]): string[] {
  const sorted = [...located].sort((a, b) => a.at - b.at);
  const out: string[] = [];
  let from = 0;
  for (const { hunk, at } of sorted) {
    if (at < from)
      throw new Error("Internal Error: two hunks of one change overlap on the text; nothing was applied.");
    for (let k = from; k < at; k++) out.push(now[k]!);
    for (const line of hunk.added) out.push(line);
    from = at + hunk.removed.length;
  }
  for (let k = from; k < now.length; k++) out.push(now[k]!);
  return out;
}

/** Each distinct line's positions, so a block's copies are found from its rarest line. */
class LineIndex {
  private readonly positions = new Map<string, number[]>();

  constructor(private readonly lines: readonly string[]) {
    lines.forEach((line, i) => {
      const at = this.positions.get(line);
      if (at) at.push(i);
      else this.positions.set(line, [i]);
    });
  }

  /** Where `block` occurs in the lines. */
  occurrences(block: readonly string[]): number {
    let anchor = 0;
    let candidates: readonly number[] = [];
    for (let k = 0; k < block.length; k++) {
      const at = this.positions.get(block[k]!);
      if (!at) return 0;
      if (k === 0 || at.length < candidates.length) {
        anchor = k;
        candidates = at;
      }
    }
    let n = 0;
    outer: for (const p of candidates) {
      const i = p - anchor;
      if (i < 0 || i + block.length > this.lines.length) continue;
      for (let k = 0; k < block.length; k++) if (this.lines[i + k] !== block[k]) continue outer;
      n++;
    }
    return n;
  }
}

export type AllPlaced = { ok: true; text: string } | { ok: false; hunk: number; error: Failure };

/**
 * Every hunk placed on the now-text, or none: the first that cannot be placed
 * is the answer. Each hunk is located on the now-text as it is (the hunks of
 * one change are disjoint, so one does not move another's lines), and all are
 * applied in one pass. For reverting a change and taking all of a proposal at once.
 */
export function placeAll(base: string, now: string, hunks: readonly ChangeHunk[]): AllPlaced {
  const moved = new MovedText(base, now);
  const located: Located[] = [];
  for (let h = 0; h < hunks.length; h++) {
    const one = moved.locate(hunks[h]!);
    if (!one.ok) return { ok: false, hunk: h, error: one.error };
    located.push(one.value);
  }
  return { ok: true, text: applyLocated(moved.now, located).join("") };
}
