// MCP over stdio, one JSON-RPC message per line, with a bound on a message's
// size that refuses the message and reads on. The SDK's stdio transport closes
// itself when its buffer passes 10 MB, and `lockstep mcp` then ended with exit 0
// and not a word. Here an oversized line is skipped to its end (only its first
// bytes are kept, to find its id), answered with a JSON-RPC error naming the
// bound, told on stderr, and the next line is read as usual. Lines are kept as
// pieces until they end, so a long line costs its length once, not its square.
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { JSONRPCMessageSchema, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

/** The largest message read: a whole-file write of a large source file fits many times over. */
export const MAX_MESSAGE_BYTES = 32 * 1024 * 1024;

/** Bytes of a refused line kept to find its id. */
const HEAD_BYTES = 1024;

const NEWLINE = 10;

export class BoundedStdioTransport implements Transport {
  onmessage?: Transport["onmessage"];
  onerror?: Transport["onerror"];
  onclose?: Transport["onclose"];
  private parts: Buffer[] = [];
  private size = 0;
  /** The first bytes of a line past the bound, which is being skipped to its end. */
  private skipping: Buffer | undefined;

  constructor(
    private readonly report: (line: string) => void,
    private readonly maxBytes = MAX_MESSAGE_BYTES,
    private readonly stdin: NodeJS.ReadableStream = process.stdin,
    private readonly stdout: NodeJS.WritableStream = process.stdout,
  ) {}

  async start(): Promise<void> {
    this.stdin.on("data", this.onData);
    this.stdin.on("error", this.onError);
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve) => {
      if (this.stdout.write(JSON.stringify(message) + "\n")) resolve();
      else this.stdout.once("drain", resolve);
    });
  }

  async close(): Promise<void> {
    this.stdin.off("data", this.onData);
    this.stdin.off("error", this.onError);
    this.stdin.pause();
    this.parts = [];
    this.onclose?.();
  }

  private readonly onError = (error: Error): void => this.onerror?.(error);

  private readonly onData = (chunk: Buffer | string): void => {
    const data = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
    for (let from = 0; from < data.length; ) {
      const newline = data.indexOf(NEWLINE, from);
      this.take(data.subarray(from, newline === -1 ? data.length : newline));
      if (newline === -1) break;
      this.lineEnded();
      from = newline + 1;
    }
  };

  private take(piece: Buffer): void {
    if (piece.length === 0 || this.skipping) return;
    if (this.size + piece.length <= this.maxBytes) {
      this.parts.push(piece);
      this.size += piece.length;
      return;
    }
    this.skipping = Buffer.concat([...this.parts, piece]).subarray(0, HEAD_BYTES);
    this.parts = [];
  }

  private lineEnded(): void {
    const skipped = this.skipping;
    const line = skipped ? "" : Buffer.concat(this.parts).toString("utf8").replace(/\r$/, "");
    this.parts = [];
    this.size = 0;
    this.skipping = undefined;
    if (skipped) return this.refuse(skipped);
    if (line.trim() === "") return;
    let message: JSONRPCMessage;
    try {
      message = JSONRPCMessageSchema.parse(JSON.parse(line));
    } catch (error) {
      this.onerror?.(error instanceof Error ? error : new Error(String(error)));
      return;
    }
    this.onmessage?.(message);
  }

  /** The sender hears why its message was not read (by its id, when the line's head names one), and so does stderr. */
  private refuse(head: Buffer): void {
    const mb = Math.round(this.maxBytes / 1024 / 1024);
    const id = idOf(head.toString("utf8"));
    const message = `lockstep mcp: a message longer than ${mb} MB arrived on stdin, the most one message may be; it was not read and nothing was done. Send a large file in parts (edit or safe_patch), not in one message.`;
    this.report(`${message}${id === null ? "" : ` (request id ${JSON.stringify(id)})`}\n`);
    void this.send({ jsonrpc: "2.0", id: id as string | number, error: { code: -32600, message } } as JSONRPCMessage);
  }
}

/** The id of a request from the head of its line, where it comes before `params`; null when it cannot be told. */
function idOf(head: string): string | number | null {
  const beforeParams = head.split(/"params"\s*:/)[0]!;
  const found = /^\s*\{.*?"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")/s.exec(beforeParams)?.[1];
  if (found === undefined) return null;
  try {
    return JSON.parse(found) as string | number;
  } catch {
    return null;
  }
}
