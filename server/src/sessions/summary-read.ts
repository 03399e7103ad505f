// A session file read for its summary (the list of sessions) without holding the
// thread: read in chunks, yielding to the event loop after each, and the blob and
// message lines (nearly all of the bytes) passed over as they stream by, never
// joined or parsed. A 300 MB session file held every other request for 600 ms
// when it was read whole. What is kept is the few lines the summary folds.
import { createReadStream } from "node:fs";

/** Lines a summary passes over, known by how they start. */
const SKIPPED = ['{"t":"blob"', '{"t":"msg"'];
const PREFIX = Math.max(...SKIPPED.map((s) => s.length));
const CHUNK = 1024 * 1024;

const skippable = (head: string): boolean => SKIPPED.some((s) => head.startsWith(s));

/**
 * The file's text less its blob and message lines, for `parseSession(text, { summary: true })`.
 * A last line that is cut off (no newline) is kept as it is, so it is still noted as torn; one that
 * was being passed over is kept as its start, which does not parse, for the same note.
 */
export async function summaryText(file: string): Promise<string> {
  const kept: string[] = [];
  let pieces: Buffer[] = [];
  let size = 0;
  let skipping: string | undefined;
  for await (const chunk of createReadStream(file, { highWaterMark: CHUNK }) as AsyncIterable<Buffer>) {
    for (let from = 0; from < chunk.length; ) {
      const newline = chunk.indexOf(10, from);
      const piece = chunk.subarray(from, newline === -1 ? chunk.length : newline);
      if (skipping === undefined) {
        pieces.push(piece);
        size += piece.length;
        if (size >= PREFIX) {
          const head = Buffer.concat(pieces, size).subarray(0, PREFIX).toString("utf8");
          if (skippable(head)) [skipping, pieces, size] = [head, [], 0];
        }
      }
      if (newline === -1) break;
      if (skipping === undefined) kept.push(Buffer.concat(pieces, size).toString("utf8"));
      [skipping, pieces, size] = [undefined, [], 0];
      from = newline + 1;
    }
    // Other requests are answered between chunks.
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  const tail = skipping ?? (size > 0 ? Buffer.concat(pieces, size).toString("utf8") : undefined);
  return tail === undefined ? kept.map((l) => l + "\n").join("") : kept.map((l) => l + "\n").join("") + tail;
}
