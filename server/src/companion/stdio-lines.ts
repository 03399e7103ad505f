// MCP over stdio, one JSON-RPC message per line, read under the bounds every door
// shares (`jsonrpc/limits.ts`): a line past the size cap, or a message nested past
// the depth cap, is refused with a JSON-RPC error naming the bound (by its id when
// it has one), told on stderr, and the next line is read as usual; so is a line that is not
// JSON (-32700, id null) or JSON that is not a JSON-RPC message (-32600). The SDK's stdio
// transport closes itself when its buffer passes 10 MB, and `lockstep mcp` then
// ended with exit 0 and not a word; a deep message ended it in zod's validation.
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { JSONRPCMessageSchema, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { MAX_MESSAGE_BYTES, parseBounded, tooDeepMessage, tooLargeMessage } from "../jsonrpc/limits.js";
import { idInHead, LineSplitter, topLevelId } from "../jsonrpc/line-splitter.js";

export class BoundedStdioTransport implements Transport {
  onmessage?: Transport["onmessage"];
  onerror?: Transport["onerror"];
  onclose?: Transport["onclose"];
  private readonly lines: LineSplitter;

  constructor(
    private readonly report: (line: string) => void,
    maxBytes = MAX_MESSAGE_BYTES,
    private readonly stdin: NodeJS.ReadableStream = process.stdin,
    private readonly stdout: NodeJS.WritableStream = process.stdout,
  ) {
    this.lines = new LineSplitter(
      (line) => this.lineRead(line),
      (head) => this.refuse(idInHead(head.toString("utf8")), tooLargeMessage("lockstep mcp", maxBytes)),
      maxBytes,
    );
  }

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
    this.lines.clear();
    this.onclose?.();
  }

  private readonly onError = (error: Error): void => this.onerror?.(error);
  private readonly onData = (chunk: Buffer | string): void => this.lines.push(chunk);

  private lineRead(line: string): void {
    const parsed = parseBounded(line);
    if (!parsed.ok && parsed.reason === "depth")
      return this.refuse(topLevelId(parsed.value), tooDeepMessage("lockstep mcp: a message"));
    if (!parsed.ok)
      return this.refuse(
        null,
        `lockstep mcp: a line that is not JSON (${parsed.message}); it was skipped and the next line is read. Send one JSON-RPC message per line.`,
        -32700,
      );
    const checked = JSONRPCMessageSchema.safeParse(parsed.value);
    if (!checked.success) {
      // A notification (no id) that is not a message is only told on stderr: nothing answers a notification.
      const id = topLevelId(parsed.value);
      const message =
        "lockstep mcp: a JSON value that is not a JSON-RPC 2.0 message (`jsonrpc`, `method` or `result`/`error`); it was skipped.";
      if (id === null && !notNotification(parsed.value)) return this.report(`${message}\n`);
      return this.refuse(id, message, -32600);
    }
    this.onmessage?.(checked.data);
  }

  /** The sender hears why its message was not read (by its id, when it names one), and so does stderr. */
  private refuse(id: string | number | null, message: string, code = -32600): void {
    this.report(`${message}${id === null ? "" : ` (request id ${JSON.stringify(id)})`}\n`);
    void this.send({ jsonrpc: "2.0", id: id as string | number, error: { code, message } } as JSONRPCMessage);
  }
}

/** A value that is no notification: anything but an object with a `method` and no `id` gets an answer. */
const notNotification = (value: unknown): boolean =>
  typeof value !== "object" || value === null || Array.isArray(value) || !("method" in value);
