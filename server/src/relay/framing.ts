// LSP's base protocol for the relay: frames read off a stream with their body's
// bytes kept, so a message the relay forwards unchanged is written as it came,
// never serialised again. (vscode-jsonrpc's reader hands out parsed objects only,
// and its writer queues each write behind a semaphore; on a burst of requests
// that cost a third of the relay's time.)
import type { Readable, Writable } from "node:stream";
import type { Message } from "vscode-jsonrpc";

export interface Frame {
  message: Message;
  /** The body as it was read: what is written when the message goes on unchanged. */
  raw: Buffer;
}

const HEADER_END = Buffer.from("\r\n\r\n", "ascii");
/** A header is a line or two; this much without its end is not a stream in step. */
const MAX_HEADER = 64 * 1024;

/**
 * Reads frames off `stream`. A header without a usable Content-Length or a body
 * that is not a JSON object leaves the stream out of step: `broken` is called
 * once and reading stops.
 */
export function readFrames(stream: Readable, onFrame: (frame: Frame) => void, broken: (why: string, inHeader: boolean) => void): void {
  // Chunks are kept as they came and joined once a whole frame is there: joining at every chunk would copy a
  // body of megabytes once per 64 KB read.
  let chunks: Buffer[] = [];
  let buffered = 0;
  let bodyLength = -1;
  let failed = false;
  const fail = (why: string, inHeader: boolean): void => {
    failed = true;
    stream.removeListener("data", onData);
    broken(why, inHeader);
  };
  const take = (): Buffer => {
    const all = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, buffered);
    chunks = [all];
    return all;
  };
  const onData = (chunk: Buffer): void => {
    chunks.push(chunk);
    buffered += chunk.length;
    while (!failed && buffered > 0) {
      if (bodyLength < 0) {
        const all = take();
        const end = all.indexOf(HEADER_END);
        if (end < 0 && all.length > MAX_HEADER) return fail(`no header end in ${all.length} bytes`, true);
        if (end < 0) return;
        const header = all.subarray(0, end).toString("ascii");
        const length = /^content-length:\s*(\d+)\s*$/im.exec(header)?.[1];
        if (length === undefined) return fail(`a header without Content-Length: ${JSON.stringify(header.slice(0, 200))}`, true);
        bodyLength = Number(length);
        chunks = [all.subarray(end + HEADER_END.length)];
        buffered = chunks[0]!.length;
      }
      if (buffered < bodyLength) return;
      const all = take();
      // Copied out: a view would keep the whole chunk it came in alive as long as the frame is held.
      const raw = Buffer.from(all.subarray(0, bodyLength));
      chunks = [all.subarray(bodyLength)];
      buffered = chunks[0]!.length;
      bodyLength = -1;
      let message: unknown;
      try {
        message = JSON.parse(raw.toString("utf8"));
      } catch (error) {
        return fail(`a body that is not JSON (${error instanceof Error ? error.message : String(error)})`, false);
      }
      if (typeof message !== "object" || message === null || Array.isArray(message)) return fail("a body that is not a JSON-RPC message", false);
      onFrame({ message: message as Message, raw });
    }
  };
  stream.on("data", onData);
}

/** Writes one frame, header and body in one write: the given body bytes, or the message serialised. */
export function writeFrame(stream: Writable, body: Buffer | Message): void {
  const bytes = Buffer.isBuffer(body) ? body : Buffer.from(JSON.stringify(body), "utf8");
  const header = `Content-Length: ${bytes.length}\r\n\r\n`;
  const frame = Buffer.allocUnsafe(header.length + bytes.length);
  frame.write(header, 0, "ascii");
  bytes.copy(frame, header.length);
  stream.write(frame);
}
