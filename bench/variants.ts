// Every file gets one random real edit, its true diff (context 3 and 10), and
// from each true diff the perturbation families, each with the answer a careful
// reader would give: the post-image, or refusal when no answer is determinable.
import { createPatch } from "diff";
import type { CorpusFile } from "./corpus.js";
import { randomEdit, tweakLine } from "./edits.js";
import { fold, indentUnit, joinText, occurrences, splitText, toCrlf } from "./lines.js";
import {
  bareHeaders,
  dropBlankPrefix,
  fencedWithoutFileHeaders,
  hallucinateContext,
  hunkOldSides,
  padContext,
  randomOffset,
  reindent,
  renameFile,
  ruleForUnit,
  shiftHeaders,
  singleHunk,
  wrongCounts,
} from "./perturb.js";
import type { Rng } from "./prng.js";

export const DETERMINABLE_FAMILIES = [
  "exact",
  "line-numbers",
  "line-numbers-random",
  "bare-headers",
  "wrong-counts",
  "no-file-headers",
  "whitespace-context",
  "reindent",
  "crlf-file-lf-diff",
  "hallucinated-context",
  "missing-blank-prefix",
  "duplicated-numbered",
] as const;

export const MUST_REFUSE_FAMILIES = ["stale", "other-file", "duplicated-bare"] as const;

export type Family = (typeof DETERMINABLE_FAMILIES)[number] | (typeof MUST_REFUSE_FAMILIES)[number];

export const CONTEXTS = [3, 10] as const;

export interface Variant {
  family: Family;
  context: number;
  /** Corpus path; also the `filePath` lockstep is told. */
  path: string;
  crlf: boolean;
  content: string;
  diff: string;
  /** The right post-image; undefined when the right answer is refusal. */
  expected: string | undefined;
  note?: string;
}

/** A corpus file with its edit: texts in the file's own line endings, plus the LF originals. */
export interface Subject {
  file: CorpusFile;
  crlf: boolean;
  pre: string;
  post: string;
  lfPre: string;
  lfPost: string;
  /** True diffs by context size, in the file's line endings and in LF. */
  diffs: Map<number, string>;
  lfDiffs: Map<number, string>;
  /** The file's indentation step, when it has a clear one. */
  unit: "\t" | "    " | "  " | undefined;
  /** Edits drawn and thrown away before this one because a hunk's lines fit more than one place. */
  redraws: number;
}

export function trueDiff(path: string, pre: string, post: string, context: number): string {
  return createPatch(path, pre, post, undefined, undefined, { context });
}

/** Every hunk's old side occurs exactly once in the file, modulo whitespace: bare headers still say where. */
function hunksUnique(foldedFile: readonly string[], diff: string): boolean {
  return hunkOldSides(diff).every((h) => occurrences(foldedFile, h.lines.map(fold)).length === 1);
}

/** The file's edit, re-drawn until every hunk's place is determinable from its lines alone. */
export function makeSubject(file: CorpusFile, crlf: boolean, rng: Rng): Subject | undefined {
  const { lines, finalNewline } = splitText(file.content);
  const folded = lines.map(fold);
  const unit = indentUnit(lines);
  for (let attempt = 0; attempt < 40; attempt++) {
    const lfPost = joinText({ lines: randomEdit(lines, rng, unit ?? "  "), finalNewline });
    if (lfPost === file.content) continue;
    const lfDiffs = new Map<number, string>(
      CONTEXTS.map((c) => [c, trueDiff(file.path, file.content, lfPost, c)]),
    );
    if (![...lfDiffs.values()].every((d) => hunksUnique(folded, d))) continue;
    const pre = crlf ? toCrlf(file.content) : file.content;
    const post = crlf ? toCrlf(lfPost) : lfPost;
    const diffs = crlf
      ? new Map<number, string>(CONTEXTS.map((c) => [c, trueDiff(file.path, pre, post, c)]))
      : lfDiffs;
    return { file, crlf, pre, post, lfPre: file.content, lfPost, diffs, lfDiffs, unit, redraws: attempt };
  }
  return undefined;
}

