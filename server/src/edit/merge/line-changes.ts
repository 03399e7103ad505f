// The line-level changes that turn one text into another, as ranges of the old
// text's lines and the lines that replace them. Lines keep their terminators
// (edit/shared/text.ts linesWithEol), so joining them gives the text back byte for byte.
import { diffArrays } from "diff";

/** Old lines [start, end) are replaced by `lines` (start === end: an insertion before line `start`). */
export interface LineChange {
  start: number;
  end: number;
  lines: string[];
}

/** Beyond this many changed lines the diff stops refining and reports the middle as one change. */
const MAX_EDIT_LENGTH = 4000;

export function lineChanges(before: readonly string[], after: readonly string[]): LineChange[] {
  let head = 0;
  while (head < before.length && head < after.length && before[head] === after[head]) head++;
  let tail = 0;
  while (tail < before.length - head && tail < after.length - head && before[before.length - 1 - tail] === after[after.length - 1 - tail]) tail++;
  const a = before.slice(head, before.length - tail);
  const b = after.slice(head, after.length - tail);
  if (a.length === 0 && b.length === 0) return [];
  const parts = diffArrays(a, b, { maxEditLength: MAX_EDIT_LENGTH });
  // Too different to refine: one change over the whole middle, which can only make more conflicts, never fewer.
  if (!parts) return [{ start: head, end: head + a.length, lines: b }];
  const changes: LineChange[] = [];
  let at = head;
  let open: LineChange | undefined;
  for (const part of parts) {
    if (part.added) {
      open ??= { start: at, end: at, lines: [] };
      open.lines.push(...part.value);
    } else if (part.removed) {
      open ??= { start: at, end: at, lines: [] };
      at += part.value.length;
      open.end = at;
    } else {
      if (open) changes.push(open);
      open = undefined;
      at += part.value.length;
    }
  }
  if (open) changes.push(open);
  return changes;
}
