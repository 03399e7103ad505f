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

/**
 * Reads frames off `stream`. A header without a usable Content-Length or a body
 * that is not a JSON object leaves the stream out of step: `broken` is called
 * once and reading stops.
 */
export function readFrames(stream: Readable, onFrame: (frame: Frame) => void, broken: (why: string, inHeader: boolean) => void): void {
  let pending: Buffer = Buffer.alloc(0);
  let bodyLength = -1;
  let failed = false;
  const fail = (why: string, inHeader: boolean): void => {
    failed = true;
    stream.removeListener("data", onData);
    broken(why, inHeader);
  };
  const onData = (chunk: Buffer): void => {
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    while (!failed) {
      if (bodyLength < 0) {
        const end = pending.indexOf(HEADER_END);
        if (end < 0) return;
        const header = pending.subarray(0, end).toString("ascii");
        const length = /^content-length:\s*(\d+)\s*$/im.exec(header)?.[1];
        if (length === undefined) return fail(`a header without Content-Length: ${JSON.stringify(header.slice(0, 200))}`, true);
        bodyLength = Number(length);
        pending = pending.subarray(end + HEADER_END.length);
      }
      if (pending.length < bodyLength) return;
      const raw = pending.subarray(0, bodyLength);
      pending = pending.subarray(bodyLength);
      bodyLength = -1;
      let message: unknown;
      try {
        message = JSON.parse(raw.toString("utf8"));
      } catch (error) {
        return fail(`a body that is not JSON (${error instanceof Error ? error.message : String(error)})`, false);
      }
      if (typeof message !== "object" || message === null || Array.isArray(message)) return fail("a body that is not a JSON-RPC message", false);
      // Copied out: `raw` may be a view into a chunk the next read would otherwise keep alive.
      onFrame({ message: message as Message, raw: Buffer.from(raw) });
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