/** Counts of variants a family could not form for a subject (no indentation, no blank context line…). */
export type Skipped = Map<string, number>;

function eolOf(s: Subject): string {
  return s.crlf ? "\r\n" : "\n";
}

/** A line that looks like `line` but occurs nowhere in the file (modulo whitespace). */
function inventLine(foldedSet: ReadonlySet<string>, rng: Rng): (line: string) => string | undefined {
  return (line) => {
    for (let i = 0; i < 5; i++) {
      const out = tweakLine(line, rng);
      if (!foldedSet.has(fold(out))) return out;
    }
    return undefined;
  };
}

export function variantsFor(
  subject: Subject,
  index: number,
  subjects: readonly Subject[],
  rng: Rng,
  skipped: Skipped,
): Variant[] {
  const out: Variant[] = [];
  const skip = (what: string): void => {
    skipped.set(what, (skipped.get(what) ?? 0) + 1);
  };
  const { lines: fileLines } = splitText(subject.lfPre);
  const folded = fileLines.map(fold);
  const foldedSet = new Set(folded);
  for (const context of CONTEXTS) {
    const diff = subject.diffs.get(context)!;
    const base = { context, path: subject.file.path, crlf: subject.crlf };
    const good = (family: Family, d: string, note?: string): void => {
      out.push({
        ...base,
        family,
        content: subject.pre,
        diff: d,
        expected: subject.post,
        ...(note ? { note } : {}),
      });
    };
    good("exact", diff);
    const offset = randomOffset(rng);
    good(
      "line-numbers",
      shiftHeaders(diff, () => offset),
      `offset ${offset}`,
    );
    good(
      "line-numbers-random",
      shiftHeaders(diff, () => randomOffset(rng)),
    );
    good("bare-headers", bareHeaders(diff));
    good("wrong-counts", wrongCounts(diff, rng));
    good("no-file-headers", fencedWithoutFileHeaders(diff, rng));
    const padded = padContext(diff, rng);
    if (padded !== undefined) good("whitespace-context", padded);
    else skip("whitespace-context: no context line");
    const rule = ruleForUnit(subject.unit);
    const re = rule === undefined ? undefined : reindent(diff, rule);
    if (rule === undefined) skip("reindent: file has no clear indentation step");
    else if (re === undefined) skip("reindent: the rule changes nothing in the diff or merges two indents");
    else good("reindent", re, rule);
    out.push({
      ...base,
      family: "crlf-file-lf-diff",
      crlf: true,
      content: toCrlf(subject.lfPre),
      diff: subject.lfDiffs.get(context)!,
      expected: toCrlf(subject.lfPost),
    });

    const hall = hallucinateContext(diff, rng, inventLine(foldedSet, rng));
    if (!hall) skip("hallucinated-context: no context line away from the changes");
    else {
      // Determinable only if the hunk's other lines still fit exactly one place.
      const old = hunkOldSides(diff)[hall.hunk]!.lines.map(fold);
      const fits = occurrencesWithWildcard(folded, old, hall.oldIndex);
      if (fits === 1) good("hallucinated-context", hall.diff);
      else skip("hallucinated-context: hunk not unique without the replaced line");
    }

    const blank = dropBlankPrefix(diff);
    if (blank !== undefined) good("missing-blank-prefix", blank);
    else skip("missing-blank-prefix: no blank context line");

    const stale = staleBase(subject, diff, folded, rng);
    if (stale !== undefined)
      out.push({ ...base, family: "stale", content: stale, diff, expected: undefined });
    else skip("stale: no removed line unique in the file");

    const other = otherFileDiff(subject, index, subjects, context, folded, foldedSet);
    if (other !== undefined)
      out.push({ ...base, family: "other-file", diff: other, content: subject.pre, expected: undefined });
    else skip("other-file: no other diff that misses this file");

    const dup = duplicatedRegion(subject, diff, fileLines, rng);
    if (dup) {
      out.push({
        ...base,
        family: "duplicated-numbered",
        content: dup.content,
        diff: dup.diff,
        expected: dup.expected,
      });
      out.push({
        ...base,
        family: "duplicated-bare",
        content: dup.content,
        diff: bareHeaders(dup.diff),
        expected: undefined,
      });
    } else skip("duplicated-region: every hunk touches the end of the file");
  }
  return out;
}

