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
export function applyStrictly(file: LineTable, hunks: readonly StructuredPatchHunk[], lastEol: string): string | undefined {
  const text = file.text;
  const eolOf = (i: number): string => file.eolOf(i) || lastEol;
  /** Lines [from, to) verbatim, the last one given its ending. */
  const verbatim = (from: number, to: number): string => {
    if (from >= to) return "";
    const end = to < file.count ? file.starts[to]! : text.length;
    return text.slice(file.starts[from]!, end) + (to === file.count && file.eolOf(to - 1) === "" ? lastEol : "");
  };
  let out = "";
  let next = 0; // the first file line not yet copied or consumed
  for (const h of hunks) {
    const start = h.oldStart - 1; // 0-based first old line, also for a hunk that only adds (rebuilt that way)
    if (start < next || start > file.count) return undefined;
    out += verbatim(next, start);
    let at = start;
    for (const l of h.lines) {
      const body = l.slice(1);
      if (l.startsWith("+")) {
        out += body.endsWith("\r") ? body.slice(0, -1) + "\r\n" : body + "\n";
        continue;
      }
      if (at >= file.count) return undefined;
      const eol = eolOf(at);
      if (body !== file.line(at) + (eol === "\r\n" ? "\r" : "")) return undefined;
      if (l.startsWith(" ")) out += file.line(at) + eol;
      at++;
    }
    next = at;
  }
  return out + verbatim(next, file.count);
}
