// The editor's messages read off stdin in plain mode. vscode-jsonrpc's reader
// reports a body that is not JSON and a broken header alike, and keeps the bytes
// that tell them apart to itself; this one keeps them, so a well-framed body that
// is not JSON is answered (JSON-RPC's parse error, id null) and reading goes on,
// while a stream out of step still ends the server.
//
// What is inferred, not known: a frame is "well-framed" when what follows its body
// can start a header (`Name:`, a header's first characters). A Content-Length too
// short leaves the rest of the body in front of the next header: JSON's `"`, `,`,
// `}` or spaces come before any colon there, so it is seen as soon as it arrives.
// A tail that happens to begin like a header (`x: y"}`) is only found out at the
// next header's end (no Content-Length line of its own); until the editor sends
// more, the server has answered the cut frame with a parse error and waits.
import type { Readable } from "node:stream";
import { AbstractMessageReader, Disposable, ErrorCodes, type DataCallback, type Message, type MessageReader } from "vscode-languageserver/node.js";

export interface FrameEvents {
  /** A whole frame whose body is not a JSON-RPC message: answered with this error (id null), and reading goes on. */
  invalid(code: number, message: string): void;
  /** The stream cannot be read past this point: where the next message starts is lost. */
  broken(why: string, inHeader: boolean): void;
}

const HEADER_END = Buffer.from("\r\n\r\n", "ascii");
/** A header is a line or two; this much without its end is not a stream in step. */
const MAX_HEADER = 64 * 1024;
/** RFC 7230's token characters: what a header field's name is made of. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]$/;

/** Whether `bytes` can be the start of a header: a name, then a colon. `undefined` while too few bytes have come to say. */
export function canStartHeader(bytes: Buffer): boolean | undefined {
  for (let i = 0; i < bytes.length; i++) {
    const c = String.fromCharCode(bytes[i]!);
    if (c === ":") return i > 0;
    if (!TOKEN.test(c)) return false;
  }
  return undefined;
}

export class FrameReader extends AbstractMessageReader implements MessageReader {
  private chunks: Buffer[] = [];
  private buffered = 0;
  private bodyLength = -1;
  private failed = false;

  constructor(
    private readonly input: Readable,
    private readonly events: FrameEvents,
  ) {
    super();
  }

  listen(callback: DataCallback): Disposable {
    const onData = (chunk: Buffer): void => this.onData(chunk, callback);
    const onClose = (): void => this.fireClose();
    this.input.on("data", onData);
    this.input.on("close", onClose);
    return Disposable.create(() => {
      this.input.off("data", onData);
      this.input.off("close", onClose);
    });
  }

  private fail(why: string, inHeader: boolean): void {
    this.failed = true;
    this.events.broken(why, inHeader);
  }

  /** Everything buffered as one buffer (joined only once a whole frame is there, not at every chunk). */
  private take(): Buffer {
    const all = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.buffered);
    this.chunks = [all];
    return all;
  }

  private keep(rest: Buffer): void {
    this.chunks = [rest];
    this.buffered = rest.length;
  }

  private onData(chunk: Buffer, callback: DataCallback): void {
    if (this.failed) return;
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    while (!this.failed) {
      if (this.bodyLength < 0 && (this.buffered === 0 || !this.readHeader())) return;
      if (this.buffered < this.bodyLength) return;
      const all = this.take();
      const body = all.subarray(0, this.bodyLength).toString("utf8");
      this.keep(all.subarray(this.bodyLength));
      this.bodyLength = -1;
      this.deliver(body, callback);
    }
  }

  /** Reads a header off the buffer; false when it is not all there yet or is broken. */
  private readHeader(): boolean {
    const all = this.take();
    if (canStartHeader(all) === false) {
      this.fail(`bytes that cannot start a header: ${JSON.stringify(all.subarray(0, 60).toString("utf8"))}`, true);
      return false;
    }
    const end = all.indexOf(HEADER_END);
    if (end < 0) {
      if (all.length > MAX_HEADER) this.fail(`no header end in ${all.length} bytes`, true);
      return false;
    }
    const header = all.subarray(0, end).toString("ascii");
    const length = /^content-length:[ \t]*(\d+)[ \t]*$/im.exec(header)?.[1];
    if (length === undefined) {
      this.fail(`a header without a Content-Length that is a number: ${JSON.stringify(header.slice(0, 200))}`, true);
      return false;
    }
    this.bodyLength = Number(length);
    this.keep(all.subarray(end + HEADER_END.length));
    return true;
  }

  private deliver(body: string, callback: DataCallback): void {
    let message: unknown;
    try {
      message = JSON.parse(body);
    } catch (error) {
      // A Content-Length too short leaves the rest of the body where the next header should be.
      if (this.buffered > 0 && canStartHeader(this.take()) === false) {
        this.fail(`a body that is not JSON (${errorText(error)}), followed by bytes that are not a header`, false);
        return;
      }
      this.events.invalid(ErrorCodes.ParseError, `Parse error: the message body is not JSON (${errorText(error)}).`);
      return;
    }
    if (typeof message !== "object" || message === null || Array.isArray(message)) {
      const what = Array.isArray(message) ? "a batch (an array), which LSP does not use" : `JSON ${message === null ? "null" : typeof message}`;
      this.events.invalid(ErrorCodes.InvalidRequest, `Invalid request: the message body is ${what}, not a JSON-RPC message object.`);
      return;
    }
    callback(message as Message);
  }
}

function errorText(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split("\n")[0]!;
}
