// Disk I/O for paths the sandbox already resolved: read text, write atomically,
// list a directory. Expected failures come back as Outcome values whose message
// names the path and the next step; nothing here throws for a bad file.
import { constants, promises as fs } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import { fail, succeed } from "../shared/outcome.js";
import type { Outcome } from "../shared/outcome.js";
import { decodeUtf8, looksBinary } from "../edit/shared/text.js";
import { compareNames } from "./suggest.js";
import { ioFailure, isDirectory, notRegular } from "./disk-errors.js";

export { ioFailure } from "./disk-errors.js";
export { lockPath, syncDirectory, takeLock, writeTextFileAtomic, type DiskBase } from "./disk-write.js";

/** Files larger than this are refused: a model cannot use them and hashing them stalls the server. */
export const MAX_FILE_BYTES = 64 * 1024 * 1024;

export interface DiskText {
  content: string;
  /** Permission bits (`st_mode & 0o7777`), so a rewrite can keep them. */
  mode: number;
}

export type EntryType = "file" | "directory" | "symlink" | "other";

export interface DirectoryEntry {
  name: string;
  type: EntryType;
}

// Opening a FIFO for reading blocks until a writer appears; non-blocking open
// returns at once and the type check below refuses it. No effect on regular files.
const READ_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

export async function readTextFile(abs: string): Promise<Outcome<DiskText>> {
  let handle: FileHandle | undefined;
  try {
    handle = await fs.open(abs, READ_FLAGS);
    const stats = await handle.stat();
    if (stats.isDirectory()) return isDirectory(abs);
    if (!stats.isFile()) return notRegular(abs);
    if (stats.size > MAX_FILE_BYTES) return tooLarge(abs, stats.size);
    const bytes = await readWhole(handle, stats.size);
    // The file may have grown since the stat.
    if (bytes.length > MAX_FILE_BYTES) return tooLarge(abs, bytes.length);
    if (looksBinary(bytes)) {
      return fail(
        "binary_file",
        `${abs} looks like a binary file (it has a NUL byte in its first 8 KB). lockstep reads and edits text files only; leave this file alone or change it with a tool made for its format.`,
      );
    }
    const content = decodeUtf8(bytes);
    if (content === undefined) {
      return fail(
        "binary_file",
        `${abs} is not valid UTF-8 text (it may be binary or in another encoding such as Latin-1 or UTF-16). lockstep reads and edits UTF-8 text only; convert the file to UTF-8 first if it is meant to be edited.`,
      );
    }
    return succeed({ content, mode: stats.mode & 0o7777 });
  } catch (error) {
    return ioFailure(error, abs, "read");
  } finally {
    await handle?.close().catch(() => undefined);
  }
}

/**
 * The file's bytes in one read when its size is as stat said (the common case:
 * a model reads many small files, and each read is a trip to the thread pool);
 * a file that grew meanwhile is read again whole.
 */
async function readWhole(handle: FileHandle, size: number): Promise<Buffer> {
  const buffer = Buffer.allocUnsafe(size + 1);
  let filled = 0;
  for (;;) {
    const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, filled);
    if (bytesRead === 0) return buffer.subarray(0, filled);
    filled += bytesRead;
    if (filled > size) return handle.readFile();
  }
}

/** The entries of a directory: directories first, then by name in code-unit order. */
export async function listDirectory(abs: string): Promise<Outcome<DirectoryEntry[]>> {
  try {
    const dirents = await fs.readdir(abs, { withFileTypes: true });
    const entries = dirents.map(
      (d): DirectoryEntry => ({
        name: d.name,
        type: d.isDirectory() ? "directory" : d.isFile() ? "file" : d.isSymbolicLink() ? "symlink" : "other",
      }),
    );
    const rank = (e: DirectoryEntry) => (e.type === "directory" ? 0 : 1);
    return succeed(entries.sort((a, b) => rank(a) - rank(b) || compareNames(a.name, b.name)));
  } catch (error) {
    return ioFailure(error, abs, "list");
  }
}

function tooLarge(abs: string, size: number): Outcome<never> {
  return fail(
    "invalid_argument",
    `${abs} is ${formatBytes(size)}, over the ${formatBytes(MAX_FILE_BYTES)} limit for files lockstep reads. Work on a smaller file, or ask the user to change this one another way.`,
  );
}

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  const mib = bytes / (1024 * 1024);
  if (mib < 1) return `${(bytes / 1024).toFixed(1)} KiB (${bytes} bytes)`;
  return `${Number.isInteger(mib) ? mib : mib.toFixed(1)} MiB (${bytes} bytes)`;
}
