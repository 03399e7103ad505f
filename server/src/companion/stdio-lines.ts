// MCP over stdio, one JSON-RPC message per line, read under the bounds every door
// shares (`jsonrpc/limits.ts`): a line past the size cap, or a message nested past
// the depth cap, is refused with a JSON-RPC error naming the bound (by its id when
// it has one), told on stderr, and the next line is read as usual. The SDK's stdio
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
    if (!parsed.ok) return this.onerror?.(new Error(`a line that is not JSON (${parsed.message})`));
    const checked = JSONRPCMessageSchema.safeParse(parsed.value);
    if (!checked.success) return this.onerror?.(checked.error);
    this.onmessage?.(checked.data);
  }

  /** The sender hears why its message was not read (by its id, when it names one), and so does stderr. */
  private refuse(id: string | number | null, message: string): void {
    this.report(`${message}${id === null ? "" : ` (request id ${JSON.stringify(id)})`}\n`);
    void this.send({
      jsonrpc: "2.0",
      id: id as string | number,
      error: { code: -32600, message },
    } as JSONRPCMessage);
  }
}
