// Text facts the engine and the ledger share: hashes, line endings, binary detection.
import { createHash } from "node:crypto";

/** Only `\n` and `\r\n` end a line, as in git and `diff`; a lone `\r` is text. */
export type Eol = "\n" | "\r\n" | "";

/** Hex SHA-256 of the text exactly as it is, encoded as UTF-8. */
export function sha256(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
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
  const lines: string[] = [];
  const eols: Eol[] = [];
  let start = 0;
  for (;;) {
    const nl = text.indexOf("\n", start);
    if (nl === -1) break;
    if (nl > start && text.charCodeAt(nl - 1) === 13) {
      lines.push(text.slice(start, nl - 1));
      eols.push("\r\n");
    } else {
      lines.push(text.slice(start, nl));
      eols.push("\n");
    }
    start = nl + 1;
  }
  if (start < text.length) {
    lines.push(text.slice(start));
    eols.push("");
  }
  return { lines, eols };
}

export function joinLines(split: SplitText): string {
  let out = "";
  for (let i = 0; i < split.lines.length; i++) out += split.lines[i]! + split.eols[i]!;
  return out;
}

/** The line ending most lines use; `\n` for a text without any. */
export function dominantEol(text: string): "\n" | "\r\n" {
  let crlf = 0;
  let lf = 0;
  for (let nl = text.indexOf("\n"); nl !== -1; nl = text.indexOf("\n", nl + 1)) {
    if (nl > 0 && text.charCodeAt(nl - 1) === 13) crlf++;
    else lf++;
  }
  return crlf > lf ? "\r\n" : "\n";
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

/** Count of lines a text has, a final line without terminator included. */
export function lineCount(text: string): number {
  return splitLines(text).lines.length;
}
