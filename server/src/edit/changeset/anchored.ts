// `apply_patch` hunks placed with the patch engine. An `@@ anchor` narrows a
// hunk to the block under that line (a class, a function); the anchor must be
// found in exactly one place, and the hunk's lines in exactly one place under
// it. Each hunk's place is found first, then all hunks go through the engine
// at once with those places as header numbers, and every anchored hunk must
// land where its anchor said: all hunks or none.
import { applyModelPatch, type PatchResult } from "../patch/patch.js";
import type { HunkLine } from "../patch/diff-parse.js";
import { fail, succeed, type Failure, type Outcome } from "../../shared/outcome.js";
import { linesWithEol } from "../shared/text.js";
import type { AnchoredHunk } from "./change.js";

const bare = (line: string): string => line.replace(/\r?\n$/, "").replace(/^\uFEFF/, "");
const indentOf = (line: string): number => /^[ \t]*/.exec(line)![0].length;

/** Lines in [lo, hi) the anchor names: the same text, else a line starting with it, else one containing it; the first kind that has any. */
function anchorLines(lines: readonly string[], anchor: string, lo: number, hi: number): number[] {
  const want = anchor.trim();
  const tests = [
    (l: string) => l === want,
    (l: string) => l.startsWith(want),
    (l: string) => l.includes(want),
  ];
  for (const test of tests) {
    const hits: number[] = [];
    for (let i = lo; i < hi; i++) if (test(bare(lines[i]!).trim())) hits.push(i);
    if (hits.length > 0) return hits;
  }
  return [];
}

/** The block under line k: up to the next line indented no deeper (a closing bracket or `end` there belongs to it). */
function blockEnd(lines: readonly string[], k: number, hi: number): number {
  const own = indentOf(bare(lines[k]!));
  for (let j = k + 1; j < hi; j++) {
    const text = bare(lines[j]!);
    if (text.trim() === "") continue;
    if (indentOf(text) <= own) return /^\s*([}\])]|end\b)/.test(text) ? j + 1 : j;
  }
  return hi;
}

function diffOf(lines: readonly HunkLine[], start?: number): string {
  const oldCount = lines.filter((l) => l.op !== "+").length;
  const newCount = lines.filter((l) => l.op !== "-").length;
  const header = start === undefined ? "@@ @@" : `@@ -${start},${oldCount} +${start},${newCount} @@`;
  return `${header}\n${lines.map((l) => l.op + l.text).join("\n")}\n`;
}

function name(h: AnchoredHunk, index: number, path: string): string {
  const anchors = h.anchors.length > 0 ? ` under \`${h.anchors.join("` › `")}\`` : "";
  return `hunk ${index + 1} (line ${h.line} of the patch)${anchors} in ${path}`;
}

/** The hunk's 0-based start in [lo, hi), found by the engine on that slice alone; undefined when it does not fit there. */
function placeIn(lines: readonly string[], hunk: AnchoredHunk, lo: number, hi: number): Outcome<number> {
  const slice = lines.slice(lo, hi).join("");
  const placed = applyModelPatch(slice, diffOf(hunk.lines));
  if (!placed.ok) return placed;
  return succeed(lo + placed.value.hunks[0]!.line - 1);
}

interface Planned {
  lines: HunkLine[];
  /** 0-based line the hunk must start at; undefined where the engine decides among its neighbours. */
  at?: number;
}

