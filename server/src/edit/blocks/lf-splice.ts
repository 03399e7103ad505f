// A block applied to a text whose lines all end in `\n`: found with string
// search and spliced, instead of cutting the whole file into lines once per
// block (2,000 blocks on a 40,000-line file took minutes that way). The result
// is the one the line-based path gives: unchanged bytes kept, the final newline
// or its absence kept.

export type LfSplice =
  | { kind: "one"; content: string; startLine: number; linesAfter: boolean }
  | { kind: "many"; startLines: number[] }
  | { kind: "none" };

/** 0-based line of an offset, counting newlines from a known point onwards. */
function lineCounter(text: string): (offset: number) => number {
  let line = 0;
  let scanned = 0;
  return (offset) => {
    for (let nl = text.indexOf("\n", scanned); nl !== -1 && nl < offset; nl = text.indexOf("\n", nl + 1)) {
      line++;
      scanned = nl + 1;
    }
    return line;
  };
}

/** Where `oldLines` occur as whole lines of `text` (overlaps included), and the splice when once. */
export function spliceLf(text: string, oldLines: readonly string[], newLines: readonly string[]): LfSplice {
  const needle = oldLines.join("\n");
  const found: number[] = [];
  // An empty needle (one blank line) is found at every offset; the whole-line test keeps the blank lines.
  for (let at = text.indexOf(needle); at !== -1 && at <= text.length; at = text.indexOf(needle, at + 1)) {
    const end = at + needle.length;
    // Ending at the end of a text that ends with a line break would take the empty line after it: not a line.
    const phantom = end === text.length && text.endsWith("\n");
    if (
      (at === 0 || text.charCodeAt(at - 1) === 10) &&
      (end === text.length || text.charCodeAt(end) === 10) &&
      !phantom
    )
      found.push(at);
    if (at === text.length) break;
  }
  if (found.length === 0) return { kind: "none" };
  const lineOf = lineCounter(text);
  if (found.length > 1) return { kind: "many", startLines: found.map(lineOf) };
  const at = found[0]!;
  const end = at + needle.length;
  let before = text.slice(0, at);
  let after = text.slice(end);
  if (newLines.length === 0) {
    // Removed with its line break; at the very end, with the break before it.
    if (after.startsWith("\n")) after = after.slice(1);
    else if (before.endsWith("\n")) before = before.slice(0, -1);
    return { kind: "one", content: before + after, startLine: lineOf(at), linesAfter: after !== "" };
  }
  return {
    kind: "one",
    content: before + newLines.join("\n") + after,
    startLine: lineOf(at),
    linesAfter: after.length > 1,
  };
}
