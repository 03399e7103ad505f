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
 * The largest body read. A body is held whole until it parses, so without a bound a peer's Content-Length
 * decides lockstep's memory (3 GB announced, 1.5 GB streamed, was held). Real answers stay far below it:
 * the largest seen in practice (completion lists, semantic tokens, workspace symbols of big projects) are a
 * few MB; an editor's didOpen carries a whole file, and files this large are not edited through LSP.
 */
export const MAX_BODY = 64 * 1024 * 1024;

/** JSON-RPC's codes for a message that is well framed but cannot be served. */
export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;

export interface FrameOptions {
  /**
   * A well-framed body that is not a JSON-RPC message: answered with `code` (id null unless the message named
   * one), and the stream read on. Without it such a body leaves the stream broken.
   */
  invalid?: (code: number, message: string, id: number | string | null) => void;
  /** The cap on a body's size (MAX_BODY). */
  maxBody?: number;
  /**
   * A body over the cap is read past without being kept and reported to `invalid` (the stream stays in step);
   * otherwise it is a broken stream. The editor's is skipped; a child that sends one is restarted.
   */
  skipOversized?: boolean;
}

const megabytes = (n: number): string => `${Math.round(n / (1024 * 1024))} MB`;

/** The start of a header, or of as much of one as has arrived: what must follow a body whose length was right. */
const HEADER_START = "content-";
export function startsLikeHeader(rest: Buffer): boolean {
  const prefix = rest.subarray(0, HEADER_START.length).toString("ascii").toLowerCase();
  return HEADER_START.startsWith(prefix);
}

/**
 * Whether a body that is not JSON was still framed right, so the stream is in step after it: what follows
 * starts a header (or nothing has arrived yet; if the length was too short, the body's rest then fails as the
 * next header). A body cut by a too-short Content-Length is followed by the rest of its JSON instead.
 */
export function wellFramed(rest: Buffer): boolean {
  return rest.length === 0 || startsLikeHeader(rest);
}

const idOf = (message: unknown): number | string | null => {
  const id = typeof message === "object" && message !== null ? (message as Record<string, unknown>)["id"] : undefined;
  return typeof id === "number" || typeof id === "string" ? id : null;
};

/** A JSON-RPC request, notification or response (LSP has no batches). */
function isMessage(message: unknown): message is Message {
  if (typeof message !== "object" || message === null || Array.isArray(message)) return false;
  const m = message as Record<string, unknown>;
  return typeof m["method"] === "string" || "result" in m || "error" in m;
}

/**
 * Reads frames off `stream`. A header without a usable Content-Length leaves the stream out of step: `broken`
 * is called once and reading stops; so does a body that is not a JSON-RPC message, unless `options.invalid`
 * takes it (see wellFramed).
 */
export function readFrames(stream: Readable, onFrame: (frame: Frame) => void, broken: (why: string, inHeader: boolean) => void, options: FrameOptions = {}): void {
  // Chunks are kept as they came and joined once a whole frame is there: joining at every chunk would copy a
  // body of megabytes once per 64 KB read.
  let chunks: Buffer[] = [];
  let buffered = 0;
  let bodyLength = -1;
  let failed = false;
  /** Bytes of an oversized body still to be read past. */
  let skipping = 0;
  const maxBody = options.maxBody ?? MAX_BODY;
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
    while (!failed && (buffered > 0 || bodyLength === 0)) {
      if (skipping > 0) {
        const all = take();
        const dropped = Math.min(skipping, all.length);
        skipping -= dropped;
        chunks = [all.subarray(dropped)];
        buffered = all.length - dropped;
        if (skipping > 0) return;
        continue;
      }
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
        if (bodyLength > maxBody) {
          const why = `a body of ${length} bytes, over lockstep's cap of ${megabytes(maxBody)}`;
          if (!options.skipOversized || !options.invalid) return fail(why, true);
          skipping = bodyLength;
          bodyLength = -1;
          options.invalid(INVALID_REQUEST, `Invalid Request: ${why}; it was read past and dropped`, null);
          continue;
        }
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
        const why = `a body that is not JSON (${error instanceof Error ? error.message : String(error)})`;
        if (!options.invalid || !wellFramed(chunks[0]!)) return fail(why, false);
        options.invalid(PARSE_ERROR, `Parse error: ${why}`, null);
        continue;
      }
      if (!isMessage(message)) {
        const why = "a body that is not a JSON-RPC message (a request, notification or response object)";
        if (!options.invalid) return fail(why, false);
        options.invalid(INVALID_REQUEST, `Invalid Request: ${why}`, idOf(message));
        continue;
      }
      onFrame({ message, raw });
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
