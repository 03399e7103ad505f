// One way to read a file that something named (a settings file, a recorded session, a journal,
// the trust list): never through a symbolic link out of the folder it must be in, a regular file
// only (a FIFO, a device or /dev/zero is refused, and opening never waits on a writer), at most
// `maxBytes`, and every failure a named refusal instead of a hang, a crash or a giant string.
// Synchronous on purpose: the files are small by the cap, and the settings loader is synchronous.
import { closeSync, constants, fstatSync, openSync, readSync, realpathSync } from "node:fs";
import path from "node:path";
import { errnoCode } from "../shared/errno.js";

export type BoundedRead =
  | { kind: "read"; text: string; real: string }
  | { kind: "absent" }
  | { kind: "refused"; message: string };

export interface BoundedReadOptions {
  /** The folder the file must really be in (its real path, links resolved); unset: anywhere. */
  within?: string;
  /** The most bytes read; a larger file is refused. */
  maxBytes: number;
  /** How messages name the file (default the path as given). */
  shown?: string;
}

// O_NONBLOCK: opening a FIFO for reading returns at once instead of waiting for a writer.
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0);

const errno = (error: unknown): string => errnoCode(error) ?? "";

export function isInside(folder: string, real: string): boolean {
  const rel = path.relative(folder, real);
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel));
}

/** Reads `file` within the bounds, as UTF-8 text (a BOM kept; the caller decides). */
export function readBoundedFile(file: string, options: BoundedReadOptions): BoundedRead {
  const shown = options.shown ?? file;
  let real: string;
  try {
    real = realpathSync(file);
  } catch (error) {
    const code = errno(error);
    if (code === "ENOENT" || code === "ENOTDIR") return { kind: "absent" };
    if (code === "ELOOP")
      return { kind: "refused", message: `${shown}: a loop of symbolic links; remove the link` };
    return { kind: "refused", message: `${shown}: cannot be read (${code || String(error)})` };
  }
  if (options.within !== undefined) {
    let folder: string;
    try {
      folder = realpathSync(options.within);
    } catch {
      folder = path.resolve(options.within);
    }
    if (!isInside(folder, real)) {
      return {
        kind: "refused",
        message: `${shown}: is a symbolic link to a file outside ${folder}; lockstep does not follow it (nothing was read)`,
      };
    }
  }
  let fd: number;
  try {
    fd = openSync(real, OPEN_FLAGS);
  } catch (error) {
    return { kind: "refused", message: `${shown}: cannot be read (${errno(error) || String(error)})` };
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) {
      const what = stats.isDirectory()
        ? "a directory"
        : stats.isFIFO()
          ? "a named pipe"
          : stats.isSocket()
            ? "a socket"
            : "a device";
      return {
        kind: "refused",
        message: `${shown}: is ${what}, not a regular file; lockstep reads regular files only (nothing was read)`,
      };
    }
    if (stats.size > options.maxBytes) return tooLarge(shown, stats.size, options.maxBytes);
    // The size a file reports can be wrong (/proc): read at most one byte past the cap to know.
    let buffer = Buffer.alloc(Math.min(options.maxBytes + 1, stats.size + 64 * 1024));
    let length = 0;
    for (;;) {
      if (length === buffer.length) {
        if (length > options.maxBytes) return tooLarge(shown, length, options.maxBytes);
        const bigger = Buffer.alloc(Math.min(options.maxBytes + 1, buffer.length * 2));
        buffer.copy(bigger);
        buffer = bigger;
      }
      const n = readSync(fd, buffer, length, buffer.length - length, null);
      if (n === 0) break;
      length += n;
    }
    return { kind: "read", text: buffer.subarray(0, length).toString("utf8"), real };
  } catch (error) {
    return { kind: "refused", message: `${shown}: cannot be read (${errno(error) || String(error)})` };
  } finally {
    closeSync(fd);
  }
}

function tooLarge(shown: string, size: number, max: number): BoundedRead {
  const at = size > max ? `over ${max.toLocaleString("en-US")} bytes` : `${size} bytes`;
  return {
    kind: "refused",
    message: `${shown}: is ${at}; the limit is ${max.toLocaleString("en-US")} bytes (nothing was used)`,
  };
}
