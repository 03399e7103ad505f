// The two line-based tiers. Both compare old_string line by line with the file,
// so a match always covers exactly as many lines as old_string has:
//  - flexible: whole lines, equal once trimmed and inner whitespace collapsed;
//  - token: equal token sequences whatever the spacing, the first line may be a
//    suffix of its file line and the last a prefix (as an exact match would).
// Candidates come from an index probe (a run of old_string that must appear
// verbatim in any match), so only a few file lines are ever normalised.
import { diffArrays } from "diff";
import {
  describeIndent,
  detectIndentation,
  frameOf,
  readAddedLines,
  type Indentation,
  type LineOp,
} from "../shared/indentation.js";
import { alike, foldWhitespace } from "../shared/line-index.js";
import { fail, succeed, type Outcome } from "../../shared/outcome.js";
import { countUpTo, type NormalizedText, type Region } from "./replace-text.js";

function isBlank(line: string): boolean {
  return line.trim() === "";
}

/** Old or new text as lines, a whitespace-only first or last segment around a line break reduced to "". */
function toLines(text: string): string[] {
  const lines = text.split("\n");
  if (lines.length > 1) {
    if (isBlank(lines[0]!)) lines[0] = "";
    if (isBlank(lines[lines.length - 1]!)) lines[lines.length - 1] = "";
  }
  return lines;
}

/** Lines with a leading and trailing empty entry taken off; they stand for line breaks, not blank lines. */
function peelBreaks(lines: string[]): { body: string[]; before: boolean; after: boolean } {
  let body = lines;
  const before = body.length > 1 && body[0] === "";
  if (before) body = body.slice(1);
  const after = body.length > 1 && body[body.length - 1] === "";
  if (after) body = body.slice(0, -1);
  return { body, before, after };
}

function indentWidth(line: string): number {
  return /^[ \t]*/.exec(line)![0].length;
}

function isWordCode(code: number): boolean {
  return (
    (code >= 48 && code <= 57) ||
    (code >= 65 && code <= 90) ||
    (code >= 97 && code <= 122) ||
    code === 95 /* _ */ ||
    code === 36 /* $ */ ||
    (code >= 128 && !isSpaceCode(code))
  );
}

function isSpaceCode(code: number): boolean {
  if (code === 32 || (code >= 9 && code <= 13)) return true;
  return code >= 128 && /\s/.test(String.fromCharCode(code));
}

interface Squeezed {
  /** Tokens with all whitespace removed, except one space between two word characters. */
  text: string;
  /** Column in the line of every character of `text`. */
  cols: number[];
}

function squeeze(line: string): Squeezed {
  let text = "";
  const cols: number[] = [];
  let gap = -1;
  let lastWord = false;
  for (let i = 0; i < line.length; i++) {
    const code = line.charCodeAt(i);
    if (isSpaceCode(code)) {
      if (text.length > 0 && gap < 0) gap = i;
      continue;
    }
    const word = isWordCode(code);
    if (gap >= 0 && lastWord && word) {
      text += " ";
      cols.push(gap);
    }
    gap = -1;
    text += line[i];
    cols.push(i);
    lastWord = word;
  }
  return { text, cols };
}

/** A token boundary at `at`: not inside a run of word characters. */
function isBoundary(text: string, at: number): boolean {
  return (
    at <= 0 || at >= text.length || !(isWordCode(text.charCodeAt(at - 1)) && isWordCode(text.charCodeAt(at)))
  );
}

const PROBES_TRIED = 8;
/** Probes are counted no further than this: past it, any probe leaves many candidates. */
const PROBE_COUNT_CAP = 64;

/**
 * Lines where a match could start: the lines holding the probe, shifted by the
 * probe's line in old_string. The probe is the rarest in the file of the longest
 * runs `runs` yields (runs any match must contain verbatim). Every line when
 * there is no probe.
 */
function candidateStarts(
  doc: NormalizedText,
  body: readonly string[],
  runs: (line: string) => string[],
): number[] {
  const firstLine = new Map<string, number>();
  body.forEach((line, j) => {
    for (const run of runs(line)) if (run !== "" && !firstLine.has(run)) firstLine.set(run, j);
  });
  const ranked = [...firstLine].sort((a, b) => b[0].length - a[0].length).slice(0, PROBES_TRIED);
  let probe = ranked[0];
  let fewest = PROBE_COUNT_CAP;
  for (const entry of ranked) {
    if (fewest <= 1) break; // one candidate is as cheap as it gets
    const count = countUpTo(doc.text, entry[0], fewest);
    if (count < fewest) {
      probe = entry;
      fewest = count;
    }
  }
  const starts: number[] = [];
  if (probe === undefined) {
    for (let i = 0; i < doc.lines.length; i++) starts.push(i);
    return starts;
  }
  const [text, probeLine] = probe;
  let lastLine = -1;
  for (let at = doc.text.indexOf(text); at !== -1; at = doc.text.indexOf(text, at + 1)) {
    const line = doc.lineAt(at);
    if (line === lastLine) continue;
    lastLine = line;
    if (line - probeLine >= 0) starts.push(line - probeLine);
  }
  return starts;
}