function occurrencesWithWildcard(
  folded: readonly string[],
  block: readonly string[],
  wildcard: number,
): number {
  let n = 0;
  for (let s = 0; s + block.length <= folded.length; s++) {
    let ok = true;
    for (let i = 0; i < block.length && ok; i++) ok = i === wildcard || folded[s + i] === block[i];
    if (ok) n++;
  }
  return n;
}

/** The file with one of the diff's removed lines edited: the diff was written against an older version. */
function staleBase(subject: Subject, diff: string, folded: readonly string[], rng: Rng): string | undefined {
  const removed = diffRemovedLines(diff);
  const unique = removed.filter((r) => r.trim() !== "" && folded.filter((f) => f === fold(r)).length === 1);
  if (unique.length === 0) return undefined;
  const target = rng.pick(unique);
  const { lines, finalNewline } = splitText(subject.lfPre);
  const at = folded.indexOf(fold(target));
  const edited = lines.slice();
  edited[at] = tweakLine(lines[at]!, rng);
  const text = joinText({ lines: edited, finalNewline });
  return subject.crlf ? toCrlf(text) : text;
}

function diffRemovedLines(diff: string): string[] {
  const out: string[] = [];
  let inHunk = false;
  for (const raw of diff.split("\n")) {
    const l = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    if (l.startsWith("@@")) inHunk = true;
    else if (inHunk && l.startsWith("-")) out.push(l.slice(1));
  }
  return out;
}

/** Another file's true diff, renamed to this file, chosen so that none of its hunks fits here. */
function otherFileDiff(
  subject: Subject,
  index: number,
  subjects: readonly Subject[],
  context: number,
  folded: readonly string[],
  foldedSet: ReadonlySet<string>,
): string | undefined {
  for (let k = 1; k < subjects.length; k++) {
    const other = subjects[(index + k) % subjects.length]!;
    const diff = other.diffs.get(context)!;
    const sides = hunkOldSides(diff);
    const noHunkFits = sides.every((h) => occurrences(folded, h.lines.map(fold)).length === 0);
    const missingRemoved = diffRemovedLines(diff).some((r) => !foldedSet.has(fold(r)));
    if (noHunkFits && missingRemoved) return renameFile(diff, subject.file.path);
  }
  return undefined;
}

/**
 * The file with one hunk's region (its old lines) appended again at the end
 * after a blank line, and that hunk alone with its true line numbers; the
 * right answer is the edit at the original place.
 */
function duplicatedRegion(
  subject: Subject,
  diff: string,
  lines: readonly string[],
  rng: Rng,
): { content: string; diff: string; expected: string } | undefined {
  const sides = hunkOldSides(diff);
  const usable = sides
    .map((h, i) => ({ h, i }))
    .filter(({ h }) => h.oldStart !== undefined && h.oldStart - 1 + h.lines.length < lines.length);
  if (usable.length === 0) return undefined;
  const { h, i } = rng.pick(usable);
  const start = h.oldStart! - 1;
  const region = lines.slice(start, start + h.lines.length);
  const fileLines = [...lines, "", ...region];
  const single = singleHunk(diff, i);
  if (occurrences(fileLines.map(fold), region.map(fold)).length !== 2) return undefined;
  const newSide = hunkNewSide(single);
  const after = [...fileLines.slice(0, start), ...newSide, ...fileLines.slice(start + region.length)];
  const eol = eolOf(subject);
  const join = (ls: readonly string[]): string => ls.join(eol) + eol;
  return { content: join(fileLines), diff: single, expected: join(after) };
}

function hunkNewSide(diff: string): string[] {
  const out: string[] = [];
  let inHunk = false;
  for (const raw of diff.split("\n")) {
    const l = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    if (l.startsWith("@@")) inHunk = true;
    else if (inHunk && (l.startsWith(" ") || l.startsWith("+"))) out.push(l.slice(1));
  }
  return out;
}
