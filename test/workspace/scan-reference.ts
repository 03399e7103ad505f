// What a file's search must give, computed the plain way (the whole file decoded,
// fatal on bad UTF-8, then matched): the oracle for the windowed and located
// searches (file-scan.test.ts, located-scan.test.ts), and the thread's I/O for them.
import { isUtf8 } from "node:buffer";
import * as nodeFs from "node:fs";
import type { FileSystem, ItemAnswer, ScanIo } from "../../server/src/workspace/walk/file-scan.js";
import { searchLines } from "../../server/src/workspace/walk/line-search.js";

export function ioWith(bufferBytes: number, fsCalls: FileSystem = nodeFs): ScanIo {
  return {
    fs: fsCalls,
    isUtf8,
    decoder: new TextDecoder("utf-8", { ignoreBOM: true }),
    buffer: Buffer.allocUnsafe(bufferBytes),
  };
}

/** The search before windows and prefilters: the whole file decoded (fatal), then matched. */
export function reference(
  bytes: Buffer,
  source: string,
  flags: string,
  limit: number,
  maxBytes = Infinity,
): ItemAnswer {
  if (bytes.length > maxBytes) return { matches: [], skipped: "too_large" };
  if (bytes.subarray(0, 8192).includes(0)) return { matches: [], skipped: "binary" };
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return { matches: [], skipped: "binary" };
  }
  return { matches: searchLines(text, source, flags, limit) };
}
