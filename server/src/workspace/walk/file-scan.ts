// One file searched on a search thread, in bounded memory: its bytes are read
// into one buffer the thread keeps, a window of whole lines at a time, and a
// window is decoded and matched only when it holds the pattern's required text
// (required-literal.ts); most windows of a tree hold none and are only checked
// for valid UTF-8. The functions here are self-contained (no imports, no
// module constants, node's calls passed in): the worker is built from their
// source text (search-worker.ts).
import type * as nodeFs from "node:fs";
import type { LineMatch } from "./line-search.js";
import type { Prefilter } from "./required-literal.js";

/** The synchronous calls `searchItem` makes (node:fs on the search thread). */
export type FileSystem = Pick<
  typeof nodeFs,
  "openSync" | "fstatSync" | "readSync" | "closeSync" | "constants"
>;

/** What a search thread lends `searchItem`: node's calls and the buffer it reads into. */
export interface ScanIo {
  fs: FileSystem;
  isUtf8: (bytes: Uint8Array) => boolean;
  decoder: { decode(bytes: Uint8Array): string };
  /** The thread's read buffer; a line longer than it is read into a larger one, dropped after the file. */
  buffer: Buffer;
}

/** What the worker is given for one file: its path on disk, or the text to search (an open buffer). */
export interface SearchItem {
  abs?: string;
  text?: string;
  /**
   * Every line of the file holding the required text, as ripgrep located them: line number
   * and byte offset, pair after pair, in order. Only these lines are decoded and matched.
   */
  lines?: number[];
}

/** One file's answer: its matches, or why it was not searched. */
export interface ItemAnswer {
  matches: LineMatch[];
  skipped?: "binary" | "unreadable" | "too_large" | "not_reached";
}

export interface ScanPattern {
  source: string;
  flags: string;
  prefilter?: Prefilter | undefined;
}

/** A batch of files for one search thread (or searched in place, see search-worker.ts). */
export interface BatchRequest {
  items: SearchItem[];
  pattern: ScanPattern;
  /** Matches wanted in all from this batch; the thread stops searching once it has them. */
  limit: number;
  /** The limit is each file's own (files searched out of walk order, each answer kept whole). */
  each?: boolean;
  maxBytes: number;
  /** Set (non-zero) by the server when the search needs nothing more: the batch's other files are not reached. */
  stop: SharedArrayBuffer;
}

/** Searches a batch's files in order, calling `searched` after each (the watch's counter). */
export function searchBatch(
  batch: BatchRequest,
  io: ScanIo,
  searchLines: (text: string, source: string, flags: string, limit: number) => LineMatch[],
  searched: () => void,
): ItemAnswer[] {
  const answers: ItemAnswer[] = [];
  const stop = new Int32Array(batch.stop);
  let left = batch.limit;
  for (const item of batch.items) {
    const reached = left > 0 && Atomics.load(stop, 0) === 0;
    const answer: ItemAnswer = reached
      ? searchItem(item, batch.pattern, left, batch.maxBytes, io, searchLines)
      : { matches: [], skipped: "not_reached" };
    if (!batch.each) left -= answer.matches.length;
    answers.push(answer);
    searched();
  }
  return answers;
}

/**
 * Searches one item: an open buffer's text as it is; a file on disk window by
 * window, skipped when over `maxBytes`, when its first 8 KB hold a NUL byte, or
 * when it is not valid UTF-8 anywhere (as a whole-file decode would refuse it).
 * Matches are the ones `searchLines` finds in the whole text, numbered from 1.
 */
