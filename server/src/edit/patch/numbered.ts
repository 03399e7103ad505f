// When a hunk with no context and no removed lines (an insertion, as `diff -U0`
// writes it) may land at its header's line. Nothing in its own lines says where
// it belongs, so only evidence that the diff's numbers are exact for this very
// text places it:
//   (a) git's `index OLD..NEW` line: OLD is this file's blob hash, and the result's
//       blob hash is NEW. Both ends: a hunk shifted consistently passes OLD alone.
//   (b) the caller checked that this text is the one the diff's author named as
//       its base, and the diff's numbers hold wherever they can be checked: every
//       hunk with old lines lands exactly at its header's line, one such hunk
//       follows each insertion (a text that differs before it would move that
//       hunk too), and the headers' counts and new-side starts are one numbering.
// (b) is evidence, not proof: an insertion shifted by itself, old and new side
// alike, reads as a diff of another change, and lands where it says.
import { hash } from "node:crypto";
import type { FilePatch, ParsedHunk } from "./diff-parse.js";
import type { Placement } from "./locate.js";
import { unnumberedInsertion } from "./patch-messages.js";
import { fail, succeed, type Outcome } from "../shared/outcome.js";

/** git's blob hash of a text: sha1 of `blob <bytes>\0` and the bytes (UTF-8). */
export function gitBlobHash(text: string): string {
  const bytes = Buffer.from(text, "utf8");
  return hash("sha1", Buffer.concat([Buffer.from(`blob ${bytes.length}\0`, "ascii"), bytes]), "hex");
}

/**
 * The forms git may have hashed a text in: as it is, and, for a file with CRLF endings, with LF
 * ones (a checkout with core.autocrlf holds CRLF while the blob, and its diff's index line, has LF).
 */
export type BlobForm = "as-is" | "lf";

export function blobOf(text: string, form: BlobForm): string {
  return gitBlobHash(form === "lf" ? text.replace(/\r\n/g, "\n") : text);
}

/** An abbreviated blob hash names `full` when it is a prefix of it (git abbreviates to 7 or more digits). */
export function namesBlob(abbreviated: string, full: string): boolean {
  return abbreviated.length >= 7 && full.startsWith(abbreviated.toLowerCase());
}

export type NumberEvidence = { kind: "index"; newBlob: string; form: BlobForm } | { kind: "base" } | { kind: "none"; why: string };

/** What the diff and the caller show about the numbers, before any hunk is placed. */
export function numberEvidence(patch: FilePatch, blobNow: (form: BlobForm) => string, baseVerified: boolean, crlf: boolean): NumberEvidence {
  if (patch.index) {
    const now = blobNow("as-is");
    if (namesBlob(patch.index.old, now)) return { kind: "index", newBlob: patch.index.new, form: "as-is" };
    if (crlf && namesBlob(patch.index.old, blobNow("lf"))) return { kind: "index", newBlob: patch.index.new, form: "lf" };
    // The diff says it was made on another text: no base the caller checked outweighs that.
    return { kind: "none", why: `its \`index\` line names blob ${patch.index.old}, and this file's blob is ${now.slice(0, 12)}: the diff was made on another text` };
  }
  if (baseVerified) return { kind: "base" };
  return {
    kind: "none",
    why: "the diff has no git `index` line naming this file's blob, and no base sha256 named by the diff's author was checked against the file",
  };
}

/** Hunks with no old lines: nothing of the file to match. */
export function insertions(hunks: readonly ParsedHunk[]): number[] {
  return hunks.flatMap((h, i) => (h.lines.some((l) => l.op !== "+") ? [] : [i]));
}

/** The 0-based place each insertion's header names (`-N,0` inserts after line N), or why it names none. */
export function headerPlaces(hunks: readonly ParsedHunk[], which: readonly number[], lineCount: number): Map<number, number> | { hunk: number; why: string } {
  const out = new Map<number, number>();
  for (const h of which) {
    const hunk = hunks[h]!;
    if (hunk.oldStart === undefined || hunk.oldCount !== 0) return { hunk: h, why: "its header does not give the line it follows as `-N,0`" };
    if (hunk.oldStart > lineCount) return { hunk: h, why: `its header puts it after line ${hunk.oldStart}, past the end of the file (${lineCount} lines)` };
    out.set(h, hunk.oldStart);
  }
  return out;
}

function sideCounts(hunk: ParsedHunk): { old: number; new: number } {
  let old = 0;
  let added = 0;
  for (const l of hunk.lines) {
    if (l.op !== "+") old++;
    if (l.op !== "-") added++;
  }
  return { old, new: added };
}

/** Where a header's side starts as a 0-based place: a side of 0 lines names the line it follows. */
function place(start: number, count: number): number {
  return count === 0 ? start : start - 1;
}

