// One JSON-RPC message per line (MCP's and ACP's stdio), cut under MAX_MESSAGE_BYTES.
// A line past the bound is skipped to its end, only its first bytes kept (to find
// its id for the error answer), and the next line is read as usual: the SDKs'
// readers close the whole stream instead, which ended `lockstep mcp` and
// `lockstep acp` with exit 0 and not a word. Lines are kept as pieces until they
// end, so a long line costs its length once, not its square. Knows no protocol.
import { MAX_MESSAGE_BYTES } from "./limits.js";

/** Bytes of a refused line kept to find its id. */
const HEAD_BYTES = 1024;
const NEWLINE = 10;

export class LineSplitter {
  private parts: Buffer[] = [];
  private size = 0;
  /** The first bytes of a line past the bound, which is being skipped to its end. */
  private skipping: Buffer | undefined;

  constructor(
    private readonly onLine: (line: string) => void,
    private readonly onOversized: (head: Buffer) => void,
    readonly maxBytes = MAX_MESSAGE_BYTES,
  ) {}

  push(chunk: Buffer | string): void {
    const data = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
    for (let from = 0; from < data.length; ) {
      const newline = data.indexOf(NEWLINE, from);
      this.take(data.subarray(from, newline === -1 ? data.length : newline));
      if (newline === -1) break;
      this.lineEnded();
      from = newline + 1;
    }
  }

  /** The input ended: a last line without its newline is still a line. */
  end(): void {
    if (this.size > 0 || this.skipping) this.lineEnded();
  }

  clear(): void {
    this.parts = [];
    this.size = 0;
    this.skipping = undefined;
  }

  private take(piece: Buffer): void {
    if (piece.length === 0 || this.skipping) return;
    if (this.size + piece.length <= this.maxBytes) {
      this.parts.push(piece);
      this.size += piece.length;
      return;
    }
    this.skipping = Buffer.concat([...this.parts, piece.subarray(0, HEAD_BYTES)]).subarray(0, HEAD_BYTES);
    this.parts = [];
  }

  private lineEnded(): void {
    const skipped = this.skipping;
    const line = skipped ? "" : Buffer.concat(this.parts, this.size).toString("utf8").replace(/\r$/, "");
    this.clear();
    if (skipped) return this.onOversized(skipped);
    if (line.trim() !== "") this.onLine(line);
  }
}

/** The id of a request from the head of its line, where it comes before `params`; null when it cannot be told. */
export function idInHead(head: string): string | number | null {
  const beforeParams = head.split(/"params"\s*:/)[0]!;
  const found = /^\s*\{.*?"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")/s.exec(beforeParams)?.[1];
  if (found === undefined) return null;
  try {
    return JSON.parse(found) as string | number;
  } catch {
    return null;
  }
}

/** The id a parsed message named, read at its top level only; null when it named none usable. */
export function topLevelId(message: unknown): string | number | null {
  if (typeof message !== "object" || message === null || Array.isArray(message)) return null;
  const id = (message as Record<string, unknown>)["id"];
  return typeof id === "number" || typeof id === "string" ? id : null;
}
