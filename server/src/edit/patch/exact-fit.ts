// The common case, fast: a one-hunk diff whose old lines occur exactly once in
// the file, as written. One string search answers it without cutting the file
// into lines or indexing it. Anything else goes to the locator.
import type { ParsedHunk } from "./diff-parse.js";
import type { Placement } from "./locate.js";
import type { LineTable } from "../shared/text.js";

/** Where the block occurs on whole lines: none, one offset, or "many". */
function occurrences(text: string, block: string, eol: string): number | "many" | undefined {
  // An empty block (one blank line) matches between any two characters: not this search's job.
  if (block === "") return "many";
  let found: number | undefined;
  for (let at = text.indexOf(block); at !== -1 && at < text.length; at = text.indexOf(block, at + 1)) {
    const end = at + block.length;
    const startsLine = at === 0 || text.charCodeAt(at - 1) === 10;
    const endsLine = end === text.length || text.startsWith(eol, end);
    if (!startsLine || !endsLine) continue;
    if (found !== undefined) return "many";
    found = at;
  }
  return found;
}

/**
 * Exact, unique, ordered placements for every hunk, or undefined to let the
 * locator decide. Proving a hunk unique scans to the end of the file, so this
 * serves one hunk; more go to the locator, whose line index proves them all in
 * one pass over the file.
 */
export function placeExactly(file: LineTable, hunks: readonly ParsedHunk[]): Placement[] | undefined {
  if (hunks.length !== 1) return undefined;
  // Mixed line endings make a joined block ambiguous; leave those to the locator.
  if (file.crlf > 0 && file.lf > 0) return undefined;
  const eol = file.crlf > 0 ? "\r\n" : "\n";
  const placements: Placement[] = [];
  let previous = -1;
  for (const hunk of hunks) {
    const old = hunk.lines.filter((l) => l.op !== "+").map((l) => l.text);
    if (old.length === 0) return undefined;
    const at = occurrences(file.text, old.join(eol), eol);
    if (at === undefined || at === "many") return undefined;
    const start = file.lineAt(at);
    // A last old line that is empty can meet the final newline: a line the file does not have.
    if (start <= previous || start + old.length > file.count) return undefined;
    placements.push({ start, tier: "exact", mismatched: [] });
    previous = start;
  }
  return placements;
}
