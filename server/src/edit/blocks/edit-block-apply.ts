// Applies one edit block to a file's text.
//
// The whole EDIT section must equal contiguous lines of the file, exactly and
// exactly once; those lines are replaced by the REPL section. The common prefix
// of the two sections (the anchor) stays put, so an EDIT section of anchor lines
// only inserts after them, and lines missing from the REPL section are deleted.
// Lines are compared without their terminators; the result keeps the file's own
// line endings and its final-newline state.
import { isCreateBlock, type EditBlock } from "./edit-block-parser.js";
import { fail, succeed, type Failure, type Outcome } from "../../shared/outcome.js";
import { keepingBom, withoutBom } from "../shared/shape.js";
import { spliceLf } from "./lf-splice.js";
import { dominantEol, splitLines, type Eol } from "../shared/text.js";

export interface BlockApplied {
  content: string;
  /** 1-based line of the result where the change starts (the line after the anchor). */
  anchorLine: number;
}

export function applyEditBlock(content: string, block: EditBlock): Outcome<BlockApplied> {
  const clean = { ...block, old: withoutBom(block.old), new: withoutBom(block.new) };
  return keepingBom(content, (body) => applyToBody(body, clean));
}

function applyToBody(content: string, block: EditBlock): Outcome<BlockApplied> {
  const path = block.file_path;
  if (isCreateBlock(block)) {
    if (content !== "") {
      return fail(
        "invalid_argument",
        `File exists: ${path} already has content, and a block with an empty EDIT section only creates files. ` +
          "Put the lines to change, copied from the file, in the EDIT section.",
        [
          "Copy the lines to change from the file into the EDIT section and repeat them, changed, in the REPL section.",
        ],
      );
    }
    return succeed({ content: block.new, anchorLine: 1 });
  }

  const oldLines = splitLines(block.old).lines;
  const newLines = splitLines(block.new).lines;
  if (!content.includes("\r") && !sameLines(oldLines, newLines)) {
    const spliced = spliceLf(content, oldLines, newLines);
    if (spliced.kind === "many") return ambiguous(spliced.startLines, path);
    if (spliced.kind === "one") {
      const prefix = commonPrefix(oldLines, newLines);
      const lastLine = spliced.startLine + newLines.length + (spliced.linesAfter ? 1 : 0);
      return succeed({
        content: spliced.content,
        anchorLine: Math.max(1, Math.min(spliced.startLine + prefix + 1, lastLine)),
      });
    }
  }
  const file = splitLines(content);

  const starts = findAll(file.lines, oldLines);
  if (starts.length === 0) return notFound(file.lines, oldLines, path);
  if (starts.length > 1) return ambiguous(starts, path);
  const start = starts[0]!;

  if (sameLines(oldLines, newLines)) {
    return fail(
      "no_change",
      `No change: the EDIT and REPL sections of the block for ${path} are identical. ` +
        "Write the lines as they should become in the REPL section.",
      ["Put the changed lines in the REPL section."],
    );
  }

  // Unchanged lines at either end keep their own terminators; changed ones get the file's usual one.
  const prefix = commonPrefix(oldLines, newLines);
  const suffix = commonSuffix(oldLines, newLines, prefix);
  const eol = dominantEol(content);
  const end = start + oldLines.length;
  const newEols = newLines.map((_, j): Eol => {
    if (j < prefix) return file.eols[start + j]!;
    if (j >= newLines.length - suffix) return file.eols[end - (newLines.length - j)]!;
    return eol;
  });
  const lines = file.lines.slice(0, start).concat(newLines, file.lines.slice(end));
  const eols = file.eols.slice(0, start).concat(newEols, file.eols.slice(end));
  // Only the last line may lack a terminator, and only if the file's last line did.
  for (let i = 0; i < eols.length - 1; i++) if (eols[i] === "") eols[i] = eol;
  const endsWithNewline = file.eols[file.eols.length - 1] !== "";
  if (eols.length > 0) eols[eols.length - 1] = endsWithNewline ? eols[eols.length - 1] || eol : "";

  let out = "";
  for (let i = 0; i < lines.length; i++) out += lines[i]! + eols[i]!;
  const anchorLine = Math.max(1, Math.min(start + prefix + 1, lines.length));
  return succeed({ content: out, anchorLine });
}

/** Every index where `section` occurs as contiguous lines of `lines`, overlapping ones included. */
function findAll(lines: readonly string[], section: readonly string[]): number[] {
  const found: number[] = [];
  if (section.length === 0) return found;
  const last = lines.length - section.length;
  for (let i = 0; i <= last; i++) {
    if (lines[i] !== section[0]) continue;
    let j = 1;
    while (j < section.length && lines[i + j] === section[j]) j++;
    if (j === section.length) found.push(i);
  }
  return found;
}

