// The common case, fast: every hunk's old lines occur exactly once in the file,
// as written, in diff order. One hunk: one string search answers it without
// cutting the file into lines. More: one pass indexes each hunk's longest line
// (the likeliest to be rare), and every hunk is proven unique from that line's
// places. Anything else goes to the locator.
import type { ParsedHunk } from "./diff-parse.js";
import type { Placement } from "./locate.js";
import { exactPositions } from "../shared/line-index.js";
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

/** Exact, unique, ordered placements for every hunk, or undefined to let the locator decide. */
export function placeExactly(file: LineTable, hunks: readonly ParsedHunk[]): Placement[] | undefined {
  if (hunks.length > 1) return placeIndexed(file, hunks);
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

/** Many hunks: each proven unique from the places of its longest old line, found in one pass over the file. */
function placeIndexed(file: LineTable, hunks: readonly ParsedHunk[]): Placement[] | undefined {
  const olds = hunks.map((h) => h.lines.filter((l) => l.op !== "+").map((l) => l.text));
  const keys = olds.map((old) => {
    let best = 0;
    for (let i = 1; i < old.length; i++) if (old[i]!.length > old[best]!.length) best = i;
    return best;
  });
  if (olds.some((old, h) => old.length === 0 || old[keys[h]!]!.trim() === "")) return undefined;
  const places = exactPositions(
    file,
    olds.map((old, h) => old[keys[h]!]!),
  );
  const placements: Placement[] = [];
  let previous = -1;
  for (let h = 0; h < hunks.length; h++) {
    const old = olds[h]!;
    const key = keys[h]!;
    let found: number | undefined;
    for (const at of places.get(old[key]!) ?? []) {
      const start = at - key;
      if (start < 0 || start + old.length > file.count) continue;
      let fits = true;
      for (let i = 0; i < old.length && fits; i++) fits = file.line(start + i) === old[i];
      if (!fits) continue;
      if (found !== undefined) return undefined; // two places: the locator reports it
      found = start;
    }
    if (found === undefined || found <= previous) return undefined;
    placements.push({ start: found, tier: "exact", mismatched: [] });
    previous = found;
  }
  return placements;
}
