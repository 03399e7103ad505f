// safe_patch's engine: read a model-written diff leniently, place every hunk in
// the current text, rebuild the diff with true numbers and the file's own lines,
// and apply that strictly (every old line checked against the file, as `diff`'s
// applyPatch checks it). All hunks or none.
import type { StructuredPatch, StructuredPatchHunk } from "diff";
import { applyStrictly } from "./apply-strict.js";
import { parseUnifiedDiff, type FilePatch, type ParsedHunk } from "./diff-parse.js";
import { alike, LineIndex } from "../shared/line-index.js";
import { locateHunks, type LocateError, type MatchTier, type Placement } from "./locate.js";
import { fail, succeed, type Outcome } from "../../shared/outcome.js";
import {
  describeIndent,
  detectIndentation,
  frameOf,
  lead,
  readAddedLines,
  showsIndentation,
  type AddedLine,
  type FramePair,
  type IndentConflict,
  type Indentation,
  type LineOp,
} from "../shared/indentation.js";
import { endsWithNewline, LineTable } from "../shared/text.js";
import { placeExactly } from "./exact-fit.js";
import { diffWithoutBom, keepingBom } from "../shared/shape.js";
import { describeLocateError } from "./patch-messages.js";
import { checkResultBlob, numbersFor, planInsertions, type Numbers } from "./numbered.js";

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

export interface PatchResult {
  content: string;
  /** The diff as applied: true line numbers, the file's own context lines. */
  diff: string;
  hunks: HunkReport[];
}

export interface PatchOptions {
  /** The target's workspace path. It decides: the diff's header paths are only hints. */
  filePath?: string;
  /** Whether a header's path names a file that exists (workspace-relative); a diff headed for another existing file is refused. */
  fileExists?: (path: string) => boolean;
}

/**
 * The file section of a diff that targets `filePath`. Models head diffs with
 * `original`/`modified`, `a/x`/`b/x`, `before.c`, or the right name in the
 * wrong folder: the given path decides, and a header only refuses a diff when
 * it names another file that exists.
 */
function selectFilePatch(patches: FilePatch[], options: PatchOptions): Outcome<FilePatch> {
  const { filePath, fileExists } = options;
  const named = (p: FilePatch): string | undefined => p.newPath ?? p.oldPath;
  if (filePath === undefined) {
    if (patches.length === 1) return succeed(patches[0]!);
    return fail(
      "invalid_diff",
      `Invalid Diff: the diff covers ${patches.length} files; send one file's diff per call.`,
    );
  }
  const target = filePath.replace(/\\/g, "/");
  const matches = (p: FilePatch): boolean => {
    const path = named(p);
    return (
      path !== undefined && (path === target || target.endsWith("/" + path) || path.endsWith("/" + target))
    );
  };
  const exact = patches.filter(matches);
  if (exact.length === 1) return succeed(exact[0]!);
  /** The header names an existing file other than the target (either side). */
  const otherFile = (p: FilePatch): string | undefined =>
    [p.newPath, p.oldPath].find(
      (path) =>
        path !== undefined && !matches({ ...p, newPath: path, oldPath: path }) && fileExists?.(path) === true,
    );
  if (patches.length === 1) {
    const only = patches[0]!;
    const other = otherFile(only);
    if (other !== undefined) {
      return fail("invalid_diff", `Invalid Diff: the diff is for \`${other}\`, not \`${filePath}\`.`, [
        `Call safe_patch with file_path "${other}" if that file is meant, or rebuild the diff from ${filePath}'s content.`,
      ]);
    }
    return succeed(only);
  }
  const names = patches.map((p) => named(p) ?? "(unnamed)").join(", ");
  return fail(
    "invalid_diff",
    `Invalid Diff: the diff covers ${patches.length} files (${names}) and none is \`${filePath}\`.`,
    ["Send one safe_patch call per file, each with only that file's hunks."],
  );
}

interface Corrected {
  hunks: StructuredPatchHunk[];
  reports: HunkReport[];
}

/**
 * The text of every hunk's added lines: as written, or in the file's frame when
 * all of the evidence says the model typed the diff in another (see
 * shared/indentation.ts). A hunk whose old lines show no drift is read alone;
 * the drifting ones are weighed together, since a model's drift runs through
 * its whole diff.
 */
