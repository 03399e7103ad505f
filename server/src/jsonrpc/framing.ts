// jsonrpc/: frames. Knows nothing of what the messages mean.
// LSP's base protocol, read and written by both modes: plain mode (`lsp/frame-reader.ts`, a MessageReader
// over this) and wrap mode (the relay, which forwards a message unchanged as the bytes it came in).
// vscode-jsonrpc's reader hands out parsed objects only and reports a body that is not JSON and a broken
// header alike; this one keeps the body's bytes and tells the two apart, so a well-framed body that is not
// JSON-RPC is answered (-32700/-32600) and reading goes on, while a stream out of step ends it. (Its writer
// queues each write behind a semaphore; on a burst of requests that cost a third of the relay's time.)
import type { Readable, Writable } from "node:stream";
import type { Message } from "vscode-jsonrpc";
import { deeperThan, MAX_JSON_DEPTH, MAX_MESSAGE_BYTES, megabytes } from "./limits.js";

export interface Frame {
  message: Message;
  /** The body as it was read: what is written when the message goes on unchanged. */
  raw: Buffer;
}

const HEADER_END = Buffer.from("\r\n\r\n", "ascii");
/** A header is a line or two; this much without its end is not a stream in step. */
const MAX_HEADER = 64 * 1024;

/**
 * The largest body read, the cap every stdio door shares. A body is held whole until it parses, so without a
 * bound a peer's Content-Length decides lockstep's memory (3 GB announced, 1.5 GB streamed, was held). Real
 * answers stay far below it: the largest seen in practice (completion lists, semantic tokens, workspace
 * symbols of big projects) are a few MB; an editor's didOpen carries a whole file, and files this large are
 * not edited through LSP.
 */
export const MAX_BODY = MAX_MESSAGE_BYTES;

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

/** RFC 7230's token characters: what a header field's name is made of. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]$/;

/**
 * Whether `bytes` can be the start of a header: a field name (token characters), then a colon. `undefined`
 * while too few bytes have come to say.
 *
 * The one rule for "in step", inferred, not known. It is checked wherever a header must start, as bytes
 * arrive, so garbage is seen before any header end comes. A Content-Length too short leaves the rest of its
 * body where the next header should be: JSON's `"`, `,`, `}`, `]` or spaces come before any colon there, so
 * that is found at once. What it misses: a rest that happens to read like a field name and a colon (`x:y"}`)
 * is found only at the next header end (that header then has no Content-Length of its own at a line's start);
 * until the peer sends more, the cut frame has been answered with a parse error. A stricter rule (what
 * follows must begin "Content-", LSP's only two fields) would catch that too, but would end the stream of
 * an editor that sends a header field LSP does not name, which vscode-jsonrpc reads; ending a working
 * editor's server is the worse mistake, so the grammar's rule is kept.
 */
export function canStartHeader(bytes: Buffer): boolean | undefined {
  for (let i = 0; i < bytes.length; i++) {
    const c = String.fromCharCode(bytes[i]!);
    if (c === ":") return i > 0;
    if (!TOKEN.test(c)) return false;
  }
  return undefined;
}

/**
 * Whether a body that is not JSON was still framed right, so the stream is in step after it: what follows
 * can start a header, or too little (or nothing) has arrived to say; a rest found out later then fails as
 * the next header.
 */
export function wellFramed(rest: Buffer): boolean {
  return canStartHeader(rest) !== false;
}

/** The id a message that cannot be served named, for its error answer; null when it named none usable. */
export function idOf(message: unknown): number | string | null {
  const id =
    typeof message === "object" && message !== null ? (message as Record<string, unknown>)["id"] : undefined;
  return typeof id === "number" || typeof id === "string" ? id : null;
}

/** A JSON-RPC request, notification or response (LSP has no batches). */
export function isMessage(message: unknown): message is Message {
  if (typeof message !== "object" || message === null || Array.isArray(message)) return false;
  const m = message as Record<string, unknown>;
  return typeof m["method"] === "string" || "result" in m || "error" in m;
}

/** What a body that parsed is, when it is not a message: said in the -32600 answer. */
function notAMessage(message: unknown): string {
  if (Array.isArray(message)) return "a batch (an array), which LSP does not use";
  if (typeof message === "object" && message !== null) return "an object with no method, result or error";
  return `JSON ${message === null ? "null" : typeof message}`;
}

