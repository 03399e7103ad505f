// The old_string/new_string replacement engine behind the `edit` tool. Pure:
// text and request in, Outcome out.
//
// Tiers, loosest last: exact → whitespace-flexible (whole lines, re-indented) →
// token-tolerant (spacing between tokens ignored, line by line). A tier that
// finds the expected number of non-overlapping matches wins; one that finds more
// (or overlapping ones) makes the edit ambiguous. Matching runs on text with `\n`
// line endings; replacements are written with the file's own line ending and
// every byte outside the matches is kept.
import { fail, succeed, type Outcome } from "../../shared/outcome.js";
import { keepingBom, withoutBom } from "../shared/shape.js";
import {
  describeNearest,
  findNewPlaceholder,
  nearestLine,
  showLine,
  unescapeOverEscaped,
} from "./replace-hints.js";
import { flexibleRegions, tokenRegions } from "./replace-lines.js";
import { countUpTo, exactRegions, NormalizedText, normalizeEols, type Region } from "./replace-text.js";

export type ReplaceStrategy = "exact" | "flexible" | "token";

export interface ReplaceRequest {
  old_string: string;
  new_string: string;
  /** How many places old_string must match; all of them are replaced. Default 1. */
  expected_replacements?: number;
}

export interface ReplaceResult {
  /** The whole new text. */
  content: string;
  /** The tier that matched. */
  strategy: ReplaceStrategy;
  /** How many places were replaced. */
  occurrences: number;
  /** True when over-escaped input (`\n`, `\"` written literally) had to be repaired. */
  unescaped: boolean;
}

interface Tier {
  strategy: ReplaceStrategy;
  label: string;
  find: (doc: NormalizedText, oldText: string, newText: string) => Region[];
}

const TIERS: readonly Tier[] = [
  { strategy: "exact", label: "exact", find: exactRegions },
  { strategy: "flexible", label: "whitespace-flexible", find: flexibleRegions },
  { strategy: "token", label: "token-tolerant", find: tokenRegions },
];

type Search =
  | { kind: "found"; tier: Tier; regions: Region[] }
  | { kind: "ambiguous"; tier: Tier; regions: Region[]; overlapping: boolean }
  | { kind: "none" };

function overlaps(regions: readonly Region[]): boolean {
  for (let i = 1; i < regions.length; i++) if (regions[i]!.start < regions[i - 1]!.end) return true;
  return false;
}

/**
 * The first tier with exactly `expected` matches wins. More matches than
 * expected stop the search (looser tiers only find more). Fewer are remembered
 * in case a looser tier finds them all.
 */
function search(doc: NormalizedText, oldText: string, newText: string, expected: number): Search {
  let fewer: { tier: Tier; regions: Region[] } | undefined;
  for (const tier of TIERS) {
    const regions = tier.find(doc, oldText, newText);
    if (regions.length === 0) continue;
    if (regions.length === expected) {
      if (overlaps(regions)) return { kind: "ambiguous", tier, regions, overlapping: true };
      return { kind: "found", tier, regions };
    }
    if (regions.length > expected) return { kind: "ambiguous", tier, regions, overlapping: false };
    if (fewer === undefined || regions.length > fewer.regions.length) fewer = { tier, regions };
  }
  return fewer === undefined ? { kind: "none" } : { kind: "ambiguous", ...fewer, overlapping: false };
}

const MAX_LINES_LISTED = 20;

/** "lines 3, 7 (2 matches) and 12": the 1-based lines of the matches. */
function listLines(regions: readonly Region[]): string {
  const counts = new Map<number, number>();
  for (const region of regions) counts.set(region.line, (counts.get(region.line) ?? 0) + 1);
  const items = [...counts].map(([line, count]) =>
    count > 1 ? `${line + 1} (${count} matches)` : `${line + 1}`,
  );
  const shown = items.slice(0, MAX_LINES_LISTED);
  const rest = items.length - shown.length;
  const label = items.length > 1 ? "lines" : "line";
  if (rest > 0) return `${label} ${shown.join(", ")} and ${rest} more`;
  if (shown.length === 1) return `${label} ${shown[0]}`;
  return `${label} ${shown.slice(0, -1).join(", ")} and ${shown[shown.length - 1]}`;
}

function ambiguous(found: Extract<Search, { kind: "ambiguous" }>, expected: number): Outcome<ReplaceResult> {
  const n = found.regions.length;
  const where = `${found.tier.label} match, ${listLines(found.regions)}`;
  const widen =
    "Add surrounding lines to old_string (copied exactly from the file) so that it matches only the intended place";
  if (found.overlapping) {
    return fail(
      "ambiguous",
      `Edit Failed: old_string matches ${n} places (${where}) and the matches overlap, so replacing all of them ` +
        `is not well defined. ${widen}, or make one edit per place.`,
      [`${widen}.`, "Or make one edit per place."],
    );
  }
  const fix =
    n > expected
      ? `${widen}, or set expected_replacements to ${n} to replace every match.`
      : `Check that every place you mean to change holds old_string, or set expected_replacements to ${n}.`;
  return fail(
    "ambiguous",
    `Edit Failed: old_string matches ${n} place${n > 1 ? "s" : ""} (${where}) but expected_replacements is ${expected}. ${fix}`,
    [
      n > expected ? `${widen}.` : "Re-read the file to see which places hold old_string.",
      `Or set expected_replacements to ${n}.`,
    ],
  );
}

function finish(
  doc: NormalizedText,
  found: Extract<Search, { kind: "found" }>,
  unescaped: boolean,
): Outcome<ReplaceResult> {
  const replacements: string[] = [];
  for (const region of found.regions) {
    const r = region.replacement();
    if (!r.ok) return r;
    replacements.push(r.value);
  }
  const content = doc.splice(found.regions, replacements);
  if (content === doc.original) {
    return fail(
      "no_change",
      "No Change: the replacement leaves the file exactly as it is; the text of new_string is already there.",
      ["Nothing to do for this edit; re-read the file if you expected a difference."],
    );
  }
  return succeed({ content, strategy: found.tier.strategy, occurrences: found.regions.length, unescaped });
}

