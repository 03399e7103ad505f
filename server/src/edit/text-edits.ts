// edit/: the pure text engine. Knows nothing of files, processes or LSP: strings in, Outcome out.
// The smallest set of line-aligned replacements that turns one text into
// another, as offsets into the old text. Editors receive these instead of a
// whole-file replace, so undo, marks and folds around the change survive.
// The lines are cut by the review's own line changes (edit/merge/line-changes.ts,
// anchored on unique lines), so a change of thousands of scattered hunks costs
// about its length, not lines × edits.
import { lineChanges } from "./merge/line-changes.js";
import { linesWithEol } from "./shared/text.js";

export interface TextEdit {
  /** UTF-16 offset into the old text where the replaced span starts. */
  start: number;
  /** UTF-16 offset where it ends (exclusive). */
  end: number;
  newText: string;
}

/** Where a stretch has no line found once in each text, beyond this many changed lines it is one edit (as fast, still exact). */
const MAX_EDIT_LENGTH = 2000;

/** Compared a block at a time: string equality is a native memcmp, a character loop is not. */
const BLOCK = 256;

/** Length of the longest common prefix of `a` and `b`. */
function commonPrefix(a: string, b: string): number {
  const limit = Math.min(a.length, b.length);
  let n = 0;
  while (n + BLOCK <= limit && a.slice(n, n + BLOCK) === b.slice(n, n + BLOCK)) n += BLOCK;
  while (n < limit && a.charCodeAt(n) === b.charCodeAt(n)) n++;
  return n;
}

/** Length of the longest common suffix of `a` and `b`, at most `limit`. */
function commonSuffix(a: string, b: string, limit: number): number {
  let n = 0;
  while (
    n + BLOCK <= limit &&
    a.slice(a.length - n - BLOCK, a.length - n) === b.slice(b.length - n - BLOCK, b.length - n)
  )
    n += BLOCK;
  while (n < limit && a.charCodeAt(a.length - 1 - n) === b.charCodeAt(b.length - 1 - n)) n++;
  return n;
}

export function computeTextEdits(before: string, after: string): TextEdit[] {
  if (before === after) return [];
  // The common head and tail, in whole lines, are found on the strings themselves:
  // the usual edit touches a few lines of a long file, and only those are cut and diffed.
  const prefix = commonPrefix(before, after);
  const head = prefix === 0 ? 0 : before.lastIndexOf("\n", prefix - 1) + 1;
  const shared = commonSuffix(before, after, Math.min(before.length, after.length) - head);
  const lineStart = (text: string, at: number): boolean => at === 0 || text.charCodeAt(at - 1) === 10;
  let tail = shared;
  if (!lineStart(before, before.length - shared) || !lineStart(after, after.length - shared)) {
    // Start the tail after the first line break inside the shared part: whole lines in both texts.
    const lineBreak = before.indexOf("\n", before.length - shared);
    tail = lineBreak === -1 ? 0 : before.length - lineBreak - 1;
  }
  const aMid = linesWithEol(before.slice(head, before.length - tail));
  const bMid = linesWithEol(after.slice(head, after.length - tail));
  // Offsets of the old middle's lines: a change's span is looked up, not walked to.
  const at = new Array<number>(aMid.length + 1);
  at[0] = head;
  for (let i = 0; i < aMid.length; i++) at[i + 1] = at[i]! + aMid[i]!.length;
  return lineChanges(aMid, bMid, MAX_EDIT_LENGTH).map((c) => ({
    start: at[c.start]!,
    end: at[c.end]!,
    newText: c.lines.join(""),
  }));
}

/** Applies edits (non-overlapping, any order) to a text. */
export function applyTextEdits(text: string, edits: readonly TextEdit[]): string {
  const sorted = [...edits].sort((x, y) => x.start - y.start);
  let out = "";
  let at = 0;
  for (const e of sorted) {
    out += text.slice(at, e.start) + e.newText;
    at = e.end;
  }
  return out + text.slice(at);
}
