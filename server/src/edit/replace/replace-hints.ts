// What the engine needs beyond matching: spotting placeholder lines, repairing
// over-escaped text, and naming the closest line when nothing matched.
import { foldWhitespace, lineSimilarity } from "../shared/line-index.js";
import { countUpTo, type NormalizedText } from "./replace-text.js";

// ── Placeholders ─────────────────────────────────────────────────────────────

const COMMENT = /^(?:\/\/+|#+|\/\*+|\{\/\*+|<!--|--|;+|%+|\*+)\s*(.*?)\s*(?:\*+\/\}?|-->)?$/;
// "\u2026" is "…": the bundle stays ASCII, which V8 loads faster.
const ELLIPSIS = /^(?:\.{3,}|\u2026)$/;
const HAS_ELLIPSIS = /\.{3}|\u2026/;
const OMISSION_WORD =
  /\b(?:existing|rest|remaining|unchanged|omitted|same|previous|other|more|etc|original|elided|skipped|truncated)\b/i;
const REST_OF =
  /\brest of (?:the |this |your )?(?:code|file|function|method|class|implementation|body|module|component|logic|methods|functions|program|script|content|lines|existing code)\b/i;
const NOUN = String.raw`(?:code|methods?|functions?|lines|logic|implementation|content|imports|properties|fields|tests|cases|body|members)`;
const QUALIFIER = String.raw`^(?:the\s+|all\s+)?(?:(?:rest|remaining|other|existing|previous|original|your)\s+)`;
/** "existing code", "other methods". */
const QUALIFIED_NOUN = new RegExp(String.raw`${QUALIFIER}${NOUN}[\s.\u2026]*$`, "i");
/** "your code here", "remaining methods unchanged", "implementation omitted for brevity". */
const KEPT_AS_IS = new RegExp(
  String.raw`${QUALIFIER}?${NOUN}\b.{0,20}\b(?:unchanged|remains?(?: the)? same|stays?(?: the)? same|as before|omitted(?: for brevity)?|goes here|here|as is)[\s.\u2026]*$`,
  "i",
);

/** Whether one line stands for omitted code rather than being code. */
export function isPlaceholderLine(line: string): boolean {
  const text = line.trim();
  if (ELLIPSIS.test(text)) return true;
  const comment = COMMENT.exec(text);
  if (comment === null) return false;
  const body = comment[1]!;
  if (body === "") return false;
  if (ELLIPSIS.test(body)) return true;
  if (HAS_ELLIPSIS.test(body) && OMISSION_WORD.test(body)) return true;
  // Without an ellipsis, only short comments that plainly say "the rest is as before".
  return body.length <= 60 && (REST_OF.test(body) || QUALIFIED_NOUN.test(body) || KEPT_AS_IS.test(body));
}

/**
 * The first placeholder line of `newText` that neither `oldText` nor the file
 * has (compared trimmed); placeholders already in the original are real text.
 */
export function findNewPlaceholder(
  newText: string,
  oldText: string,
  doc: NormalizedText,
): string | undefined {
  const oldLines = new Set(oldText.split("\n").map((line) => line.trim()));
  for (const line of newText.split("\n")) {
    const text = line.trim();
    if (!isPlaceholderLine(text) || oldLines.has(text)) continue;
    let inFile = false;
    for (let at = doc.text.indexOf(text); at !== -1 && !inFile; at = doc.text.indexOf(text, at + 1)) {
      inFile = doc.lines[doc.lineAt(at)]!.trim() === text;
    }
    if (!inFile) return text;
  }
  return undefined;
}

// ── Over-escaping ────────────────────────────────────────────────────────────

const ESCAPES: Record<string, string> = {
  n: "\n",
  t: "\t",
  r: "\r",
  '"': '"',
  "'": "'",
  "`": "`",
  "\\": "\\",
};

/** Reads `\n`, `\t`, `\r`, `\"`, `\'`, `` \` `` and `\\` as the characters they escape, left to right. */
export function unescapeOverEscaped(text: string): string {
  if (!text.includes("\\")) return text;
  let out = "";
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    const escaped = ch === "\\" ? ESCAPES[text[i + 1] ?? ""] : undefined;
    if (escaped === undefined) {
      out += ch;
    } else {
      out += escaped;
      i++;
    }
  }
  return out;
}

// ── Nearest line ─────────────────────────────────────────────────────────────

const MAX_SHOWN = 120;

export function showLine(line: string): string {
  const text = line.length > MAX_SHOWN ? `${line.slice(0, MAX_SHOWN)}…` : line;
  return JSON.stringify(text);
}

/** The 0-based file line most like old_string's first non-blank line (ties: the one after which more of it matches). */
export function nearestLine(doc: NormalizedText, oldText: string): number | undefined {
  const oldLines = oldText.split("\n");
  const firstIndex = oldLines.findIndex((line) => line.trim() !== "");
  return firstIndex === -1 ? undefined : nearestTo(doc, oldLines, firstIndex)?.best;
}