function sameLines(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((line, i) => line === b[i]);
}

function commonPrefix(a: readonly string[], b: readonly string[]): number {
  let n = 0;
  while (n < a.length && n < b.length && a[n] === b[n]) n++;
  return n;
}

function commonSuffix(a: readonly string[], b: readonly string[], prefix: number): number {
  let n = 0;
  const room = Math.min(a.length, b.length) - prefix;
  while (n < room && a[a.length - 1 - n] === b[b.length - 1 - n]) n++;
  return n;
}

function ambiguous(starts: number[], path: string): Outcome<never> {
  const shown = starts.slice(0, 10).map((s) => s + 1);
  const more = starts.length > shown.length ? `, … (${starts.length - shown.length} more)` : "";
  return fail(
    "ambiguous",
    `Ambiguous: the EDIT section for ${path} matches ${starts.length} places, at lines ${shown.join(", ")}${more}. ` +
      "Add context lines (the same ones at the start of both sections, or at their end) until it matches one place only.",
    ["Add unchanged lines around the change to both sections so the EDIT section is unique in the file."],
  );
}

// ---------------------------------------------------------------------------
// Why the EDIT section was not found: whitespace, a near line, or nothing alike.

const RETRY =
  "Copy the lines from the file exactly (re-read it if it may have changed) and send the block again.";

function notFound(fileLines: readonly string[], section: readonly string[], path: string): Outcome<never> {
  return { ok: false, error: diagnoseMiss(fileLines, section, path) };
}

function diagnoseMiss(fileLines: readonly string[], section: readonly string[], path: string): Failure {
  const failure = (message: string, suggestion: string): Failure => ({
    code: "not_found",
    message,
    suggestions: [suggestion],
  });
  if (fileLines.length === 0) {
    return failure(
      `Anchor not found: ${path} is empty, so the EDIT section cannot match. ` +
        "To give the empty file its content, send a block with an empty EDIT section.",
      "Leave the EDIT section empty and put the whole content in the REPL section.",
    );
  }

  const squeeze = (s: string) => s.replace(/\s+/g, "");
  const loose = findAll(fileLines.map(squeeze), section.map(squeeze));
  if (loose.length === 1) {
    const start = loose[0]!;
    const differing = section.flatMap((s, j) => (s === fileLines[start + j] ? [] : [j]));
    const j = differing[0]!;
    const at = start + j + 1;
    const more = differing.length > 1 ? ` ${differing.length - 1} more line(s) differ the same way.` : "";
    return failure(
      `Whitespace mismatch: the EDIT section for ${path} matches ${span(start, section.length)} only ` +
        `when whitespace is ignored. At line ${at}, ${whitespaceDifference(fileLines[start + j]!, section[j]!)} ` +
        `(file: ${show(fileLines[start + j]!)}, EDIT: ${show(section[j]!)}).${more} ` +
        "Copy the lines from the file with their exact indentation and trailing whitespace, then send the block again.",
      `Use the file's exact whitespace on line ${at}.`,
    );
  }

  // How far the section gets before it departs from the file, and where.
  let matched = 0;
  let alignedAt: number[] = [];
  for (let i = 0; i < fileLines.length; i++) {
    let k = 0;
    while (k < section.length && i + k < fileLines.length && fileLines[i + k] === section[k]) k++;
    if (k > matched) [matched, alignedAt] = [k, [i]];
    else if (k === matched && k > 0) alignedAt.push(i);
  }
  const target = section[matched]!;
  const head = matched === 1 ? "Its first line matches" : `Its first ${matched} lines match`;
  const where =
    matched === 0
      ? ""
      : alignedAt.length === 1
        ? `${head} ${span(alignedAt[0]!, matched)}, then it departs from the file. `
        : `${head} in ${alignedAt.length} places, then it departs from the file. `;
  const ordinal = `line ${matched + 1} of the EDIT section (${show(target)})`;

  const near =
    target.trim() === ""
      ? undefined
      : nearestLine(
          fileLines,
          target,
          alignedAt.map((i) => i + matched),
        );
  if (near !== undefined) {
    return failure(
      `Near match: the EDIT section for ${path} is not in the file. ${where}` +
        `The file line most like ${ordinal} is line ${near + 1}: ${show(fileLines[near]!)}. ${RETRY}`,
      `Compare the EDIT section with line ${near + 1} of the file and copy it exactly.`,
    );
  }
  if (matched > 0 && alignedAt.length === 1) {
    const next = alignedAt[0]! + matched;
    const there =
      next < fileLines.length ? `line ${next + 1} is ${show(fileLines[next]!)}` : "the file ends there";
    return failure(
      `Near match: the EDIT section for ${path} is not in the file. ${where}` +
        `Nothing in the file resembles ${ordinal}; ${there}. ${RETRY}`,
      `Re-read ${path} around line ${next + 1} and copy the lines exactly.`,
    );
  }
  return failure(
    `Anchor not found: no place in ${path} matches the EDIT section, and no line resembles ${ordinal}. ${where}` +
      `Re-read the file and copy the EDIT section's lines from it exactly, then send the block again.`,
    `Re-read ${path} and copy the lines to change from it.`,
  );
}