export function searchItem(
  item: SearchItem,
  pattern: ScanPattern,
  limit: number,
  maxBytes: number,
  io: ScanIo,
  searchLines: (text: string, source: string, flags: string, limit: number) => LineMatch[],
): ItemAnswer {
  if (item.text !== undefined)
    return { matches: searchLines(item.text, pattern.source, pattern.flags, limit) };
  if (item.lines !== undefined) {
    // A file changed since it was located is searched whole.
    const located = searchLocated(item.abs ?? "", item.lines, pattern, limit, maxBytes, io, searchLines);
    if (located !== undefined) return located;
  }
  const BINARY_PROBE = 8192;
  const PART = 65536;
  const fs = io.fs;
  let fd = -1;
  let buffer = io.buffer;
  try {
    // Non-blocking and no link followed: a FIFO or a link swapped in since the walk is refused, not read.
    fd = fs.openSync(
      item.abs ?? "",
      fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0) | (fs.constants.O_NOFOLLOW ?? 0),
    );
    const stats = fs.fstatSync(fd);
    if (!stats.isFile()) return { matches: [], skipped: "unreadable" };
    // Sized before reading: a file over the limit is never read.
    if (stats.size > maxBytes) return { matches: [], skipped: "too_large" };
    const hasCandidate = candidateTest(pattern.prefilter);
    const matches: LineMatch[] = [];
    let filled = 0;
    let total = 0;
    // Lines before the window are counted only when it holds a match (most windows of a large file do not).
    let lineBase = 0;
    let counted = 0;
    let windowStart = 0;
    for (;;) {
      if (filled === buffer.length) {
        // One line fills the buffer: read it into a larger one (this file only).
        const larger = Buffer.allocUnsafe(Math.min(buffer.length * 2, maxBytes + 1));
        buffer.copy(larger, 0, 0, filled);
        buffer = larger;
      }
      const read = fs.readSync(fd, buffer, filled, buffer.length - filled, null);
      if (
        total < BINARY_PROBE &&
        buffer.subarray(filled, filled + Math.min(read, BINARY_PROBE - total)).indexOf(0) !== -1
      )
        return { matches: [], skipped: "binary" };
      total += read;
      filled += read;
      if (total > maxBytes) return { matches: [], skipped: "too_large" };
      // At the size fstat gave the file is read (no second read to learn it); one that shrank ends early.
      const eof = read === 0 || total === stats.size;
      if (!eof && filled < buffer.length) continue;
      // A window of whole lines (the rest waits for the next read): a line is matched whole, and
      // a boundary after a newline is a character boundary, so UTF-8 is checked window by window.
      const end = eof ? filled : buffer.lastIndexOf(10, filled - 1) + 1;
      if (end === 0) {
        if (eof) return { matches };
        continue;
      }
      const window = buffer.subarray(0, end);
      if (!io.isUtf8(window)) return { matches: [], skipped: "binary" };
      if (matches.length < limit && hasCandidate(window)) {
        if (counted < windowStart) lineBase += countLines(fd, counted, windowStart, fs);
        counted = windowStart;
        // Decoded a part of whole lines at a time: text that small is collected young.
        for (let from = 0; from < end && matches.length < limit; ) {
          let to = from + PART >= end ? end : window.lastIndexOf(10, from + PART - 1) + 1;
          if (to <= from) to = window.indexOf(10, from + PART) + 1 || end;
          const part = window.subarray(from, to);
          if (from === 0 && to === end ? true : hasCandidate(part)) {
            for (
              let i = window.indexOf(10, counted - windowStart);
              i !== -1 && i < from;
              i = window.indexOf(10, i + 1)
            )
              lineBase++;
            counted = windowStart + from;
            const found = searchLines(
              io.decoder.decode(part),
              pattern.source,
              pattern.flags,
              limit - matches.length,
            );
            for (const m of found) matches.push({ line: m.line + lineBase, text: m.text });
          }
          from = to;
        }
      }
      if (eof) return { matches };
      windowStart += end;
      buffer.copy(buffer, 0, end, filled);
      filled -= end;
    }
  } catch {
    return { matches: [], skipped: "unreadable" };
  } finally {
    if (fd !== -1) fs.closeSync(fd);
  }
}

/**
 * Searches a file whose candidate lines were located (`lines`, see SearchItem): the whole
 * file is read, window by window, for the binary and UTF-8 rules, and only the located lines
 * are decoded and matched (no newline counted, no window scanned for the required text).
 * Undefined when a located offset is not the start of a line: the file changed since.
 */
