// safe_patch's engine: read a model-written diff leniently, place every hunk in
// the current text, rebuild the diff with true numbers and the file's own lines,
// and apply that strictly (every old line checked against the file, as `diff`'s
// applyPatch checks it). All hunks or none. Its parts: file-section.ts (which section of the
// diff), locate.ts (where each hunk goes), added-lines.ts (the added lines' indentation),
// rebuild.ts (the diff rebuilt from the file's lines). Knows nothing of files or LSP.
import type { StructuredPatch } from "diff";
import { applyStrictly } from "./apply-strict.js";
import { parseUnifiedDiff, type ParsedHunk } from "./diff-parse.js";
import { LineIndex } from "../shared/line-index.js";
import { locateHunks, type LocateError, type Placement } from "./locate.js";
import { fail, succeed, type Outcome } from "../../shared/outcome.js";
import { endsWithNewline, LineTable } from "../shared/text.js";
import { placeExactly } from "./exact-fit.js";
import { diffWithoutBom, keepingBom } from "../shared/shape.js";
import { describeLocateError } from "./patch-messages.js";
import { checkResultBlob, numbersFor, planInsertions, type Numbers } from "./numbered.js";
import { selectFilePatch, type PatchOptions } from "./file-section.js";
import { rebuildHunks, renderDiff, type HunkReport } from "./rebuild.js";

export type { PatchOptions } from "./file-section.js";
export type { HunkReport } from "./rebuild.js";

export interface PatchResult {
  content: string;
  /** The diff as applied: true line numbers, the file's own context lines. */
  diff: string;
  hunks: HunkReport[];
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

function describe(error: LocateError, hunks: readonly ParsedHunk[], index: LineIndex): Outcome<never> {
  const { code, message, suggestions } = describeLocateError(error, hunks, index);
  return fail(code, message, suggestions);
}