function placeholderFailure(placeholder: string): Outcome<ReplaceResult> {
  return fail(
    "invalid_argument",
    `Edit Failed: new_string contains the placeholder line ${showLine(placeholder)}, which stands for omitted code ` +
      "and is in neither old_string nor the file. new_string replaces old_string word for word, so the full " +
      "replacement text must be written out.",
    [
      "Write every line of the replacement into new_string, or shrink old_string to just the lines that change.",
    ],
  );
}

/**
 * The 0-based line where new_string provably stands in for the missing old_string:
 * it occurs exactly once, on whole lines (indentation aside), and old_string's
 * closest line is among them. Anything less is not proof.
 */
function provenApplied(doc: NormalizedText, newText: string, oldText: string): number | undefined {
  const wanted = newText.replace(/^\n+|\n+$/g, "");
  if (wanted.trim() === "" || countUpTo(doc.text, wanted, 2) !== 1) return undefined;
  const at = doc.text.indexOf(wanted);
  const first = doc.lineAt(at);
  const last = doc.lineAt(at + wanted.length - 1);
  const before = doc.text.slice(doc.lineStarts[first]!, at);
  const lastEnd = doc.lineStarts[last]! + doc.lines[last]!.length;
  const after = doc.text.slice(at + wanted.length, lastEnd);
  if (before.trim() !== "" || after.trim() !== "") return undefined;
  const nearest = nearestLine(doc, oldText);
  return nearest !== undefined && nearest >= first && nearest <= last ? first : undefined;
}

export function replaceInText(content: string, request: ReplaceRequest): Outcome<ReplaceResult> {
  const clean = {
    ...request,
    old_string: withoutBom(request.old_string),
    new_string: withoutBom(request.new_string),
  };
  return keepingBom(content, (body) => replaceInBody(body, clean));
}

function replaceInBody(content: string, request: ReplaceRequest): Outcome<ReplaceResult> {
  const { old_string: oldString, new_string: newString } = request;
  const expected = request.expected_replacements ?? 1;
  if (!Number.isInteger(expected) || expected < 1) {
    return fail(
      "invalid_argument",
      `Edit Failed: expected_replacements must be a whole number of at least 1, not ${expected}.`,
      ["Leave expected_replacements out to replace exactly one place."],
    );
  }
  if (oldString === "") {
    if (content === "" && newString !== "") {
      return succeed({ content: newString, strategy: "exact", occurrences: 1, unescaped: false });
    }
    if (content === "") return fail("no_change", "No Change: the file is empty and new_string is empty too.");
    return fail(
      "invalid_argument",
      "Edit Failed: old_string is empty. An edit replaces text that is already in the file; creating a file or " +
        "overwriting a whole file is the job of write_file.",
      [
        "To insert text, put the neighbouring lines in old_string and repeat them, with the new lines, in new_string.",
        "To write a whole file, use write_file.",
      ],
    );
  }
  if (oldString === newString) {
    return fail(
      "no_change",
      "No Change: old_string and new_string are identical, so the file already has the text.",
      ["Nothing to do for this edit."],
    );
  }

  const doc = new NormalizedText(content);
  const oldText = normalizeEols(oldString);
  const newText = normalizeEols(newString);
  const placeholder = findNewPlaceholder(newText, oldText, doc);
  if (placeholder !== undefined) return placeholderFailure(placeholder);

  const literal = search(doc, oldText, newText, expected);
  if (literal.kind === "found") return finish(doc, literal, false);
  if (literal.kind === "ambiguous") return ambiguous(literal, expected);

  // Nothing matched as given: try reading the strings as over-escaped.
  const oldUnescaped = normalizeEols(unescapeOverEscaped(oldString));
  const newUnescaped = normalizeEols(unescapeOverEscaped(newString));
  const triedUnescape = oldUnescaped !== oldText;
  if (triedUnescape) {
    const repairedPlaceholder = findNewPlaceholder(newUnescaped, oldUnescaped, doc);
    if (repairedPlaceholder !== undefined) return placeholderFailure(repairedPlaceholder);
    const repaired = search(doc, oldUnescaped, newUnescaped, expected);
    if (repaired.kind === "found") return finish(doc, repaired, true);
    if (repaired.kind === "ambiguous") return ambiguous(repaired, expected);
  }

  // Not found: the edit may have been made already, but only a proof says so (a model told "done" stops).
  const meantOld =
    triedUnescape && !oldText.includes("\n") && oldUnescaped.includes("\n") ? oldUnescaped : oldText;
  for (const candidate of triedUnescape ? [newText, newUnescaped] : [newText]) {
    const line = provenApplied(doc, candidate, meantOld);
    if (line === undefined) continue;
    return fail(
      "no_change",
      `No Change: old_string was not found, and new_string is already in the file on whole lines (from line ${line + 1}), ` +
        "where old_string's closest line is: the edit has been made already.",
      ["Re-read the file to confirm its current content before making further edits."],
    );
  }

  const tried = `exact, whitespace-flexible and token-tolerant matching${triedUnescape ? ", also after unescaping" : ""}`;
  // A one-line old_string that unescapes to several lines was surely meant as those lines.
  return fail(
    "not_found",
    `Edit Failed: old_string was not found in the file (tried ${tried}). ${describeNearest(doc, meantOld)}`,
    [
      "Re-read the file with read_file and copy the lines to replace exactly as they are now, indentation included, then retry.",
    ],
  );
}