/** Why the diff's numbers are not shown exact by the hunks placed by content (evidence b), or undefined when they are. */
export function numbersUnproven(hunks: readonly ParsedHunk[], placements: readonly Placement[], inserted: readonly number[]): { hunk: number; why: string } | undefined {
  let shift = 0; // new-side offset accumulated by earlier hunks
  for (let h = 0; h < hunks.length; h++) {
    const hunk = hunks[h]!;
    const counts = sideCounts(hunk);
    if (hunk.oldStart === undefined || hunk.newStart === undefined || hunk.oldCount === undefined || hunk.newCount === undefined) {
      return { hunk: h, why: `hunk ${h + 1}'s header gives no line numbers` };
    }
    if (hunk.oldCount !== counts.old || hunk.newCount !== counts.new) {
      return { hunk: h, why: `hunk ${h + 1}'s header counts ${hunk.oldCount} old and ${hunk.newCount} new lines, and it has ${counts.old} and ${counts.new}` };
    }
    const oldAt = place(hunk.oldStart, hunk.oldCount);
    if (place(hunk.newStart, hunk.newCount) !== oldAt + shift) {
      return { hunk: h, why: `hunk ${h + 1}'s header starts its new side at line ${hunk.newStart}, where the hunks before it put line ${oldAt + shift + 1}` };
    }
    shift += counts.new - counts.old;
    const p = placements[h]!;
    if (p.tier === "numbered") continue;
    if (p.tier !== "exact" || p.start !== oldAt) {
      return { hunk: h, why: `hunk ${h + 1} fits the file at line ${p.start + 1}${p.tier === "exact" ? "" : ` (${p.tier} match)`}, and its header says ${oldAt + 1}` };
    }
  }
  const checked = hunks.map((_, h) => placements[h]!.tier !== "numbered");
  for (const h of inserted) {
    if (!checked.slice(h + 1).some(Boolean)) {
      return { hunk: h, why: "no hunk with context or removed lines follows it, so nothing checks the numbers from there on" };
    }
  }
  return undefined;
}

/** The evidence for insertions' numbers going in (the text's blob hashes, worked out once), and the plan that used it coming out. */
export interface Numbers {
  blobNow: (form: BlobForm) => string;
  baseVerified: boolean;
  crlf: boolean;
  plan?: NumberedPlan;
}

export function numbersFor(content: string, baseVerified: boolean): Numbers {
  const blobs = new Map<BlobForm, string>();
  const blobNow = (form: BlobForm): string => blobs.get(form) ?? blobs.set(form, blobOf(content, form)).get(form)!;
  return { blobNow, baseVerified, crlf: content.includes("\r\n") };
}

/** What the engine needs to place insertions by number, and to check afterwards. */
export interface NumberedPlan {
  insertAt: Map<number, number>;
  evidence: "index" | "base";
  /** The blob hash the result must have (evidence a). */
  newBlob?: string;
  /** The form the index line's OLD named the file in; the result is hashed the same way. */
  form?: BlobForm;
  inserted: number[];
  hunks: readonly ParsedHunk[];
}

/**
 * The header places of the diff's insertions when the evidence allows them (undefined when the
 * diff has none), or the refusal that says what would settle it.
 */
export function planInsertions(
  patch: FilePatch,
  lineCount: number,
  evidence: Numbers,
): Outcome<NumberedPlan | undefined> {
  const hunks = patch.hunks;
  const inserted = lineCount === 0 ? [] : insertions(hunks);
  if (inserted.length === 0) return succeed(undefined);
  const refuse = (h: number, why: string): Outcome<never> => {
    const { code, message, suggestions } = unnumberedInsertion(hunks, h, why);
    return fail(code, message, suggestions);
  };
  const shown = numberEvidence(patch, evidence.blobNow, evidence.baseVerified, evidence.crlf);
  if (shown.kind === "none") return refuse(inserted[0]!, shown.why);
  const places = headerPlaces(hunks, inserted, lineCount);
  if (!(places instanceof Map)) return refuse(places.hunk, places.why);
  return succeed({ insertAt: places, evidence: shown.kind, inserted, hunks, ...(shown.kind === "index" ? { newBlob: shown.newBlob, form: shown.form } : {}) });
}

/** The refusal when the placed hunks do not show the numbers exact (evidence b), else undefined. */
export function checkPlan(plan: NumberedPlan, hunks: readonly ParsedHunk[], placements: readonly Placement[]): Outcome<never> | undefined {
  if (plan.evidence !== "base") return undefined;
  const unproven = numbersUnproven(hunks, placements, plan.inserted);
  if (unproven === undefined) return undefined;
  const { code, message, suggestions } = unnumberedInsertion(hunks, plan.inserted[0]!, `the base matches, but ${unproven.why}`);
  return fail(code, message, suggestions);
}

/** The refusal when the result is not the blob the diff's `index` line names (evidence a), else undefined. */
export function checkResultBlob(plan: NumberedPlan | undefined, result: string): Outcome<never> | undefined {
  if (plan?.newBlob === undefined) return undefined;
  const got = blobOf(result, plan.form ?? "as-is");
  if (namesBlob(plan.newBlob, got)) return undefined;
  const { code, message, suggestions } = unnumberedInsertion(
    plan.hunks,
    plan.inserted[0]!,
    `placed at the header lines, the result's blob is ${got.slice(0, 12)}, and the diff's \`index\` line says ${plan.newBlob}, so its numbers do not describe this file`,
  );
  return fail(code, message, suggestions);
}