/** Memoises a per-line computation over the file's lines. */
function perLine<T>(doc: NormalizedText, compute: (line: string) => T): (index: number) => T {
  const cache: (T | undefined)[] = new Array<T | undefined>(doc.lines.length);
  return (index) => (cache[index] ??= compute(doc.lines[index]!));
}

/** The file's indentation, detected once per text. */
const indentations = new WeakMap<NormalizedText, Indentation>();

function fileIndentation(doc: NormalizedText): () => Indentation {
  return () => {
    let found = indentations.get(doc);
    if (!found) indentations.set(doc, (found = detectIndentation(doc.lines)));
    return found;
  };
}

interface Aligned {
  old?: number;
  new?: number;
}

/**
 * old_string's lines against new_string's, equal modulo whitespace (a drifted
 * frame still lines up), preferring an exact twin where the diff took a loose
 * one: `}` pairs with `}`, not with the `    }` of a block the edit adds before it.
 */
function alignLines(oldLines: readonly string[], newLines: readonly string[]): Aligned[] {
  const out: Aligned[] = [];
  let o = 0;
  let n = 0;
  for (const change of diffArrays([...oldLines], [...newLines], {
    comparator: (a, b) => foldWhitespace(a) === foldWhitespace(b),
  })) {
    for (let k = 0; k < change.value.length; k++) {
      if (change.added) out.push({ new: n++ });
      else if (change.removed) out.push({ old: o++ });
      else out.push({ old: o++, new: n++ });
    }
  }
  for (let i = 0; i < out.length; i++) {
    const e = out[i]!;
    if (e.old === undefined || e.new === undefined || oldLines[e.old] === newLines[e.new]) continue;
    for (let k = i + 1; k < out.length && out[k]!.old === undefined; k++) {
      if (newLines[out[k]!.new!] !== oldLines[e.old]) continue;
      out[k] = { old: e.old, new: out[k]!.new! };
      out[i] = { new: e.new };
      break;
    }
  }
  return out;
}

/**
 * new_string's lines as they go into the file where old_string's lines met
 * file lines `firstLine`…: unchanged lines as the file has them, the others as
 * written or in the file's frame, by the shared evidence rule (shared/indentation.ts).
 * `fileOld` overrides the file text of an old line (a token match that starts mid-line).
 */
function readNewLines(
  doc: NormalizedText,
  oldLines: readonly string[],
  newLines: readonly string[],
  firstLine: number,
  fileOld: (j: number) => string,
): Outcome<string[]> {
  const ops: LineOp[] = alignLines(oldLines, newLines).map((e) => {
    if (e.old === undefined) return { op: "+", text: newLines[e.new!]! };
    if (e.new === undefined) return { op: "-", text: oldLines[e.old]!, fileText: fileOld(e.old) };
    return { op: " ", text: oldLines[e.old]!, fileText: fileOld(e.old), newText: newLines[e.new]! };
  });
  const frame = frameOf(ops, "replace", alike);
  const answer = readAddedLines({ ...frame, fileIndentation: fileIndentation(doc) });
  if (answer.ok) return succeed(answer.lines);
  const c = answer.conflict;
  const line = JSON.stringify(c.literal.trim().slice(0, 80));
  const why =
    c.reindented === undefined
      ? `old_string's lines are indented differently from the file's (line ${firstLine + 1} on), and nothing maps this line's indentation (${describeIndent(c.literal)}) into the file's`
      : `as written it has ${describeIndent(c.literal)}; shifted the way old_string's lines differ from the file's, it would have ${describeIndent(c.reindented)}, and nothing in the edit says which is meant`;
  return fail(
    "invalid_argument",
    `Edit Failed: the indentation of new_string's line ${line} is ambiguous: ${why}. The file was not changed.`,
    [
      "Copy old_string from the file with its exact indentation, write new_string in the file's indentation, and retry.",
    ],
  );
}

