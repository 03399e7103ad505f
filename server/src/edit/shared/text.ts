// Text facts the engine and the ledger share: hashes, line endings, binary detection.
import { hash } from "node:crypto";

/** Only `\n` and `\r\n` end a line, as in git and `diff`; a lone `\r` is text. */
export type Eol = "\n" | "\r\n" | "";

/** Hex SHA-256 of the text exactly as it is, encoded as UTF-8. */
export function sha256(text: string): string {
  // The one-shot call is about a tenth faster on a big buffer than a Hash object.
  return hash("sha256", text, "hex");
}

/** The hash of the empty string: the base a model names to create a new file. */
export const EMPTY_SHA256 = sha256("");

/**
 * A text cut into lines with each line's own terminator kept, so joining
 * `lines[i] + eols[i]` gives back the original byte for byte.
 */
export interface SplitText {
  lines: string[];
  eols: Eol[];
}

export function splitLines(text: string): SplitText {
  const table = new LineTable(text);
  const lines = table.all();
  return { lines, eols: lines.map((_, i) => table.eolOf(i)) };
}

/** Lines with their terminators attached, so joining them gives the text back (a diff of these keeps every line ending). */
export function linesWithEol(text: string): string[] {
  const out: string[] = [];
  let start = 0;
  for (let nl = text.indexOf("\n"); nl !== -1; nl = text.indexOf("\n", start)) {
    out.push(text.slice(start, nl + 1));
    start = nl + 1;
  }
  if (start < text.length) out.push(text.slice(start));
  return out;
}

/** The line ending most lines use; `\n` for a text without any. */
export function dominantEol(text: string): "\n" | "\r\n" {
  return new LineTable(text).eol;
}

export function endsWithNewline(text: string): boolean {
  return text.endsWith("\n");
}

/** Binary by the usual rule: a NUL byte in the first 8 KB. */
export function looksBinary(bytes: Uint8Array): boolean {
  const end = Math.min(bytes.length, 8192);
  for (let i = 0; i < end; i++) if (bytes[i] === 0) return true;
  return false;
}

/** Decodes strict UTF-8; `undefined` when the bytes are not valid UTF-8. */
export function decodeUtf8(bytes: Uint8Array): string | undefined {
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

/**
 * A text's lines by offset. One pass finds where lines start and which ending
 * they use; no line is cut out until it is asked for, so a large file with a
 * small patch costs little more than that pass.
 */
export class LineTable {
  /** Offset where each line starts. */
  readonly starts: number[] = [];
  /** How many lines end in `\r\n` and in a bare `\n`. */
  readonly crlf: number = 0;
  readonly lf: number = 0;
  private cut: string[] | undefined;

  constructor(readonly text: string) {
    let crlf = 0;
    let lf = 0;
    let start = 0;
    for (let nl = text.indexOf("\n"); nl !== -1; nl = text.indexOf("\n", start)) {
      this.starts.push(start);
      if (nl > start && text.charCodeAt(nl - 1) === 13) crlf++;
      else lf++;
      start = nl + 1;
    }
    if (start < text.length) this.starts.push(start);
    this.crlf = crlf;
    this.lf = lf;
  }

  get count(): number {
    return this.starts.length;
  }

  /** The ending most lines use. */
  get eol(): "\n" | "\r\n" {
    return this.crlf > this.lf ? "\r\n" : "\n";
  }

  /** Line `i` without its ending. */
  line(i: number): string {
    const start = this.starts[i]!;
    const next = i + 1 < this.starts.length ? this.starts[i + 1]! : this.text.length;
    let end = next;
    if (end > start && this.text.charCodeAt(end - 1) === 10) end--;
    if (end > start && next !== end && this.text.charCodeAt(end - 1) === 13) end--;
    return this.text.slice(start, end);
  }

  /** Line `i`'s own ending (`""` for a last line without one). */
  eolOf(i: number): Eol {
    const next = i + 1 < this.starts.length ? this.starts[i + 1]! : this.text.length;
    if (next === 0 || this.text.charCodeAt(next - 1) !== 10) return "";
    return next >= 2 && next - 1 > this.starts[i]! && this.text.charCodeAt(next - 2) === 13 ? "\r\n" : "\n";
  }

  /** Every line, cut once. */
  all(): string[] {
    if (!this.cut) {
      this.cut = [];
      for (let i = 0; i < this.starts.length; i++) this.cut.push(this.line(i));
    }
    return this.cut;
  }

  /** The line an offset falls in. */
  lineAt(offset: number): number {
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }
}
