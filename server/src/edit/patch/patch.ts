// safe_patch's engine: read a model-written diff leniently, place every hunk in
// the current text, rebuild the diff with true numbers and the file's own lines,
// and apply that with the `diff` package's strict applyPatch. All hunks or none.
import { applyPatch, type StructuredPatch, type StructuredPatchHunk } from "diff";
import { parseUnifiedDiff, type FilePatch, type ParsedHunk } from "./diff-parse.js";
import { LineIndex } from "../shared/line-index.js";
import { locateHunks, type LocateError, type MatchTier, type Placement } from "./locate.js";
import { fail, succeed, type Outcome } from "../shared/outcome.js";
import { detectIndentation, learnIndentation, learnWhitespaceFix, type Indentation } from "../shared/indentation.js";
import { endsWithNewline, LineTable } from "../shared/text.js";
import { placeExactly } from "./exact-fit.js";
import { describeLocateError } from "./patch-messages.js";

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
  /** The target's workspace path: a diff whose headers name another file is refused. */
  filePath?: string;
}

function baseName(path: string): string {
  const parts = path.replace(/\\/g, "/").split("/");
  return parts[parts.length - 1] ?? path;
}

/** The file section of a multi-file diff that targets `filePath`. */
function selectFilePatch(patches: FilePatch[], filePath: string | undefined): Outcome<FilePatch> {
  const named = (p: FilePatch): string | undefined => p.newPath ?? p.oldPath;
  if (filePath === undefined) {
    if (patches.length === 1) return succeed(patches[0]!);
    return fail("invalid_diff", `Invalid Diff: the diff covers ${patches.length} files; send one file's diff per call.`);
  }
  const target = filePath.replace(/\\/g, "/");
  const matches = (p: FilePatch): boolean => {
    const path = named(p);
    return path !== undefined && (path === target || target.endsWith("/" + path) || path.endsWith("/" + target));
  };
  const exact = patches.filter(matches);
  if (exact.length === 1) return succeed(exact[0]!);
  if (patches.length === 1) {
    const only = patches[0]!;
    const path = named(only);
    // Models often get the directory wrong; a different file name means another file.
    if (path !== undefined && baseName(path) !== baseName(target)) {
      return fail("invalid_diff", `Invalid Diff: the diff is for \`${path}\`, not \`${filePath}\`.`, [
        `Call safe_patch with file_path "${path}" if that file is meant, or rebuild the diff from ${filePath}'s content.`,
      ]);
    }
    return succeed(only);
  }
  const names = patches.map((p) => named(p) ?? "(unnamed)").join(", ");
  return fail("invalid_diff", `Invalid Diff: the diff covers ${patches.length} files (${names}) and none is \`${filePath}\`.`, [
    "Send one safe_patch call per file, each with only that file's hunks.",
  ]);
}

interface Corrected {
  hunks: StructuredPatchHunk[];
  reports: HunkReport[];
}

