// A change cut into hunks a person can decide one by one: the changed lines of
// before → after, grouped as a unified diff groups them (changes closer than
// twice the context become one hunk), each with the context that surrounds it.
import { linesWithEol } from "../shared/text.js";
import { lineChanges } from "./line-changes.js";

export const HUNK_CONTEXT = 3;

export interface ChangeHunk {
  /** Old lines [start, end) are replaced (start === end: inserted before line `start`); 0-based. */
  start: number;
  end: number;
  removed: string[];
  added: string[];
  /** Up to HUNK_CONTEXT unchanged lines above and below, from the old text. */
  above: string[];
  below: string[];
  /** 0-based line of the new text where `added` begins. */
  newStart: number;
}

export function changeHunks(before: string, after: string, context = HUNK_CONTEXT): ChangeHunk[] {
  const a = linesWithEol(before);
  const b = linesWithEol(after);
  const changes = lineChanges(a, b);
  const hunks: ChangeHunk[] = [];
  let shift = 0; // new line = old line + shift, for lines outside any change
  for (let i = 0; i < changes.length; ) {
    const first = changes[i]!;
    let last = first;
    let j = i + 1;
    while (j < changes.length && changes[j]!.start - last.end <= 2 * context) last = changes[j++]!;
    const added: string[] = [];
    for (let k = i; k < j; k++) {
      const c = changes[k]!;
      added.push(...c.lines);
      // The unchanged old lines between this change and the next are in the new text too.
      if (k + 1 < j) added.push(...a.slice(c.end, changes[k + 1]!.start));
    }
    hunks.push({
      start: first.start,
      end: last.end,
      removed: a.slice(first.start, last.end),
      added,
      above: a.slice(Math.max(0, first.start - context), first.start),
      below: a.slice(last.end, last.end + context),
      newStart: first.start + shift,
    });
    shift += added.length - (last.end - first.start);
    i = j;
  }
  return hunks;
}

const bare = (line: string): string => line.replace(/\r?\n$/, "");

/** One hunk as unified diff text (for people: the review's "show diff" and the hunk list). */
export function hunkDiff(hunk: ChangeHunk): string {
  const oldCount = hunk.above.length + hunk.removed.length + hunk.below.length;
  const newCount = hunk.above.length + hunk.added.length + hunk.below.length;
  const oldStart = hunk.start - hunk.above.length;
  const newStart = hunk.newStart - hunk.above.length;
  const range = (start: number, count: number): string => `${count === 0 ? start : start + 1},${count}`;
  const out = [`@@ -${range(oldStart, oldCount)} +${range(newStart, newCount)} @@`];
  const emit = (prefix: string, lines: readonly string[]): void => {
    for (const l of lines) {
      out.push(prefix + bare(l));
      if (!l.endsWith("\n")) out.push("\\ No newline at end of file");
    }
  };
  emit(" ", hunk.above);
  emit("-", hunk.removed);
  emit("+", hunk.added);
  emit(" ", hunk.below);
  return out.join("\n") + "\n";
}

/**
 * "+a −r: first proposed line" as the review lists a hunk: what it would put there, shortened;
 * a hunk that only removes names its first removed line ("−" before it).
 */
export function hunkSummary(hunk: ChangeHunk): string {
  const width = 60;
  const counts = `+${hunk.added.length} −${hunk.removed.length}`;
  const added = hunk.added.map((l) => bare(l).trim()).find((l) => l !== "");
  const removed = hunk.removed.map((l) => bare(l).trim()).find((l) => l !== "");
  const line = added ?? (removed === undefined || hunk.added.length > 0 ? undefined : `− ${removed}`);
  if (line === undefined) return counts;
  return `${counts}: ${line.length > width ? `${line.slice(0, width - 1)}…` : line}`;
}