/** Where one hunk goes: its anchors' block, the end of the file, or wherever the engine finds it. */
function plan(lines: readonly string[], hunk: AnchoredHunk, index: number, path: string): Outcome<Planned> {
  const n = lines.length;
  const who = name(hunk, index, path);
  const hasOld = hunk.lines.some((l) => l.op !== "+");
  if (!hasOld) {
    if (hunk.anchors.length > 0) {
      return fail(
        "invalid_diff",
        `Invalid Diff: ${who} adds lines with no context, so nothing says where under the anchor they go. Nothing was applied.`,
        ["Add 3 unchanged lines around the new ones (each starting with a space), copied from the file."],
      );
    }
    // Added lines alone go at the end of the file: the file's last lines become their context.
    const k = Math.min(3, n);
    const context: HunkLine[] = lines.slice(n - k).map((l) => ({ op: " ", text: bare(l) }));
    return succeed({ lines: [...context, ...hunk.lines], ...(n > 0 ? { at: n - k } : {}) });
  }
  const oldCount = hunk.lines.filter((l) => l.op !== "+").length;
  if (hunk.endOfFile) {
    const at = n - oldCount;
    const fits = at >= 0 ? placeIn(lines, hunk, at, n) : fail("invalid_diff", "");
    if (!fits.ok) {
      return fail(
        "invalid_diff",
        `Invalid Diff: ${who} is marked \`*** End of File\`, but its old lines are not the file's last ${oldCount} lines. Nothing was applied.`,
        ["Copy the file's last lines exactly, or drop the `*** End of File` line."],
      );
    }
    return succeed({ lines: hunk.lines, at });
  }
  if (hunk.anchors.length === 0) return succeed({ lines: hunk.lines });
  let lo = 0;
  let hi = n;
  for (const anchor of hunk.anchors) {
    const hits = anchorLines(lines, anchor, lo, hi);
    if (hits.length === 0) {
      return fail(
        "invalid_diff",
        `Invalid Diff: the anchor \`@@ ${anchor.trim()}\` of ${who} is not in the file${lo > 0 ? " under the anchor before it" : ""}. Nothing was applied.`,
        [
          "Copy the anchor line (a class or function line) exactly from the latest file state, or leave it out and give the hunk more context.",
        ],
      );
    }
    if (hits.length > 1) {
      return fail(
        "ambiguous",
        `Ambiguous: the anchor \`@@ ${anchor.trim()}\` of ${who} matches lines ${hits
          .slice(0, 5)
          .map((h) => h + 1)
          .join(", ")}. Nothing was applied.`,
        ["Add an outer anchor (`@@ class …` before `@@ def …`) or copy the anchor line whole."],
      );
    }
    lo = hits[0]! + 1;
    hi = blockEnd(lines, hits[0]!, hi);
  }
  // Under the innermost anchor: its block first, then anything after it.
  let placed = placeIn(lines, hunk, lo, hi);
  if (!placed.ok && placed.error.code === "invalid_diff" && hi < n) placed = placeIn(lines, hunk, lo, n);
  if (!placed.ok) {
    const why = inPatchTerms(placed.error, [hunk])
      .message.replace(/^[A-Za-z ]+: /, "")
      .replace(/hunk 1 \(line \d+ of the patch\)/, "it");
    return fail(
      placed.error.code,
      `${placed.error.code === "ambiguous" ? "Ambiguous" : "Invalid Diff"}: ${who}, looked for after its anchor: ${why}`,
      placed.error.suggestions,
    );
  }
  return succeed({ lines: hunk.lines, at: placed.value });
}

/** The engine's words for a hunk of the diff built here, turned into the patch's own hunk and line. */
function inPatchTerms(error: Failure, hunks: readonly AnchoredHunk[], single?: number): Failure {
  const message = error.message.replace(
    /hunk (\d+) of \d+( \(the @@ header on line \d+ of the diff\))?/g,
    (_, n: string) => {
      const i = single ?? Number(n) - 1;
      const h = hunks[i];
      return h ? `hunk ${i + 1} (line ${h.line} of the patch)` : `hunk ${n}`;
    },
  );
  return { ...error, message };
}

/** Applies an update's hunks to `content`; every hunk lands, each where its anchor says, or nothing does. */
export function applyAnchoredHunks(
  content: string,
  hunks: readonly AnchoredHunk[],
  path: string,
): Outcome<PatchResult> {
  const lines = linesWithEol(content);
  const planned: Planned[] = [];
  for (let h = 0; h < hunks.length; h++) {
    const p = plan(lines, hunks[h]!, h, path);
    if (!p.ok) return p;
    planned.push(p.value);
  }
  const diff = planned.map((p) => diffOf(p.lines, p.at === undefined ? undefined : p.at + 1)).join("");
  const applied = applyModelPatch(content, `--- a/${path}\n+++ b/${path}\n${diff}`, {
    filePath: path,
    fileExists: () => false,
  });
  if (!applied.ok) return { ok: false, error: inPatchTerms(applied.error, hunks) };
  for (const report of applied.value.hunks) {
    const want = planned[report.index]?.at;
    if (want !== undefined && report.line !== want + 1) {
      return fail(
        "ambiguous",
        `Ambiguous: ${name(hunks[report.index]!, report.index, path)} fits line ${want + 1} under its anchor, but fits line ${report.line} as well. Nothing was applied.`,
        ["Give the hunk more unchanged context lines so it matches one place only."],
      );
    }
  }
  return applied;
}