function whitespaceDifference(fileLine: string, sectionLine: string): string {
  if (fileLine.trim() === "" && sectionLine.trim() === "") {
    return "the blank line holds different whitespace (trailing whitespace)";
  }
  const lead = (s: string) => /^\s*/.exec(s)![0];
  const fileLead = lead(fileLine);
  const sectionLead = lead(sectionLine);
  if (fileLead !== sectionLead) {
    const fileTabs = fileLead.includes("\t");
    if (fileTabs !== sectionLead.includes("\t")) {
      return fileTabs
        ? "the file indents with tabs where the EDIT section uses spaces"
        : "the file indents with spaces where the EDIT section uses tabs";
    }
    return `the indentation differs: ${fileLead.length} character(s) in the file, ${sectionLead.length} in the EDIT section`;
  }
  if (fileLine.trimEnd() !== sectionLine.trimEnd()) return "the whitespace inside the line differs";
  const fileTrail = fileLine.length - fileLine.trimEnd().length;
  const sectionTrail = sectionLine.length - sectionLine.trimEnd().length;
  if (fileTrail > sectionTrail) return "the file has trailing whitespace the EDIT section lacks";
  if (sectionTrail > fileTrail) return "the EDIT section has trailing whitespace the file lacks";
  return "the trailing whitespace differs";
}

const SIMILAR_ENOUGH = 0.5;
const COMPARED_CHARS = 2000;

/** Index of the file line most like `target` (ties: nearest to a preferred index, then first), if any is close. */
function nearestLine(fileLines: readonly string[], target: string, preferred: number[]): number | undefined {
  const wanted = new PairCounts(target);
  let best: number | undefined;
  let bestScore = SIMILAR_ENOUGH;
  let bestDistance = Infinity;
  for (let i = 0; i < fileLines.length; i++) {
    const score = wanted.similarity(fileLines[i]!, bestScore);
    if (score < bestScore) continue;
    let distance = preferred.length === 0 ? 0 : Infinity;
    for (const p of preferred) distance = Math.min(distance, Math.abs(p - i));
    if (score > bestScore || best === undefined || distance < bestDistance) {
      [best, bestScore, bestDistance] = [i, score, distance];
    }
  }
  return best;
}

/** A line's character pairs, for Sørensen–Dice similarity with other lines. */
class PairCounts {
  /** Pair → slot in `have`/`taken`. */
  private readonly slots = new Map<number, number>();
  private readonly have: number[] = [];
  private readonly taken: number[] = [];
  private readonly stamp: number[] = [];
  private round = 0;
  private readonly total: number;

  constructor(line: string) {
    const s = comparable(line);
    for (let i = 0; i + 1 < s.length; i++) {
      const pair = pairAt(s, i);
      const slot = this.slots.get(pair);
      if (slot === undefined) {
        this.slots.set(pair, this.have.length);
        this.have.push(1);
        this.taken.push(0);
        this.stamp.push(0);
      } else this.have[slot]!++;
    }
    this.total = Math.max(0, s.length - 1);
  }

  /** Similarity in [0, 1]; 0 early for a line too different in length to reach `floor`. */
  similarity(line: string, floor: number): number {
    const s = comparable(line);
    const total = s.length - 1;
    if (this.total === 0 || total <= 0) return 0;
    if ((2 * Math.min(total, this.total)) / (total + this.total) < floor) return 0;
    const round = ++this.round;
    let shared = 0;
    for (let i = 0; i < total; i++) {
      const slot = this.slots.get(pairAt(s, i));
      if (slot === undefined) continue;
      if (this.stamp[slot] !== round) [this.stamp[slot], this.taken[slot]] = [round, 0];
      if (this.taken[slot]! < this.have[slot]!) {
        this.taken[slot]!++;
        shared++;
      }
    }
    return (2 * shared) / (total + this.total);
  }
}

function comparable(line: string): string {
  return line.trim().replace(/\s+/g, " ").slice(0, COMPARED_CHARS);
}

function pairAt(s: string, i: number): number {
  return s.charCodeAt(i) * 0x10000 + s.charCodeAt(i + 1);
}

/** `line 7` or `lines 7-9`, for `count` lines from 0-based `start`. */
function span(start: number, count: number): string {
  return count === 1 ? `line ${start + 1}` : `lines ${start + 1}-${start + count}`;
}

function show(line: string): string {
  const clipped = line.length > 120 ? line.slice(0, 117) + "..." : line;
  return JSON.stringify(clipped);
}
