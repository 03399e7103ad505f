// The directory a write goes into, held open for the write's duration. On Linux
// it is named through /proc/self/fd of the open handle once its real path is
// checked, so paths under it reach that very directory: a symbolic link swapped
// in for it (or for a directory above it) after the sandbox's check cannot
// redirect the temporary file, the rename, the lock or a directory made on the
// way. Elsewhere the directory is used by its name (see ARCHITECTURE.md).
import { constants, promises as fs } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import path from "node:path";
import { errnoCode } from "../shared/errno.js";

export interface HeldDirectory {
  /** What paths under the directory start with: `/proc/self/fd/N`, or the directory's own path where it cannot be pinned. */
  via: string;
  close(): Promise<void>;
}

/** The directory's real path is no longer the one checked: a link was put in its place. */
export class DirectorySwapped extends Error {
  constructor(readonly dir: string) {
    super(`${dir} was replaced while a file was being written into it`);
  }
}

const OPEN_DIRECTORY = constants.O_RDONLY | (constants.O_DIRECTORY ?? 0);

/**
 * Holds `dir` (a real path the sandbox checked) for a write, making it and any
 * missing directory above it when `create` is set. With `pin` on a system that
 * names open handles under /proc/self/fd, each directory made is created and
 * opened through its parent's handle (never following a link), and the nearest
 * one that existed is checked by the real path of its handle. Throws Node's
 * errors for I/O failures and DirectorySwapped when a link was swapped in.
 */
export async function holdDirectory(
  dir: string,
  options: { pin: boolean; create: boolean },
): Promise<HeldDirectory> {
  if (!options.pin || !(await procAvailable())) {
    if (options.create) await fs.mkdir(dir, { recursive: true });
    return { via: dir, close: async () => undefined };
  }
  const missing: string[] = [];
  let existing = dir;
  while (options.create && !(await isDirectory(existing))) {
    const parent = path.dirname(existing);
    if (parent === existing) break;
    missing.unshift(path.basename(existing));
    existing = parent;
  }
  let held = await pin(existing);
  try {
    for (const name of missing) {
      const next = path.join(held.via, name);
      await fs.mkdir(next).catch((error: unknown) => {
        if (errnoCode(error) !== "EEXIST") throw error;
      });
      let handle: FileHandle;
      try {
        handle = await fs.open(next, OPEN_DIRECTORY | constants.O_NOFOLLOW);
      } catch (error) {
        // O_NOFOLLOW meets a link where the directory was just made.
        if (errnoCode(error) === "ELOOP") throw new DirectorySwapped(path.join(existing, name));
        throw error;
      }
      await held.close();
      held = hold(handle);
    }
  } catch (error) {
    await held.close();
    throw error;
  }
  return held;
}

/** `dir` opened, its handle's real path checked to be `dir`. */
async function pin(dir: string): Promise<HeldDirectory> {
  const held = hold(await fs.open(dir, OPEN_DIRECTORY));
  try {
    if ((await fs.realpath(held.via)) !== dir) throw new DirectorySwapped(dir);
  } catch (error) {
    await held.close();
    throw error;
  }
  return held;
}

function hold(handle: FileHandle): HeldDirectory {
  return { via: `/proc/self/fd/${handle.fd}`, close: () => handle.close().catch(() => undefined) };
}

/** Whether `p` is a directory now; false when it does not exist (other failures are thrown). */
async function isDirectory(p: string): Promise<boolean> {
  try {
    return (await fs.stat(p)).isDirectory();
  } catch (error) {
    if (errnoCode(error) === "ENOENT") return false;
    throw error;
  }
}

let proc: Promise<boolean> | undefined;

/** Whether this system names open handles under /proc/self/fd (Linux; checked once). */
function procAvailable(): Promise<boolean> {
  proc ??=
    process.platform === "linux"
      ? fs.access("/proc/self/fd").then(
          () => true,
          () => false,
        )
      : Promise.resolve(false);
  return proc;
}