function nearestTo(
  doc: NormalizedText,
  oldLines: string[],
  firstIndex: number,
): { best: number; bestScore: number } | undefined {
  const wanted = oldLines[firstIndex]!;
  const scores = new Map<number, number>();
  let bestScore = 0;
  for (const i of nearbyCandidates(doc, wanted)) {
    const score = lineSimilarity(wanted, doc.lines[i]!);
    scores.set(i, score);
    if (score > bestScore) bestScore = score;
  }
  if (bestScore === 0) return undefined;
  let best = -1;
  let bestRun = -1;
  for (const [i, score] of [...scores].sort((x, y) => x[0] - y[0])) {
    if (score !== bestScore) continue;
    const run = matchingRun(doc, oldLines, firstIndex, i);
    if (run > bestRun) {
      best = i;
      bestRun = run;
    }
  }
  return { best, bestScore };
}

/**
 * Why old_string was not found, in one or two sentences: the file line most
 * like old_string's first non-blank line, and where the block stops matching.
 */
export function describeNearest(doc: NormalizedText, oldText: string): string {
  const oldLines = oldText.split("\n");
  const firstIndex = oldLines.findIndex((line) => line.trim() !== "");
  if (firstIndex === -1) return "old_string holds only whitespace.";
  if (doc.text.trim() === "") return "The file is empty or holds only whitespace.";
  const nearest = nearestTo(doc, oldLines, firstIndex);
  if (nearest === undefined) return "No line of the file resembles old_string's first line.";
  const { best, bestScore } = nearest;
  const found = doc.lines[best]!;
  const where = `The closest line is line ${best + 1}: ${showLine(found)}`;
  if (bestScore < 1)
    return `${where}; its text differs from old_string's first line ${showLine(oldLines[firstIndex]!)}.`;
  const how = found.trim() === oldLines[firstIndex]!.trim() ? "" : " apart from whitespace";
  const mismatch = firstMismatch(doc, oldLines, firstIndex, best);
  if (mismatch === undefined) return `${where}, which matches old_string's first line${how}.`;
  const fileLine = doc.lines[mismatch.fileLine];
  const seen =
    fileLine === undefined
      ? "the end of the file"
      : `file line ${mismatch.fileLine + 1} ${showLine(fileLine)}`;
  return (
    `${where}, which matches old_string's first line${how}, but old_string line ${mismatch.oldLine + 1} ` +
    `${showLine(oldLines[mismatch.oldLine]!)} does not match ${seen}.`
  );
}

const SCAN_ALL_LINES = 1000;

/**
 * The lines worth scoring against `wanted`: all of them in a small file; in a
 * large one, the lines sharing one of its words, rarest word first, so the
 * search stays near linear instead of file size × line length squared.
 */
function nearbyCandidates(doc: NormalizedText, wanted: string): Iterable<number> {
  if (doc.lineCount <= SCAN_ALL_LINES) return Array.from({ length: doc.lineCount }, (_, i) => i);
  const words = wanted.match(/[\p{L}\p{N}_$]{2,}/gu) ?? wanted.match(/\S+/g) ?? [];
  const ranked = [...new Set(words)]
    .sort((a, b) => b.length - a.length)
    .slice(0, 6)
    .map((word) => ({ word, count: countUpTo(doc.text, word, SCAN_ALL_LINES) }))
    .sort((a, b) => a.count - b.count);
  const lines = new Set<number>();
  for (const { word } of ranked) {
    for (
      let at = doc.text.indexOf(word);
      at !== -1 && lines.size < SCAN_ALL_LINES;
      at = doc.text.indexOf(word, at + 1)
    ) {
      const line = doc.lineAt(at);
      lines.add(line);
      at = doc.lineStarts[line]! + doc.lines[line]!.length; // on to the next line
    }
  }
  return lines;
}

function matchingRun(doc: NormalizedText, oldLines: string[], firstIndex: number, fileLine: number): number {
  const mismatch = firstMismatch(doc, oldLines, firstIndex, fileLine);
  return mismatch === undefined ? oldLines.length : mismatch.oldLine;
}

function firstMismatch(
  doc: NormalizedText,
  oldLines: string[],
  firstIndex: number,
  fileLine: number,
): { oldLine: number; fileLine: number } | undefined {
  for (let j = firstIndex; j < oldLines.length; j++) {
    const at = fileLine + (j - firstIndex);
    const line = at < doc.lineCount ? doc.lines[at] : undefined;
    // A trailing empty entry only means old_string ended with a line break.
    if (j === oldLines.length - 1 && oldLines[j] === "" && j > 0) return undefined;
    if (line === undefined || foldWhitespace(line) !== foldWhitespace(oldLines[j]!))
      return { oldLine: j, fileLine: at };
  }
  return undefined;
}
