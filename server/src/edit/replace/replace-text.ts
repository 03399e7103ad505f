// The file as the replace engine sees it: every line ending turned into `\n`,
// with a map back to the original offsets so untouched bytes survive verbatim.
import { succeed, type Outcome } from "../../shared/outcome.js";
import { dominantEol, endsWithNewline } from "../shared/text.js";

/** A place in the normalised text to replace, and what goes there (with `\n` line breaks). */
export interface Region {
  start: number;
  end: number;
  /** 0-based index of the line the match is reported at. */
  line: number;
  /** What goes there, with `\n` line breaks; only worked out for the matches that get replaced. A refusal when its indentation cannot be settled. */
  replacement: () => Outcome<string>;
}

/** Turns every `\r\n` into `\n`; a lone `\r` is text, as everywhere in lockstep. */
export function normalizeEols(text: string): string {
  return text.includes("\r\n") ? text.replace(/\r\n/g, "\n") : text;
}

export class NormalizedText {
  /** The text with `\n` line endings only. */
  readonly text: string;
  readonly endsWithNewline: boolean;

  #eol: "\n" | "\r\n" | undefined;
  #lines: string[] | undefined;
  #starts: number[] | undefined;
  /** Offsets in `text` of the `\n`s that stand for a `\r\n` of the original, ascending. */
  readonly #crlfs: number[] = [];

  constructor(readonly original: string) {
    this.endsWithNewline = endsWithNewline(original);
    let text = "";
    let copied = 0;
    for (let at = original.indexOf("\r\n"); at !== -1; at = original.indexOf("\r\n", at + 2)) {
      text += original.slice(copied, at);
      this.#crlfs.push(text.length);
      text += "\n";
      copied = at + 2;
    }
    this.text = this.#crlfs.length === 0 ? original : text + original.slice(copied);
  }

  /** The line ending replacement text is written with: the file's dominant one. */
  get eol(): "\n" | "\r\n" {
    return (this.#eol ??= this.#crlfs.length === 0 ? "\n" : dominantEol(this.original));
  }

  /** `text.split("\n")`: when the text ends with a newline, the last entry is an empty phantom line. */
  get lines(): string[] {
    return (this.#lines ??= this.text.split("\n"));
  }

  /** Number of real lines (the phantom line after a final newline excluded). */
  get lineCount(): number {
    return this.text.endsWith("\n") ? this.lines.length - 1 : this.lines.length;
  }

  /** Offset in `text` where each entry of `lines` starts. */
  get lineStarts(): number[] {
    if (this.#starts === undefined) {
      const starts: number[] = [];
      let offset = 0;
      for (const line of this.lines) {
        starts.push(offset);
        offset += line.length + 1;
      }
      this.#starts = starts;
    }
    return this.#starts;
  }

  /** 0-based line holding offset `offset` of `text`. */
  lineAt(offset: number): number {
    const starts = this.lineStarts;
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /** The offset in the original text that offset `offset` of `text` stands for. */
  toOriginal(offset: number): number {
    // Every `\r\n` before `offset` was one character longer.
    const crlfs = this.#crlfs;
    let lo = 0;
    let hi = crlfs.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (crlfs[mid]! < offset) lo = mid + 1;
      else hi = mid;
    }
    return offset + lo;
  }

  /**
   * The original text with every region replaced. Regions are sorted and do not
   * overlap; their replacements are written with the file's line ending. Whether
   * the file ends with a newline is kept when a region reaches the end.
   * `replacements[i]` is what region i's replacement() gave.
   */
  splice(regions: readonly Region[], replacements: readonly string[]): string {
    let out = "";
    let copied = 0;
    let last = "";
    for (let i = 0; i < regions.length; i++) {
      const region = regions[i]!;
      const from = this.toOriginal(region.start);
      out += this.original.slice(copied, from);
      const replacement = replacements[i]!;
      last = this.eol === "\n" ? replacement : replacement.replace(/\n/g, this.eol);
      out += last;
      copied = this.toOriginal(region.end);
    }
    out += this.original.slice(copied);
    const reachesEnd = regions.length > 0 && regions[regions.length - 1]!.end >= this.text.length;
    if (!reachesEnd) return out;
    if (this.endsWithNewline && out.length > 0 && !endsWithNewline(out)) return out + this.eol;
    if (!this.endsWithNewline && last.length > 0) {
      // Drop only line endings the replacement itself brought to the end.
      const trimmed = last.replace(/(?:\r?\n)+$/, "");
      return out.slice(0, out.length - (last.length - trimmed.length));
    }
    return out;
  }
}

/** Every start offset of `needle` in `haystack`, overlapping occurrences included. */
function findAll(haystack: string, needle: string): number[] {
  const found: number[] = [];
  if (needle.length === 0) return found;
  for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, at + 1)) found.push(at);
  return found;
}

/** How often `needle` occurs in `text` (overlaps included), counting no further than `cap`. */
export function countUpTo(text: string, needle: string, cap: number): number {
  let n = 0;
  for (let at = text.indexOf(needle); at !== -1 && n < cap; at = text.indexOf(needle, at + 1)) n++;
  return n;
}

/** How much of a line's indentation lies before `at` when only indentation does; -1 when text does. */
function indentBefore(text: string, at: number): number {
  let i = at - 1;
  while (i >= 0 && (text[i] === " " || text[i] === "\t")) i--;
  return i < 0 || text[i] === "\n" ? at - 1 - i : -1;
}

/**
 * The exact tier: `old` (line endings normalised) as a literal substring. A
 * match that starts inside or after a line's indentation is left to the
 * line-based tiers when old_string starts with whitespace (it would split the
 * indentation) or when new_string's first line is indented otherwise than
 * old_string's (its own indentation would land on the file's).
 */
export function exactRegions(doc: NormalizedText, oldText: string, newText: string): Region[] {
  const leadOf = (t: string): string => /^[ \t]*/.exec(t)![0];
  const oldLead = leadOf(oldText);
  const sameLead = oldLead === leadOf(newText);
  const starts = findAll(doc.text, oldText).filter((at) => {
    const before = indentBefore(doc.text, at);
    return before <= 0 || (oldLead === "" && sameLead);
  });
  const regions: Region[] = [];
  let line = 0;
  let scanned = 0;
  for (const start of starts) {
    // Count line breaks incrementally: the starts are ascending.
    for (
      let nl = doc.text.indexOf("\n", scanned);
      nl !== -1 && nl < start;
      nl = doc.text.indexOf("\n", nl + 1)
    ) {
      line++;
      scanned = nl + 1;
    }
    regions.push({ start, end: start + oldText.length, line, replacement: () => succeed(newText) });
  }
  return regions;
}
