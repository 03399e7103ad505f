// Credential-shaped text in a command's output (a token a test printed, a config file a command
// showed), replaced by the function the caller gives: commands/ knows no shapes itself. Streamed
// text holds back a trailing run that may be the start of a token still coming; the kept head and
// tail first lose the part of a token a cut may have left at their edges, which no shape would know.

/** Longer runs are let through: a stream of one endless word must not be held whole. */
const MAX_HELD = 512;
/** How much of a word at a cut edge is dropped (longer than any documented token). */
const MAX_EDGE = 256;

const isTokenChar = (c: number): boolean =>
  (c >= 48 && c <= 57) ||
  (c >= 65 && c <= 90) ||
  (c >= 97 && c <= 122) ||
  "_.~+/=-".includes(String.fromCharCode(c));

const isLetter = (c: number): boolean => (c >= 65 && c <= 90) || (c >= 97 && c <= 122);

/** Where the run of token characters ending `text` starts, with a `Bearer ` before it, at most `max` back. */
function trailingRun(text: string, max: number): number {
  let i = text.length;
  while (i > 0 && text.length - i < max && isTokenChar(text.charCodeAt(i - 1))) i--;
  const bearer = /Bearer\s+$/.exec(text.slice(Math.max(0, i - 24), i));
  return bearer ? i - bearer[0].length : i;
}

export class ShapeStream {
  private held = "";

  constructor(private readonly redact: (text: string) => string) {}

  push(text: string): string {
    const all = this.held + text;
    let cut = trailingRun(all, MAX_HELD);
    if (all.length - cut >= MAX_HELD) cut = all.length;
    // Every token starts with a letter: what comes before the run's first letter (a test runner's
    // progress dots, a count) is shown now rather than with the next chunk.
    while (cut < all.length && !isLetter(all.charCodeAt(cut))) cut++;
    this.held = all.slice(cut);
    return cut === 0 ? "" : this.redact(all.slice(0, cut));
  }

  end(): string {
    const rest = this.held;
    this.held = "";
    return rest === "" ? "" : this.redact(rest);
  }
}

/** Head and tail with the partial words at the cut removed (their length returned), ready to be redacted. */
export function trimCutEdges(head: string, tail: string): { head: string; tail: string; dropped: number } {
  const headCut = trailingRun(head, MAX_EDGE);
  let tailCut = 0;
  while (tailCut < tail.length && tailCut < MAX_EDGE && isTokenChar(tail.charCodeAt(tailCut))) tailCut++;
  return {
    head: head.slice(0, headCut),
    tail: tail.slice(tailCut),
    dropped: head.length - headCut + tailCut,
  };
}