export function flexibleRegions(doc: NormalizedText, oldText: string, newText: string): Region[] {
  const old = peelBreaks(toLines(oldText));
  const replacement = peelBreaks(toLines(newText));
  if (old.body.every(isBlank)) return [];
  const keys = old.body.map(foldWhitespace);
  const key = perLine(doc, foldWhitespace);
  const k = keys.length;
  const starts = doc.lineStarts;
  const regions: Region[] = [];
  for (const i of candidateStarts(doc, old.body, (line) => line.split(/\s+/))) {
    if (i + k > doc.lineCount || (old.before && i === 0)) continue;
    if (!keys.every((want, j) => key(i + j) === want)) continue;
    // A final line break in old_string also matches the end of a file that lacks one.
    const end = old.after
      ? (starts[i + k] ?? doc.text.length)
      : starts[i + k - 1]! + doc.lines[i + k - 1]!.length;
    regions.push({
      start: old.before ? starts[i]! - 1 : starts[i]!,
      end,
      line: i,
      replacement: () => {
        const body = readNewLines(doc, old.body, replacement.body, i, (j) => doc.lines[i + j] ?? "");
        if (!body.ok) return body;
        return succeed(
          (replacement.before ? "\n" : "") + body.value.join("\n") + (replacement.after ? "\n" : ""),
        );
      },
    });
  }
  return regions;
}

export function tokenRegions(doc: NormalizedText, oldText: string, newText: string): Region[] {
  const oldLines = toLines(oldText);
  const newLines = toLines(newText);
  const tokens = oldLines.map((line) => squeeze(line).text);
  if (tokens.every((t) => t === "")) return [];
  const file = perLine(doc, squeeze);
  const k = oldLines.length;
  const first = tokens[0]!;
  const last = tokens[k - 1]!;
  const starts = doc.lineStarts;
  const regions: Region[] = [];

  const push = (i: number, startCol: number, end: number): void => {
    // A match from the first token of its line replaces the line's indentation too.
    const wholeLine = first !== "" && startCol === indentWidth(doc.lines[i]!);
    regions.push({
      start: starts[i]! + (wholeLine ? 0 : startCol),
      end,
      line: i,
      replacement: () => {
        // Mid-line, the first old line met a line's tail: it says nothing of indentation.
        const read = readNewLines(doc, oldLines, newLines, i, (j) =>
          j === 0 && !wholeLine ? oldLines[0]! : (doc.lines[i + j] ?? ""),
        );
        if (!read.ok) return read;
        const [head, ...rest] = read.value as [string, ...string[]];
        // Mid-line, the first line goes in as written, less the indentation old_string's first line had.
        const lead = /^\s*/.exec(oldLines[0]!)![0];
        const written = newLines[0]!;
        const first = wholeLine
          ? head
          : written.startsWith(lead)
            ? written.slice(lead.length)
            : written.trimStart();
        return succeed([first, ...rest].join("\n"));
      },
    });
  };

  // Words survive any change of spacing; so does each punctuation mark, the probe of last resort.
  const words = (line: string): string[] => line.match(/[\p{L}\p{N}_$]+|[^\s\p{L}\p{N}_$]/gu) ?? [];
  for (const i of candidateStarts(doc, oldLines, words)) {
    const head = file(i);
    if (k === 1) {
      // Within one line: every occurrence, overlapping ones included, on token boundaries.
      for (let at = head.text.indexOf(first); at !== -1; at = head.text.indexOf(first, at + 1)) {
        if (!isBoundary(head.text, at) || !isBoundary(head.text, at + first.length)) continue;
        push(i, head.cols[at]!, starts[i]! + head.cols[at + first.length - 1]! + 1);
      }
      continue;
    }
    const startAt = head.text.length - first.length;
    if (!head.text.endsWith(first) || !isBoundary(head.text, startAt)) continue;
    let middle = true;
    for (let j = 1; j < k - 1 && middle; j++)
      middle = i + j < doc.lineCount && file(i + j).text === tokens[j];
    if (!middle) continue;
    const startCol = first === "" ? doc.lines[i]!.length : head.cols[startAt]!;
    const lastLine = i + k - 1;
    if (lastLine >= doc.lines.length) {
      // Only a final line break of old_string may run past the end of a file that lacks one.
      if (last === "" && lastLine === doc.lines.length) push(i, startCol, doc.text.length);
      continue;
    }
    const tail = file(lastLine);
    if (!tail.text.startsWith(last) || !isBoundary(tail.text, last.length)) continue;
    push(i, startCol, starts[lastLine]! + (last === "" ? 0 : tail.cols[last.length - 1]! + 1));
  }
  return regions;
}
