// Many small files read quickly: synchronous calls, a few milliseconds' worth
// at a time, yielding to the event loop between slices. A model asking for 500
// files of 2 KB otherwise waits for 2,000 trips through libuv's thread pool
// (open, stat, read, close; four at a time), five times as long.
import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";
import { decodeUtf8, looksBinary } from "../edit/shared/text.js";

/** Files up to this size may be read by `readSmallTextFiles`' synchronous calls. */
const QUICK_READ_BYTES = 256 * 1024;
/** How long `readSmallTextFiles` reads before it lets the event loop run (ms). */
const QUICK_READ_SLICE_MS = 4;

// As in disk.ts: a FIFO opened without O_NONBLOCK would block until a writer appears.
const READ_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

/**
 * Each file's text, or undefined when the file needs `readTextFile` (larger,
 * not a regular file, binary, not UTF-8, any error), whose messages say why.
 */
export async function readSmallTextFiles(
  files: readonly string[],
  signal: AbortSignal,
): Promise<(string | undefined)[]> {
  const texts: (string | undefined)[] = [];
  let sliceStart = performance.now();
  for (const abs of files) {
    if (signal.aborted) break;
    texts.push(readSmallNow(abs));
    if (performance.now() - sliceStart > QUICK_READ_SLICE_MS) {
      await new Promise((resolve) => setImmediate(resolve));
      sliceStart = performance.now();
    }
  }
  while (texts.length < files.length) texts.push(undefined);
  return texts;
}

function readSmallNow(abs: string): string | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(abs, READ_FLAGS);
    const stats = fstatSync(fd);
    if (!stats.isFile() || stats.size > QUICK_READ_BYTES) return undefined;
    const buffer = Buffer.allocUnsafe(stats.size + 1);
    let filled = 0;
    for (let n = -1; n !== 0 && filled <= stats.size; filled += n)
      n = readSync(fd, buffer, filled, buffer.length - filled, filled);
    // Grown since the stat: the careful path reads it whole.
    if (filled > stats.size) return undefined;
    const bytes = buffer.subarray(0, filled);
    return looksBinary(bytes) ? undefined : decodeUtf8(bytes);
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