function addedLineTexts(
  file: LineTable,
  hunks: readonly ParsedHunk[],
  placements: readonly Placement[],
): Outcome<string[][]> {
  let indentation: Indentation | undefined;
  const fileIndentation = (): Indentation => (indentation ??= detectIndentation(file.all()));
  const out = hunks.map((h) => h.lines.filter((l) => l.op === "+").map((l) => l.text));
  // Exact placements of indented lines show the file's frame: nothing to weigh.
  const unindented = (l: { op: string; text: string }): boolean => l.op === "+" || !showsIndentation(l.text);
  if (
    placements.every((p) => p.tier === "exact" || p.tier === "numbered") &&
    !hunks.every((h) => h.lines.every(unindented))
  )
    return succeed(out);

  const parts = hunks.map((hunk, h) => {
    const place = placements[h]!;
    const mismatched = new Set(place.mismatched);
    let oldIndex = 0;
    const ops: LineOp[] = [];
    for (const l of hunk.lines) {
      if (l.op === "+") {
        ops.push({ op: "+", text: l.text });
        continue;
      }
      const i = oldIndex++;
      // A context line that did not match says nothing about indentation: it stands as blank.
      ops.push({
        op: l.op,
        text: mismatched.has(i) ? "" : l.text,
        fileText: mismatched.has(i) ? "" : file.line(place.start + i),
      });
    }
    return frameOf(ops, "diff", alike);
  });
  const ask = (members: number[]): Outcome<void> => {
    const pairs: FramePair[] = [];
    const added: AddedLine[] = [];
    for (const h of members) {
      const base = pairs.length;
      const shift = (i: number | undefined): number | undefined => (i === undefined ? undefined : i + base);
      pairs.push(...parts[h]!.pairs);
      for (const a of parts[h]!.added)
        added.push({ ...a, anchor: shift(a.anchor), partner: shift(a.partner) });
    }
    const answer = readAddedLines({ pairs, added, fileIndentation });
    if (!answer.ok) return indentRefusal(answer.conflict, hunks, members);
    let k = 0;
    for (const h of members) out[h] = out[h]!.map(() => answer.lines[k++]!);
    return succeed(undefined);
  };
  // A hunk whose old lines are indented and show no drift was written in the file's frame: alone.
  // One whose old lines are all unindented says nothing: it is weighed with the drifting ones.
  const solid = (pair: FramePair): boolean => pair.model.trim() !== "";
  const drifts = parts.map((p) =>
    p.pairs.some((pair) => solid(pair) && lead(pair.model) !== lead(pair.file)),
  );
  const silent = parts.map((p) => p.pairs.every((pair) => !showsIndentation(pair.model)));
  const drifting = hunks.map((_, h) => h).filter((h) => drifts[h]);
  for (let h = 0; h < hunks.length; h++) {
    if (drifts[h] || (silent[h] && drifting.length > 0)) continue;
    const asked = ask([h]);
    if (!asked.ok) return asked;
  }
  if (drifting.length > 0) {
    const asked = ask(hunks.map((_, h) => h).filter((h) => drifts[h] || silent[h]));
    if (!asked.ok) return asked;
  }
  return succeed(out);
}

function indentRefusal(
  c: IndentConflict,
  hunks: readonly ParsedHunk[],
  members: readonly number[],
): Outcome<never> {
  let k = c.added;
  let h = members[0]!;
  for (const m of members) {
    const n = hunks[m]!.lines.filter((l) => l.op === "+").length;
    h = m;
    if (k < n) break;
    k -= n;
  }
  const line = JSON.stringify(c.literal.trim().slice(0, 80));
  const why =
    c.reindented === undefined
      ? `its context lines are indented differently from the file, and no single rule maps its indentation (${describeIndent(c.literal)}) into the file's`
      : `as written it has ${describeIndent(c.literal)}; re-indented the way the diff's context and removed lines differ from the file, it would have ${describeIndent(c.reindented)}, and nothing in the diff says which is meant`;
  return fail(
    "invalid_diff",
    `Invalid Diff: the indentation of added line ${line} in hunk ${h + 1} is ambiguous: ${why}. The file was not changed.`,
    [
      "Copy the context and removed lines from the file with their exact indentation, write the added lines in the same indentation as the file, and send the diff again.",
    ],
  );
}