/** Rebuilds each placed hunk from the file's own lines; added lines get the file's ending and indentation. */
function rebuildHunks(file: LineTable, hunks: readonly ParsedHunk[], placements: readonly Placement[]): Outcome<Corrected> {
  // applyPatch splits on \n only, so a CRLF line carries its \r as text. The
  // last line without an ending gets the file's usual one (the source is given one).
  const crOf = (i: number): string => ((file.eolOf(i) || file.eol) === "\r\n" ? "\r" : "");
  const fileLine = (i: number): string => file.line(i) + crOf(i);
  let indentation: Indentation | undefined;
  const fileIndentation = (): Indentation => (indentation ??= detectIndentation(file.all()));
  const out: StructuredPatchHunk[] = [];
  const reports: HunkReport[] = [];
  let shift = 0; // new-side offset accumulated by earlier hunks
  let prevEnd = 0;
  // A model's whitespace drift runs through its whole diff: learn it from every hunk's matched
  // lines at once (a hunk whose context is unindented says nothing alone), else hunk by hunk.
  const pairsOf = (h: number): [string, string][] => {
    const place = placements[h]!;
    return hunks[h]!.lines.filter((l) => l.op !== "+").map((l, i) => [l.text, file.line(place.start + i)]);
  };
  const modelLinesOf = (h: number): string[] => hunks[h]!.lines.map((l) => l.text);
  const everyHunk = hunks.map((_, h) => h);
  // Exact matches show no drift; the only fix left then is spaces typed into a tab-indented
  // file, which needs every matched line to be unindented (else they would show the tabs).
  const unindented = (l: { op: string; text: string }): boolean => l.op === "+" || !(l.text.startsWith(" ") || l.text.startsWith("\t"));
  const mayDrift = placements.some((p) => p.tier !== "exact") || hunks.every((h) => h.lines.every(unindented));
  const whole = mayDrift
    ? learnIndentation(everyHunk.flatMap(pairsOf), { modelLines: everyHunk.flatMap(modelLinesOf), fileIndentation })
    : { fix: (line: string): string => line, consistent: true };
  for (let h = 0; h < hunks.length; h++) {
    const hunk = hunks[h]!;
    const place = placements[h]!;
    const fix = whole.consistent ? whole.fix : learnWhitespaceFix(pairsOf(h), { modelLines: modelLinesOf(h), fileIndentation });
    // Overlapping context with the previous hunk is dropped from this one.
    let skip = Math.max(0, prevEnd - place.start);
    let start = place.start;
    const lines: string[] = [];
    let oldLines = 0;
    let newLines = 0;
    let oldIndex = 0;
    // An added line takes the ending of the old line it follows (the first, before any).
    let cr = crOf(place.start);
    for (const l of hunk.lines) {
      if (l.op === "+") {
        if (skip > 0) return fail("invalid_diff", `Invalid Diff: hunks ${h} and ${h + 1} overlap where hunk ${h + 1} adds lines; merge them into one hunk.`);
        lines.push("+" + fix(l.text) + cr);
        newLines++;
        continue;
      }
      const at = place.start + oldIndex++;
      cr = crOf(at);
      if (skip > 0) {
        if (l.op === "-") return fail("invalid_diff", `Invalid Diff: hunks ${h} and ${h + 1} overlap on line ${at + 1}, which one of them removes; merge them into one hunk.`);
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
    const report: HunkReport = { index: h, line: place.start + 1, tier: place.tier, contextMismatches: place.mismatched.length };
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
  return hunks.flatMap((h) => h.lines.filter((l) => l.op !== "+").map((l) => l.text));
}

/** Every hunk already present: the new side fits where the old side does not. */
function alreadyApplied(lines: readonly string[], hunks: readonly ParsedHunk[]): boolean {
  const reversed = hunks.map((h) => ({ ...h, lines: h.lines.filter((l) => l.op !== "-").map((l) => ({ op: l.op === "+" ? ("-" as const) : l.op, text: l.text })) }));
  // Added lines must be present (as if they were to be removed); context may drift as usual.
  if (!reversed.every((h) => h.lines.some((l) => l.op === "-"))) return false;
  return locateHunks(new LineIndex(lines, oldSideTexts(reversed)), reversed).ok;
}

export function applyModelPatch(content: string, diffText: string, options: PatchOptions = {}): Outcome<PatchResult> {
  const parsed = parseUnifiedDiff(diffText);
  if (!parsed.ok) return parsed;
  const selected = selectFilePatch(parsed.value, options.filePath);
  if (!selected.ok) return selected;
  const patch = selected.value;
  const hunks = patch.hunks;
  if (!hunks.some((h) => h.lines.some((l) => l.op !== " "))) {
    return fail("no_change", "No Change: the diff has no added or removed lines.", ["Add the + and - lines that make the change."]);
  }

  const file = new LineTable(content);
  // Most diffs fit exactly one place as written: found by a direct search, no index needed.
  let placements = placeExactly(file, hunks);
  if (!placements) {
    const index = new LineIndex(file.all(), oldSideTexts(hunks));
    const located = locateHunks(index, hunks);
    if (!located.ok) {
      if (located.error.kind === "not_found" && alreadyApplied(file.all(), hunks)) {
        return fail("no_change", "No Change: the file already contains this change (the added lines are there and the removed ones are gone).", [
          "Nothing to do; continue from the latest file state.",
        ]);
      }
      return describe(located.error, hunks, index);
    }
    placements = located.placements;
  }

  const rebuilt = rebuildHunks(file, hunks, placements);
  if (!rebuilt.ok) return rebuilt;

  // applyPatch reasons about the final newline in ways a model rarely gets right;
  // give it a text that has one, then set the state the diff asks for.
  const hadFinal = content === "" || endsWithNewline(content);
  const source = hadFinal ? content : content + file.eol;
  const structured: StructuredPatch = {
    oldFileName: options.filePath ?? patch.oldPath ?? "file",
    newFileName: options.filePath ?? patch.newPath ?? "file",
    oldHeader: undefined,
    newHeader: undefined,
    hunks: rebuilt.value.hunks,
  };
  const applied = applyPatch(source, structured, { autoConvertLineEndings: false });
  if (applied === false) {
    return fail("internal_error", "Internal Error: the corrected patch failed to apply. The file was not changed; please review the diff for subtle errors and send it again.", [
      "Re-read the file and send the diff again; if it keeps failing, use the edit tool for this change.",
    ]);
  }
  let result = applied;
  if (!wantsFinalNewline(content, hunks) && result.endsWith("\n")) {
    result = result.slice(0, result.endsWith("\r\n") ? -2 : -1);
  }
  if (result === content) {
    return fail("no_change", "No Change: applying the diff leaves the file exactly as it is.", ["Nothing to do; continue from the latest file state."]);
  }
  return succeed({ content: result, diff: renderDiff(structured), hunks: rebuilt.value.reports });
}

/** The corrected diff as text (without the \r applyPatch needed on CRLF lines). */
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