export function searchLocated(
  abs: string,
  lines: number[],
  pattern: ScanPattern,
  limit: number,
  maxBytes: number,
  io: ScanIo,
  searchLines: (text: string, source: string, flags: string, limit: number) => LineMatch[],
): ItemAnswer | undefined {
  const BINARY_PROBE = 8192;
  const fs = io.fs;
  let fd = -1;
  let buffer = io.buffer;
  try {
    fd = fs.openSync(
      abs,
      fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0) | (fs.constants.O_NOFOLLOW ?? 0),
    );
    const stats = fs.fstatSync(fd);
    if (!stats.isFile()) return { matches: [], skipped: "unreadable" };
    if (stats.size > maxBytes) return { matches: [], skipped: "too_large" };
    const matches: LineMatch[] = [];
    let filled = 0;
    let total = 0;
    let windowStart = 0;
    let next = 0;
    for (;;) {
      if (filled === buffer.length) {
        const larger = Buffer.allocUnsafe(Math.min(buffer.length * 2, maxBytes + 1));
        buffer.copy(larger, 0, 0, filled);
        buffer = larger;
      }
      const read = fs.readSync(fd, buffer, filled, buffer.length - filled, null);
      if (
        total < BINARY_PROBE &&
        buffer.subarray(filled, filled + Math.min(read, BINARY_PROBE - total)).indexOf(0) !== -1
      )
        return { matches: [], skipped: "binary" };
      total += read;
      filled += read;
      if (total > maxBytes) return { matches: [], skipped: "too_large" };
      const eof = read === 0 || total === stats.size;
      if (!eof && filled < buffer.length) continue;
      const end = eof ? filled : buffer.lastIndexOf(10, filled - 1) + 1;
      if (end === 0) {
        if (eof) return next < lines.length ? undefined : { matches };
        continue;
      }
      const window = buffer.subarray(0, end);
      if (!io.isUtf8(window)) return { matches: [], skipped: "binary" };
      // The located lines that start in this window (a window ends after a newline, so they end in it too).
      for (; next < lines.length && lines[next + 1]! < windowStart + end; next += 2) {
        const from = lines[next + 1]! - windowStart;
        if (from < 0 || (from > 0 && window[from - 1] !== 10)) return undefined;
        if (matches.length >= limit) continue;
        const to = window.indexOf(10, from);
        const text = io.decoder.decode(window.subarray(from, to === -1 ? end : to));
        const found = searchLines(text, pattern.source, pattern.flags, 1);
        if (found.length > 0) matches.push({ line: lines[next]!, text: found[0]!.text });
      }
      if (eof) return next < lines.length ? undefined : { matches };
      windowStart += end;
      buffer.copy(buffer, 0, end, filled);
      filled -= end;
    }
  } catch {
    return { matches: [], skipped: "unreadable" };
  } finally {
    if (fd !== -1) fs.closeSync(fd);
  }
}

/** Newlines in the file's bytes from `from` to `to`, read again (by position) in pieces. */
export function countLines(fd: number, from: number, to: number, fs: FileSystem): number {
  const piece = Buffer.allocUnsafe(65536);
  let lines = 0;
  for (let at = from; at < to; ) {
    const read = fs.readSync(fd, piece, 0, Math.min(piece.length, to - at), at);
    if (read <= 0) break;
    const bytes = piece.subarray(0, read);
    for (let i = bytes.indexOf(10); i !== -1; i = bytes.indexOf(10, i + 1)) lines++;
    at += read;
  }
  return lines;
}

/**
 * Whether raw bytes may hold a match: they hold the prefilter's text (always,
 * without one). Read as latin1 (under case folding) in pieces of 64 KB: strings
 * that small are collected young, where whole windows would pile up.
 */
export function candidateTest(prefilter: Prefilter | undefined): (bytes: Buffer) => boolean {
  if (prefilter === undefined) return () => true;
  if (prefilter.kind === "bytes") {
    const needles = prefilter.needles.map((n) => Buffer.from(n, "latin1"));
    return (bytes) => needles.some((n) => bytes.indexOf(n) !== -1);
  }
  const PIECE = 65536;
  const regex = new RegExp(prefilter.source, prefilter.flags);
  return (bytes) => {
    for (let at = 0; at < bytes.length; at += PIECE) {
      if (regex.test(bytes.toString("latin1", at, Math.min(bytes.length, at + PIECE + prefilter.span))))
        return true;
    }
    return false;
  };
}