/** Rebuilds each placed hunk from the file's own lines; added lines get the file's ending and the text `addedLineTexts` settled. */
function rebuildHunks(
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

/** Whether the new text should end with a newline: the file's own state unless the diff says otherwise. */
function wantsFinalNewline(content: string, hunks: readonly ParsedHunk[]): boolean {
  const last = hunks[hunks.length - 1];
  const hadOne = content === "" || endsWithNewline(content);
  if (!last || (!last.noNewlineOld && !last.noNewlineNew)) return hadOne || content === "";
  return !last.noNewlineNew;
}

function oldSideTexts(hunks: readonly ParsedHunk[]): string[] {
  const out: string[] = [];
  for (const h of hunks) for (const l of h.lines) if (l.op !== "+") out.push(l.text);
  return out;
}

/** Every hunk already present: the new side fits where the old side does not. */
function alreadyApplied(file: LineTable, hunks: readonly ParsedHunk[]): boolean {
  const reversed = hunks.map((h) => ({
    ...h,
    lines: h.lines
      .filter((l) => l.op !== "-")
      .map((l) => ({ op: l.op === "+" ? ("-" as const) : l.op, text: l.text })),
  }));
  // Added lines must be present (as if they were to be removed); context may drift as usual.
  if (!reversed.every((h) => h.lines.some((l) => l.op === "-"))) return false;
  // Proof, not a likeness: every reversed hunk fits exactly or modulo whitespace, none by fuzzy context.
  const located = locateHunks(new LineIndex(file, oldSideTexts(reversed)), reversed);
  return located.ok && located.placements.every((p) => p.tier !== "fuzzy");
}

export function applyModelPatch(
  content: string,
  diffText: string,
  options: PatchOptions = {},
): Outcome<PatchResult> {
  // Blob hashes are of the whole text, BOM included: git hashes the bytes.
  const numbers = numbersFor(content);
  const patched = keepingBom(content, (body) => patchText(body, diffWithoutBom(diffText), options, numbers));
  if (!patched.ok) return patched;
  return checkResultBlob(numbers.plan, patched.value.content) ?? patched;
}

function patchText(
  content: string,
  diffText: string,
  options: PatchOptions,
  numbers: Numbers,
): Outcome<PatchResult> {
  const parsed = parseUnifiedDiff(diffText);
  if (!parsed.ok) return parsed;
  const selected = selectFilePatch(parsed.value, options);
  if (!selected.ok) return selected;
  const patch = selected.value;
  const hunks = patch.hunks;
  if (!hunks.some((h) => h.lines.some((l) => l.op !== " "))) {
    return fail("no_change", "No Change: the diff has no added or removed lines.", [
      "Add the + and - lines that make the change.",
    ]);
  }

  const file = new LineTable(content);
  const planned = planInsertions(patch, content === "" ? 0 : file.count, numbers);
  if (!planned.ok) return planned;
  const plan = planned.value;
  // Most diffs fit exactly one place as written: found by a direct search, no index needed.
  let placements = placeExactly(file, hunks);
  if (!placements) {
    const index = new LineIndex(file, oldSideTexts(hunks));
    const located = locateHunks(index, hunks, plan ? { insertAt: plan.insertAt } : {});
    if (!located.ok) {
      if (located.error.kind === "not_found" && alreadyApplied(file, hunks)) {
        return fail(
          "no_change",
          "No Change: the file already contains this change (the added lines are there and the removed ones are gone).",
          ["Nothing to do; continue from the latest file state."],
        );
      }
      return describe(located.error, hunks, index);
    }
    placements = located.placements;
  }
  if (plan) numbers.plan = plan;
  const hidden = fixInContext(file, hunks, placements);
  if (hidden) return hidden;

  const rebuilt = rebuildHunks(file, hunks, placements);
  if (!rebuilt.ok) return rebuilt;

  // The final newline is the file's business, not the model's (models rarely get its marker right);
  // give it a text that has one, then set the state the diff asks for.
  const structured: StructuredPatch = {
    oldFileName: options.filePath ?? patch.oldPath ?? "file",
    newFileName: options.filePath ?? patch.newPath ?? "file",
    oldHeader: undefined,
    newHeader: undefined,
    hunks: rebuilt.value.hunks,
  };
  const applied = applyStrictly(file, structured.hunks, file.eol);
  if (applied === undefined) {
    return fail(
      "internal_error",
      "Internal Error: the corrected patch failed to apply. The file was not changed; please review the diff for subtle errors and send it again.",
      ["Re-read the file and send the diff again; if it keeps failing, use the edit tool for this change."],
    );
  }
  let result = applied;
  if (!wantsFinalNewline(content, hunks) && result.endsWith("\n")) {
    result = result.slice(0, result.endsWith("\r\n") ? -2 : -1);
  }
  if (result === content) {
    return fail("no_change", "No Change: applying the diff leaves the file exactly as it is.", [
      "Nothing to do; continue from the latest file state.",
    ]);
  }
  return succeed({ content: result, diff: renderDiff(structured), hunks: rebuilt.value.reports });
}

/**
 * A context line that differs from the file, in a hunk whose - and + lines
 * change nothing there (an identical pair, or no change at all): the model
 * wrote its fix into the context line. Taking the file's line would drop the
 * fix and report success; the refusal says how to write it so the retry lands.
 */
function fixInContext(
  file: LineTable,
  hunks: readonly ParsedHunk[],
  placements: readonly Placement[],
): Outcome<never> | undefined {
  if (placements.every((p) => p.mismatched.length === 0)) return undefined;
  const changes = (h: ParsedHunk): { removed: string[]; added: Set<string> } => ({
    removed: h.lines.filter((l) => l.op === "-").map((l) => l.text),
    added: new Set(h.lines.filter((l) => l.op === "+").map((l) => l.text)),
  });
  // A pair that removes and adds the same line anywhere in the diff: the model thought it changed something there.
  const noOpPair = hunks.some((hunk) => {
    const { removed, added } = changes(hunk);
    return removed.some((t) => added.has(t));
  });
  for (let h = 0; h < hunks.length; h++) {
    const place = placements[h]!;
    if (place.mismatched.length === 0) continue;
    const lines = hunks[h]!.lines;
    const { removed, added } = changes(hunks[h]!);
    const changesNothing = removed.length === added.size && removed.every((t) => added.has(t));
    if (!noOpPair && !changesNothing) continue;
    const old = lines.filter((l) => l.op !== "+");
    const i = place.mismatched[0]!;
    const at = place.start + i;
    return fail(
      "invalid_diff",
      `Invalid Diff: in hunk ${h + 1}, the context line ${JSON.stringify(old[i]!.text.trim().slice(0, 100))} differs from the file's line ${at + 1} ` +
        `${JSON.stringify(file.line(at).trim().slice(0, 100))}, while the hunk's - and + lines change nothing there. ` +
        "A context line is never changed: if you meant to change that line, write it as a - line with the file's text and a + line with yours. The file was not changed.",
      [
        `Write line ${at + 1} as "-" + its text in the file, then "+" + the new text, and send the diff again.`,
      ],
    );
  }
  return undefined;
}

/** The corrected diff as text (without the \r a CRLF line carries in a hunk). */
function renderDiff(patch: StructuredPatch): string {
  const range = (start: number, count: number): string => `${count === 0 ? start - 1 : start},${count}`;
  let out = `--- ${patch.oldFileName}\n+++ ${patch.newFileName}\n`;
  for (const h of patch.hunks) {
    out += `@@ -${range(h.oldStart, h.oldLines)} +${range(h.newStart, h.newLines)} @@\n`;
    for (const l of h.lines) out += (l.endsWith("\r") ? l.slice(0, -1) : l) + "\n";
  }
  return out;
}

function describe(error: LocateError, hunks: readonly ParsedHunk[], index: LineIndex): Outcome<never> {
  const { code, message, suggestions } = describeLocateError(error, hunks, index);
  return fail(code, message, suggestions);
}
