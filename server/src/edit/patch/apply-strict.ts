// Applies the corrected hunks to the text they were built from, strictly: every
// context and removed line must be, byte for byte, the file's line at its
// number (the check `diff`'s applyPatch makes), or nothing is applied. The
// hunks were rebuilt from the file's own lines, so a failure here is a bug of
// ours. Done on the file's line table directly: re-reading the text as applyPatch
// does would cost as much again as placing the hunks.
import type { StructuredPatchHunk } from "diff";
import type { LineTable } from "../shared/text.js";

/**
 * The new text, or undefined when a hunk does not fit where it says (nothing
 * applied). `file` is the text's line table; a last line without an ending is
 * given `lastEol`, as the hunks were built for.
 */
export function applyStrictly(
  file: LineTable,
  hunks: readonly StructuredPatchHunk[],
  lastEol: string,
): string | undefined {
  const text = file.text;
  const count = file.count;
  const startOf = (line: number): number => (line < count ? file.starts[line]! : text.length);
  /** Whether file line `at` is exactly `body` (its text, and `\r` when it ends in CRLF). */
  const isLine = (at: number, body: string): boolean => {
    const eol = file.eolOf(at) || lastEol;
    const cr = eol === "\r\n";
    const own = file.eolOf(at).length;
    const length = startOf(at + 1) - own - startOf(at);
    if (body.length !== length + (cr ? 1 : 0)) return false;
    return cr
      ? body.endsWith("\r") && text.startsWith(body.slice(0, -1), startOf(at))
      : text.startsWith(body, startOf(at));
  };
  let out = "";
  let copyFrom = 0; // the first file line not yet written out
  let next = 0; // the first file line not yet copied or consumed
  /** Writes lines [copyFrom, to) verbatim, the file's last line given its ending. */
  const flush = (to: number): void => {
    if (copyFrom < to)
      out +=
        text.slice(startOf(copyFrom), startOf(to)) +
        (to === count && file.eolOf(to - 1) === "" ? lastEol : "");
    copyFrom = to;
  };
  for (const h of hunks) {
    const start = h.oldStart - 1; // 0-based first old line, also for a hunk that only adds (rebuilt that way)
    if (start < next || start > count) return undefined;
    let at = start;
    for (const l of h.lines) {
      const body = l.slice(1);
      if (l.startsWith("+")) {
        flush(at);
        out += body.endsWith("\r") ? body.slice(0, -1) + "\r\n" : body + "\n";
        continue;
      }
      if (at >= count || !isLine(at, body)) return undefined;
      if (l.startsWith("-")) {
        flush(at);
        copyFrom = at + 1;
      }
      at++;
    }
    next = at;
  }
  flush(count);
  return out;
}