const errorText = (error: unknown): string =>
  (error instanceof Error ? error.message : String(error)).split("\n")[0]!;

/**
 * Reads frames off `stream`. A header without a usable Content-Length, or bytes that cannot start a header,
 * leave the stream out of step: `broken` is called once and reading stops; so does a body that is not a
 * JSON-RPC message, unless `options.invalid` takes it (see wellFramed). Returns a function that stops reading.
 */
export function readFrames(
  stream: Readable,
  onFrame: (frame: Frame) => void,
  broken: (why: string, inHeader: boolean) => void,
  options: FrameOptions = {},
): () => void {
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
  const keep = (rest: Buffer): void => {
    chunks = [rest];
    buffered = rest.length;
  };
  const onData = (chunk: Buffer): void => {
    chunks.push(chunk);
    buffered += chunk.length;
    while (!failed && (buffered > 0 || bodyLength === 0)) {
      if (skipping > 0) {
        const all = take();
        const dropped = Math.min(skipping, all.length);
        skipping -= dropped;
        keep(all.subarray(dropped));
        if (skipping > 0) return;
        continue;
      }
      if (bodyLength < 0) {
        const all = take();
        if (canStartHeader(all) === false)
          return fail(
            `bytes that cannot start a header: ${JSON.stringify(all.subarray(0, 60).toString("utf8"))}`,
            true,
          );
        const end = all.indexOf(HEADER_END);
        if (end < 0 && all.length > MAX_HEADER) return fail(`no header end in ${all.length} bytes`, true);
        if (end < 0) return;
        const header = all.subarray(0, end).toString("ascii");
        const length = /^content-length:[ \t]*(\d+)[ \t]*$/im.exec(header)?.[1];
        if (length === undefined)
          return fail(
            `a header without Content-Length (or one that is not a number): ${JSON.stringify(header.slice(0, 200))}`,
            true,
          );
        bodyLength = Number(length);
        keep(all.subarray(end + HEADER_END.length));
        if (bodyLength > maxBody) {
          const why = `a body of ${length} bytes, over lockstep's cap of ${megabytes(maxBody)}`;
          if (!options.skipOversized || !options.invalid) return fail(why, true);
          skipping = bodyLength;
          bodyLength = -1;
          options.invalid(INVALID_REQUEST, `Invalid request: ${why}; it was read past and dropped.`, null);
          continue;
        }
      }
      if (buffered < bodyLength) return;
      const all = take();
      // Copied out: a view would keep the whole chunk it came in alive as long as the frame is held.
      const raw = Buffer.from(all.subarray(0, bodyLength));
      keep(all.subarray(bodyLength));
      bodyLength = -1;
      let message: unknown;
      try {
        message = JSON.parse(raw.toString("utf8"));
      } catch (error) {
        const why = `a body that is not JSON (${errorText(error)})`;
        // A Content-Length too short leaves the rest of the body where the next header should be.
        if (!options.invalid) return fail(why, false);
        if (!wellFramed(chunks[0]!)) return fail(`${why}, followed by bytes that are not a header`, false);
        options.invalid(
          PARSE_ERROR,
          `Parse error: the message body is not JSON (${errorText(error)}).`,
          null,
        );
        continue;
      }
      // Too deep for what walks it next (the library's handlers, zod, JSON.stringify): answered, not parsed on.
      if (deeperThan(message)) {
        const why = `the message nests deeper than ${MAX_JSON_DEPTH} levels of arrays and objects, the most lockstep reads`;
        if (!options.invalid) return fail(why, false);
        options.invalid(INVALID_REQUEST, `Invalid request: ${why}; it was not read.`, idOf(message));
        continue;
      }
      if (!isMessage(message)) {
        const why = `the message body is ${notAMessage(message)}, not a JSON-RPC message object`;
        if (!options.invalid) return fail(why, false);
        options.invalid(INVALID_REQUEST, `Invalid request: ${why}.`, idOf(message));
        continue;
      }
      onFrame({ message, raw });
    }
  };
  stream.on("data", onData);
  return () => {
    failed = true;
    stream.removeListener("data", onData);
  };
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
