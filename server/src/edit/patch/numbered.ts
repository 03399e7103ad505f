// When a hunk with no context and no removed lines (an insertion, as `diff -U0`
// writes it) may land at its header's line. Nothing in its own lines says where
// it belongs, so only a proof that the diff's numbers are exact for this very text
// places it: git's `index OLD..NEW` line, OLD this file's blob hash and the
// result's blob hash NEW. Both ends: a hunk shifted consistently passes OLD alone.
// Without that line the insertion is refused (3 lines of context, or git's diff
// with its index line, settles it). A matched base sha256 with every other hunk
// at its header line is NOT accepted: an insertion whose own numbers are shifted,
// old and new side alike, reads as a diff of another change, and nothing in the
// other hunks can tell; measured, that rule wrote 17 of 32 such cases wrong
// (bench/zero-context.ts).
import { hash } from "node:crypto";
import type { FilePatch, ParsedHunk } from "./diff-parse.js";
import { unnumberedInsertion } from "./patch-messages.js";
import { fail, succeed, type Outcome } from "../../shared/outcome.js";

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

export type NumberEvidence =
  | { kind: "index"; newBlob: string; form: BlobForm }
  | { kind: "none"; why: string };

/** What the diff shows about its numbers, before any hunk is placed. */
export function numberEvidence(
  patch: FilePatch,
  blobNow: (form: BlobForm) => string,
  crlf: boolean,
): NumberEvidence {
  if (patch.index) {
    const now = blobNow("as-is");
    if (namesBlob(patch.index.old, now)) return { kind: "index", newBlob: patch.index.new, form: "as-is" };
    if (crlf && namesBlob(patch.index.old, blobNow("lf")))
      return { kind: "index", newBlob: patch.index.new, form: "lf" };
    return {
      kind: "none",
      why: `its \`index\` line names blob ${patch.index.old}, and this file's blob is ${now.slice(0, 12)}: the diff was made on another text`,
    };
  }
  return {
    kind: "none",
    why: "the diff has no git `index OLD..NEW` line, and only that line proves the numbers (a matching base sha256 does not: the diff may number another change)",
  };
}

/** Hunks with no old lines: nothing of the file to match. */
export function insertions(hunks: readonly ParsedHunk[]): number[] {
  return hunks.flatMap((h, i) => (h.lines.some((l) => l.op !== "+") ? [] : [i]));
}

/** The 0-based place each insertion's header names (`-N,0` inserts after line N), or why it names none. */
export function headerPlaces(
  hunks: readonly ParsedHunk[],
  which: readonly number[],
  lineCount: number,
): Map<number, number> | { hunk: number; why: string } {
  const out = new Map<number, number>();
  for (const h of which) {
    const hunk = hunks[h]!;
    if (hunk.oldStart === undefined || hunk.oldCount !== 0)
      return { hunk: h, why: "its header does not give the line it follows as `-N,0`" };
    if (hunk.oldStart > lineCount)
      return {
        hunk: h,
        why: `its header puts it after line ${hunk.oldStart}, past the end of the file (${lineCount} lines)`,
      };
    out.set(h, hunk.oldStart);
  }
  return out;
}

/** The evidence for insertions' numbers going in (the text's blob hashes, worked out once), and the plan that used it coming out. */
export interface Numbers {
  blobNow: (form: BlobForm) => string;
  crlf: boolean;
  plan?: NumberedPlan;
}

export function numbersFor(content: string): Numbers {
  const blobs = new Map<BlobForm, string>();
  const blobNow = (form: BlobForm): string =>
    blobs.get(form) ?? blobs.set(form, blobOf(content, form)).get(form)!;
  return { blobNow, crlf: content.includes("\r\n") };
}

/** What the engine needs to place insertions by number, and to check afterwards. */
export interface NumberedPlan {
  insertAt: Map<number, number>;
  /** The blob hash the result must have. */
  newBlob: string;
  /** The form the index line's OLD named the file in; the result is hashed the same way. */
  form: BlobForm;
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
  const shown = numberEvidence(patch, evidence.blobNow, evidence.crlf);
  if (shown.kind === "none") return refuse(inserted[0]!, shown.why);
  const places = headerPlaces(hunks, inserted, lineCount);
  if (!(places instanceof Map)) return refuse(places.hunk, places.why);
  return succeed({ insertAt: places, newBlob: shown.newBlob, form: shown.form, inserted, hunks });
}

/** The refusal when the result is not the blob the diff's `index` line names, else undefined. */
export function checkResultBlob(plan: NumberedPlan | undefined, result: string): Outcome<never> | undefined {
  if (plan === undefined) return undefined;
  const got = blobOf(result, plan.form);
  if (namesBlob(plan.newBlob, got)) return undefined;
  const { code, message, suggestions } = unnumberedInsertion(
    plan.hunks,
    plan.inserted[0]!,
    `placed at the header lines, the result's blob is ${got.slice(0, 12)}, and the diff's \`index\` line says ${plan.newBlob}, so its numbers do not describe this file`,
  );
  return fail(code, message, suggestions);
}
