// A unified diff of two texts, cut by the same line changes as the review's hunks
// (line-changes.ts), so a change of thousands of scattered hunks costs about its
// length; the `diff` package's own diff (Myers over the whole) costs lines × edits.
// The hunks are shaped as that package shapes them (context on both sides, hunks
// joined where their context would meet, "\ No newline at end of file" after a last
// line without one), and its formatter writes them out.
import { formatPatch, FILE_HEADERS_ONLY, type StructuredPatch, type StructuredPatchHunk } from "diff";
import { linesWithEol } from "../shared/text.js";
import { lineChanges, type LineChange } from "./line-changes.js";

export interface UnifiedDiff {
  /** The diff with `---`/`+++` headers naming `path` on both sides; headers alone when nothing changed. */
  diff: string;
  added: number;
  removed: number;
}

export function unifiedDiff(path: string, before: string, after: string, context = 3): UnifiedDiff {
  const a = linesWithEol(before);
  const b = linesWithEol(after);
  const changes = lineChanges(a, b);
  const hunks: StructuredPatchHunk[] = [];
  let added = 0;
  let removed = 0;
  for (let i = 0; i < changes.length; ) {
    // Changes whose unchanged lines between them are at most twice the context share a hunk.
    let j = i;
    while (j + 1 < changes.length && changes[j + 1]!.start - changes[j]!.end <= 2 * context) j++;
    const group = changes.slice(i, j + 1);
    // The new text's lines before this hunk: the old ones, plus what earlier hunks added, minus what they removed.
    hunks.push(hunkOf(a, group, context, added - removed));
    for (const c of group) {
      added += c.lines.length;
      removed += c.end - c.start;
    }
    i = j + 1;
  }
  const patch: StructuredPatch = {
    oldFileName: path,
    newFileName: path,
    oldHeader: "",
    newHeader: "",
    hunks,
  };
  return { diff: formatPatch(patch, FILE_HEADERS_ONLY), added, removed };
}

/** One hunk over `group` (changes close enough to share it) with up to `context` lines either side. */
function hunkOf(
  a: readonly string[],
  group: readonly LineChange[],
  context: number,
  gained: number,
): StructuredPatchHunk {
  const first = group[0]!;
  const last = group[group.length - 1]!;
  const from = Math.max(0, first.start - context);
  const to = Math.min(a.length, last.end + context);
  const raw: string[] = [];
  let at = from;
  for (const c of group) {
    for (; at < c.start; at++) raw.push(" " + a[at]!);
    for (; at < c.end; at++) raw.push("-" + a[at]!);
    for (const l of c.lines) raw.push("+" + l);
  }
  for (; at < to; at++) raw.push(" " + a[at]!);
  const lines: string[] = [];
  let oldLines = 0;
  let newLines = 0;
  for (const l of raw) {
    if (l[0] !== "+") oldLines++;
    if (l[0] !== "-") newLines++;
    if (l.endsWith("\n")) lines.push(l.slice(0, -1));
    else lines.push(l, "\\ No newline at end of file");
  }
  // 1-based starts; the formatter writes one less where a side has no lines, as unified diffs do.
  return { oldStart: from + 1, oldLines, newStart: from + gained + 1, newLines, lines };
}
