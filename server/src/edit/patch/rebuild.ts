// A placed diff rebuilt from the file's own lines: true line numbers, the file's context and
// line endings, the added lines' settled text, overlapping hunks merged or refused; and the
// rebuilt diff as text. Knows nothing of how hunks were placed or which file section was chosen.
import type { StructuredPatch, StructuredPatchHunk } from "diff";
import type { ParsedHunk } from "./diff-parse.js";
import type { MatchTier, Placement } from "./locate.js";
import { fail, succeed, type Outcome } from "../../shared/outcome.js";
import type { LineTable } from "../shared/text.js";
import { addedLineTexts } from "./added-lines.js";

export interface HunkReport {
  /** 0-based position of the hunk in the given diff. */
  index: number;
  /** 1-based line the hunk's old side starts at in the file. */
  line: number;
  /** The line the header claimed, if it had one. */
  claimedLine?: number;
  tier: MatchTier;
  /** Context lines that did not match and were taken from the file as it is. */
  contextMismatches: number;
}

export interface Corrected {
  hunks: StructuredPatchHunk[];
  reports: HunkReport[];
}

/** Rebuilds each placed hunk from the file's own lines; added lines get the file's ending and the text `addedLineTexts` settled. */
export function rebuildHunks(
  file: LineTable,
  hunks: readonly ParsedHunk[],
  placements: readonly Placement[],
): Outcome<Corrected> {
  // applyPatch splits on \n only, so a CRLF line carries its \r as text. The
  // last line without an ending gets the file's usual one (the source is given one).
  const crOf = (i: number): string => ((file.eolOf(i) || file.eol) === "\r\n" ? "\r" : "");
  const fileLine = (i: number): string => file.line(i) + crOf(i);
  const texts = addedLineTexts(file, hunks, placements);
  if (!texts.ok) return texts;
  const out: StructuredPatchHunk[] = [];
  const reports: HunkReport[] = [];
  let shift = 0; // new-side offset accumulated by earlier hunks
  let prevEnd = 0;
  for (let h = 0; h < hunks.length; h++) {
    const hunk = hunks[h]!;
    const place = placements[h]!;
    const added = texts.value[h]!;
    let addedIndex = 0;
    // Overlapping context with the previous hunk is dropped from this one.
    let skip = Math.max(0, prevEnd - place.start);
    let start = place.start;
    const lines: string[] = [];
    let oldLines = 0;
    let newLines = 0;
    let oldIndex = 0;
    // An added line takes the ending of the old line it follows (the first, before any; an insertion
    // without old lines follows the line before its place).
    let cr = crOf(place.tier === "numbered" && place.start > 0 ? place.start - 1 : place.start);
    for (const l of hunk.lines) {
      if (l.op === "+") {
        if (skip > 0)
          return fail(
            "invalid_diff",
            `Invalid Diff: hunks ${h} and ${h + 1} overlap where hunk ${h + 1} adds lines; merge them into one hunk.`,
          );
        lines.push("+" + added[addedIndex++]! + cr);
        newLines++;
        continue;
      }
      const at = place.start + oldIndex++;
      cr = crOf(at);
      if (skip > 0) {
        if (l.op === "-")
          return fail(
            "invalid_diff",
            `Invalid Diff: hunks ${h} and ${h + 1} overlap on line ${at + 1}, which one of them removes; merge them into one hunk.`,
          );
        skip--;
        start++;
        continue;
      }
      lines.push(l.op + fileLine(at));
      oldLines++;
      if (l.op === " ") newLines++;
    }
    prevEnd = place.start + oldIndex;
    if (lines.length === 0) continue;
    out.push({ oldStart: start + 1, oldLines, newStart: start + 1 + shift, newLines, lines });
    shift += newLines - oldLines;
    const report: HunkReport = {
      index: h,
      line: place.start + 1,
      tier: place.tier,
      contextMismatches: place.mismatched.length,
    };
    if (hunk.oldStart !== undefined) report.claimedLine = hunk.oldStart;
    reports.push(report);
  }
  return succeed({ hunks: out, reports });
}

/** The corrected diff as text (without the \r a CRLF line carries in a hunk). */
export function renderDiff(patch: StructuredPatch): string {
  const range = (start: number, count: number): string => `${count === 0 ? start - 1 : start},${count}`;
  let out = `--- ${patch.oldFileName}\n+++ ${patch.newFileName}\n`;
  for (const h of patch.hunks) {
    out += `@@ -${range(h.oldStart, h.oldLines)} +${range(h.newStart, h.newLines)} @@\n`;
    for (const l of h.lines) out += (l.endsWith("\r") ? l.slice(0, -1) : l) + "\n";
  }
  return out;
}
