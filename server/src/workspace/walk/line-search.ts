// Matching one file's text line by line, as grep does. `searchLines` is
// self-contained (no imports, no module constants): the search worker is built
// from its source text (with file-scan.ts's), so the thread that may spin on a
// catastrophic pattern runs exactly this code, from the bundle or from source.
import { fail, succeed, type Outcome } from "../../shared/outcome.js";
import { prefilterOf, type Prefilter } from "./required-literal.js";

export interface LineMatch {
  line: number;
  text: string;
}

export interface CompiledSearch {
  source: string;
  flags: string;
  /** What a file's bytes must hold for a line of it to match (none: every file is matched). */
  prefilter?: Prefilter | undefined;
}

/** Characters of a line a match reports. */
export const MATCH_TEXT_CHARS = 300;

/**
 * The pattern as a JavaScript regular expression: case-insensitive unless it
 * holds an upper-case letter (escapes such as `\S` or `\p{Lu}` do not count)
 * or `caseSensitive` says otherwise.
 */
export function compileSearch(pattern: string, caseSensitive: boolean | undefined): Outcome<CompiledSearch> {
  const literal = pattern.replace(
    /\\[pPu]\{[^}]*\}|\\u[0-9a-fA-F]{4}|\\x[0-9a-fA-F]{2}|\\c[A-Za-z]|\\./g,
    "",
  );
  const sensitive = caseSensitive ?? /\p{Lu}/u.test(literal);
  const base = `m${sensitive ? "" : "i"}`;
  // Unicode mode where the pattern allows it (\p{…}, astral characters), else the classic syntax models often write.
  for (const flags of [`${base}u`, base]) {
    try {
      new RegExp(pattern, flags);
      return succeed({ source: pattern, flags, prefilter: prefilterOf(pattern, flags) });
    } catch {
      // try the next syntax
    }
  }
  let why = "";
  try {
    new RegExp(pattern, base);
  } catch (error) {
    why = error instanceof Error ? error.message : String(error);
  }
  const hint = /\(\?[imsx]+\)/.test(pattern)
    ? " Inline flags such as (?i) are not JavaScript; use case_sensitive instead."
    : "";
  return fail("invalid_argument", `Invalid regular expression ${JSON.stringify(pattern)}: ${why}.${hint}`, [
    "Fix the pattern (JavaScript syntax; escape ( [ { . * + ? with a backslash to match them literally) and search again.",
  ]);
}

/**
 * Up to `limit` matching lines of `text`. One global scan finds candidates; each
 * candidate's line is then tested on its own, so a match never spans lines.
 * A line's text is cut at 300 characters, around the match when it lies further in.
 */
export function searchLines(text: string, source: string, flags: string, limit: number): LineMatch[] {
  const MAX_CHARS = 300;
  const matches: LineMatch[] = [];
  const scan = new RegExp(source, flags + "g");
  const one = new RegExp(source, flags);
  let line = 1;
  let counted = 0;
  let from = 0;
  while (matches.length < limit && from <= text.length) {
    scan.lastIndex = from;
    const found = scan.exec(text);
    if (found === null) break;
    // Past the last line (after the final newline, or an empty text) is no line at all.
    if (found.index === text.length && (text.length === 0 || text.endsWith("\n"))) break;
    const start = found.index === 0 ? 0 : text.lastIndexOf("\n", found.index - 1) + 1;
    let end = text.indexOf("\n", found.index);
    if (end === -1) end = text.length;
    for (let i = text.indexOf("\n", counted); i !== -1 && i < start; i = text.indexOf("\n", i + 1)) line++;
    counted = start;
    const lineText = text.charCodeAt(end - 1) === 13 ? text.slice(start, end - 1) : text.slice(start, end);
    const hit = one.exec(lineText);
    if (hit !== null) {
      const at = hit.index + hit[0].length <= MAX_CHARS ? 0 : Math.max(0, hit.index - 100);
      matches.push({ line, text: lineText.slice(at, at + MAX_CHARS) });
    }
    from = end + 1;
  }
  return matches;
}
