// A session file read for its summary (the list of sessions): streamed in chunks into
// summary-fold.ts, the blob and message lines (nearly all of the bytes) passed over as they
// stream by, never joined or decoded, so memory holds one line at most, never the file. The
// server's reader yields to the event loop after each chunk (a 300 MB session file held every
// other request 601 ms when it was read whole); the shell's reads the same way, synchronously.
// The file is input: opened without following a link, a regular file only, a kept line capped.
import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";
import { open } from "node:fs/promises";
import { MAX_MESSAGE_BYTES } from "../jsonrpc/limits.js";
import { SKIPPED_HEADS, SummaryFold, type SummaryResult } from "./summary-fold.js";

const CHUNK = 1024 * 1024;
const PREFIX = Math.max(...SKIPPED_HEADS.map((s) => s.length));
const HEADS = SKIPPED_HEADS.map((s) => Buffer.from(s));
const FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/** Cuts chunks into lines for the fold: a skipped line is never buffered, a kept one up to `maxLine` bytes. */
class LineFeed {
  private pieces: Buffer[] = [];
  private size = 0;
  /** The current line: undecided (its start not seen yet), kept, passed over, or too long. */
  private mode: "undecided" | "keep" | "skip" | "long" = "undecided";

  constructor(
    readonly fold: SummaryFold,
    private readonly maxLine = MAX_MESSAGE_BYTES,
  ) {}

  /** Bytes pushed so far, and where the current line starts. */
  private offset = 0;
  private lineStart = 0;

  push(chunk: Buffer): void {
    const base = this.offset;
    this.offset += chunk.length;
    for (let from = 0; from < chunk.length && !this.fold.failed; ) {
      const newline = chunk.indexOf(10, from);
      // A line's start left at the chunk's end is copied: the reader reuses its buffer for the next chunk.
      if (newline === -1) return this.add(Buffer.from(chunk.subarray(from)));
      if (this.mode === "undecided" && this.size === 0 && newline - from <= this.maxLine)
        this.wholeLine(chunk.subarray(from, newline));
      else {
        this.add(chunk.subarray(from, newline));
        this.endLine(false);
      }
      from = newline + 1;
      this.lineStart = base + from;
    }
  }

  /**
   * Where a last line passed over unread starts, when the file ends without its newline: the
   * reader reads it back (up to the cap) to tell a whole line from one cut off mid-write.
   */
  get skippedTail(): { start: number; bytes: number } | undefined {
    return this.mode === "skip" && this.offset - this.lineStart <= this.maxLine
      ? { start: this.lineStart, bytes: this.offset - this.lineStart }
      : undefined;
  }

  end(tail?: Buffer): SummaryResult {
    if (tail !== undefined && this.mode === "skip") {
      this.fold.line(tail.toString("utf8"), true);
      this.mode = "undecided";
    } else if (this.mode !== "undecided" || this.size > 0) this.endLine(true);
    return this.fold.result();
  }

  /** A line whole in one chunk (nearly every line): judged in place, nothing copied. */
  private wholeLine(line: Buffer): void {
    if (HEADS.some((h) => line.length >= h.length && line.compare(h, 0, h.length, 0, h.length) === 0))
      this.fold.skipped();
    else this.fold.line(line.toString("utf8"));
  }

  private add(piece: Buffer): void {
    if (this.mode === "skip" || this.mode === "long") return;
    this.pieces.push(piece);
    this.size += piece.length;
    if (this.mode === "undecided" && this.size >= PREFIX) {
      const head = Buffer.concat(this.pieces, this.size).subarray(0, PREFIX);
      this.mode = HEADS.some((h) => head.subarray(0, h.length).equals(h)) ? "skip" : "keep";
    }
    if (this.mode === "skip" || this.size > this.maxLine) {
      if (this.size > this.maxLine) this.mode = "long";
      [this.pieces, this.size] = [[], 0];
    }
  }

  private endLine(last: boolean): void {
    if (this.mode === "long") this.fold.tooLong(this.maxLine);
    // A skipped last line has no newline: it was cut off mid-write, as a kept one that does not parse.
    else if (this.mode === "skip" && last) this.fold.torn();
    else if (this.mode === "skip") this.fold.skipped();
    else this.fold.line(Buffer.concat(this.pieces, this.size).toString("utf8"), last);
    [this.pieces, this.size, this.mode] = [[], 0, "undecided"];
  }
}

const notRegular = (file: string): Error => new Error(`${file} is not a regular file`);

/** The summary of one session file, read without holding the thread (a chunk per event-loop turn). */
export async function summarizeFile(file: string): Promise<SummaryResult> {
  const handle = await open(file, FLAGS);
  try {
    if (!(await handle.stat()).isFile()) throw notRegular(file);
    const feed = new LineFeed(new SummaryFold());
    const buffer = Buffer.alloc(CHUNK);
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, CHUNK, null);
      if (bytesRead === 0 || feed.fold.failed) {
        const tail = feed.skippedTail;
        if (tail === undefined) return feed.end();
        const bytes = Buffer.alloc(tail.bytes);
        await handle.read(bytes, 0, tail.bytes, tail.start);
        return feed.end(bytes);
      }
      feed.push(buffer.subarray(0, bytesRead));
      // Other requests are answered between chunks.
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  } finally {
    await handle.close();
  }
}

/** The same, synchronously: for the shell's commands, which answer nothing else meanwhile. */
export function summarizeFileSync(file: string): SummaryResult {
  const fd = openSync(file, FLAGS);
  try {
    if (!fstatSync(fd).isFile()) throw notRegular(file);
    const feed = new LineFeed(new SummaryFold());
    const buffer = Buffer.alloc(CHUNK);
    for (;;) {
      const n = readSync(fd, buffer, 0, CHUNK, null);
      if (n === 0 || feed.fold.failed) {
        const tail = feed.skippedTail;
        if (tail === undefined) return feed.end();
        const bytes = Buffer.alloc(tail.bytes);
        readSync(fd, bytes, 0, tail.bytes, tail.start);
        return feed.end(bytes);
      }
      feed.push(buffer.subarray(0, n));
    }
  } finally {
    closeSync(fd);
  }
}
