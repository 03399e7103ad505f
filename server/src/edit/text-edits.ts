// The smallest set of line-aligned replacements that turns one text into
// another, as offsets into the old text. Editors receive these instead of a
// whole-file replace, so undo, marks and folds around the change survive.
import { diffArrays } from "diff";

export interface TextEdit {
  /** UTF-16 offset into the old text where the replaced span starts. */
  start: number;
  /** UTF-16 offset where it ends (exclusive). */
  end: number;
  newText: string;
}

/** Lines with their terminators, so offsets add up to the text's length. */
function cut(text: string): string[] {
  const out: string[] = [];
  let start = 0;
  for (let nl = text.indexOf("\n"); nl !== -1; nl = text.indexOf("\n", start)) {
    out.push(text.slice(start, nl + 1));
    start = nl + 1;
  }
  if (start < text.length) out.push(text.slice(start));
  return out;
}

/** Beyond this many changed lines the diff stops looking for a finer answer. */
const MAX_EDIT_LENGTH = 2000;

export function computeTextEdits(before: string, after: string): TextEdit[] {
  if (before === after) return [];
  const a = cut(before);
  const b = cut(after);
  // Common head and tail first: the usual edit touches a few lines of a long file.
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const aMid = a.slice(head, a.length - tail);
  const bMid = b.slice(head, b.length - tail);
  let offset = 0;
  for (let i = 0; i < head; i++) offset += a[i]!.length;

  const changes = diffArrays(aMid, bMid, { maxEditLength: MAX_EDIT_LENGTH });
  if (!changes) {
    return [{ start: offset, end: offset + aMid.join("").length, newText: bMid.join("") }];
  }
  const edits: TextEdit[] = [];
  let pending: TextEdit | undefined;
  for (const change of changes) {
    const text = change.value.join("");
    if (change.added) {
      pending ??= { start: offset, end: offset, newText: "" };
      pending.newText += text;
    } else if (change.removed) {
      pending ??= { start: offset, end: offset, newText: "" };
      offset += text.length;
      pending.end = offset;
    } else {
      if (pending) edits.push(pending);
      pending = undefined;
      offset += text.length;
    }
  }
  if (pending) edits.push(pending);
  return edits;
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
