// Writing a file for paths the sandbox already resolved: atomically (a
// temporary file beside it, renamed over it), under a lock every lockstep
// process honours, and only while the file still holds what the change was
// computed on. Expected failures come back as Outcome values.
import { randomBytes } from "node:crypto";
import { constants, promises as fs } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import path from "node:path";
import lockfile from "proper-lockfile";
import { fail, succeed } from "../shared/outcome.js";
import type { Outcome } from "../shared/outcome.js";
import { DirectorySwapped, holdDirectory, type HeldDirectory } from "./pinned-directory.js";
import { ioFailure, isDirectory, notRegular } from "./disk-errors.js";
import { errnoCode } from "../shared/errno.js";
import { isProcessAlive } from "../shared/process-alive.js";

/**
 * What the file must hold for a write to go ahead: its text as the change was
 * computed on, or `null` for a file that must not exist yet. Checked under a
 * lock every lockstep process honours, and again just before the rename, so
 * of racing writers on one base exactly one lands.
 */
export type DiskBase = string | null;

/** How long a lock file may sit untouched before it counts as abandoned by a dead writer. */
const LOCK_STALE_MS = 10_000;

/**
 * Replaces `abs` with `content` (UTF-8) so that a reader sees either the old
 * file or the new one, never a mix: write a temporary file beside it, fsync,
 * rename over the target. Missing parent directories are created. The mode is
 * `options.mode` if given, else the existing file's, else the default for new
 * files. With `options.base`, the write takes the file's cross-process lock and
 * happens only while the file still holds that base. With `options.pinned` (`abs`
 * is a real path the sandbox checked), the write, the lock and any directory
 * made go through the directory's open handle (see holdDirectory). On failure
 * the temporary file is removed and the target is untouched.
 */
export async function writeTextFileAtomic(
  abs: string,
  content: string,
  options: { mode?: number; base?: DiskBase; pinned?: boolean } = {},
): Promise<Outcome<void>> {
  const dir = path.dirname(abs);
  let mode = options.mode;
  let missing = false;
  try {
    const stats = await fs.stat(abs);
    if (stats.isDirectory()) return isDirectory(abs);
    if (!stats.isFile()) return notRegular(abs);
    // Renaming over a read-only file would succeed; honour the file's protection instead.
    await fs.access(abs, constants.W_OK);
    mode ??= stats.mode & 0o7777;
  } catch (error) {
    if (errnoCode(error) !== "ENOENT") return ioFailure(error, abs, "write");
    missing = true;
  }
  let held: HeldDirectory;
  try {
    held = await holdDirectory(dir, { pin: options.pinned ?? false, create: missing });
  } catch (error) {
    if (error instanceof DirectorySwapped) return swapped(error.dir);
    return ioFailure(error, dir, missing ? "create the directory" : "write");
  }
  try {
    await removeAbandonedTemporaries(held.via);
    const target = path.join(held.via, path.basename(abs));
    if (options.base === undefined) return await writeInto(held.via, target, abs, content, mode, undefined);
    return await underLock(
      held.via,
      abs,
      () => writeInto(held.via, target, abs, content, mode, options.base),
      options.base,
    );
  } finally {
    await held.close();
  }
}

/** Runs `write` under the file's cross-process lock (in the held directory `at`), once the file still holds `base`. */
async function underLock(
  at: string,
  abs: string,
  write: () => Promise<Outcome<void>>,
  base: DiskBase,
): Promise<Outcome<void>> {
  const target = path.join(at, path.basename(abs));
  let release: () => Promise<void>;
  try {
    release = await takeLock(target, lockPath(at, abs));
  } catch (error) {
    if (errnoCode(error) === "ELOCKED") {
      return fail(
        "io_error",
        `Cannot write ${abs}: another lockstep process held its lock for over ${LOCK_WAIT_MS / 1000} s. Nothing was changed.`,
        [
          "Try again once the other write is done; a lock left by a process that died is taken over after 10 s.",
        ],
      );
    }
    return ioFailure(error, abs, "lock");
  }
  try {
    const changed = await baseChanged(target, base, abs);
    if (changed) return changed;
    return await write();
  } finally {
    await release().catch(() => undefined);
  }
}

/** How long a writer waits for another lockstep process's lock on the same file: past the stale time, so a dead writer's lock is always taken over. */
const LOCK_WAIT_MS = LOCK_STALE_MS + 2_000;

/**
 * The lock, retried while another writer holds it (ELOCKED) and for no other
 * error: a directory removed meanwhile fails at once instead of after every retry.
 */
export async function takeLock(target: string, lockfilePath: string): Promise<() => Promise<void>> {
  const deadline = performance.now() + LOCK_WAIT_MS;
  for (let pause = 5; ; pause = Math.min(pause * 2, 50)) {
    try {
      return await lockfile.lock(target, {
        realpath: false,
        lockfilePath,
        stale: LOCK_STALE_MS,
        // By default a lock found compromised throws from a timer and ends the process; the re-check before the rename still guards the write.
        onCompromised: () => undefined,
      });
    } catch (error) {
      if (errnoCode(error) !== "ELOCKED" || performance.now() + pause > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, pause * (0.5 + Math.random())));
    }
  }
}

function swapped(dir: string): Outcome<never> {
  return fail(
    "permission_denied",
    `${dir} changed while the file was being written (a symbolic link was put in its place). Nothing was written.`,
    ["Check the directory; if it is meant to be a link, give the path it leads to."],
  );
}

/** A failure when the file no longer holds `base` (another writer got there first), else undefined. */
async function baseChanged(abs: string, base: DiskBase, shown = abs): Promise<Outcome<never> | undefined> {
  let now: string | null;
  try {
    now = await fs.readFile(abs, "utf8");
  } catch (error) {
    if (errnoCode(error) !== "ENOENT") return ioFailure(error, shown, "read");
    now = null;
  }
  if (now === base) return undefined;
  return fail(
    "state_mismatch",
    `State Mismatch: ${shown} changed on disk while this change was being written (another program wrote it${base === null ? " or created it" : ""}). Nothing was applied.`,
    ["Read the file again and rebuild the change from its latest state."],
  );
}

/** The write itself, every path under `at` (the pinned directory); `shown` names the file in messages. */
async function writeInto(
  at: string,
  target: string,
  shown: string,
  content: string,
  mode: number | undefined,
  base: DiskBase | undefined,
): Promise<Outcome<void>> {
  const temp = path.join(at, path.basename(temporaryPath(shown)));
  let handle: FileHandle | undefined;
  try {
    handle = await fs.open(temp, "wx", mode ?? 0o666);
    await handle.writeFile(content, "utf8");
    // open() filters the mode through the umask; chmod sets the exact bits to keep.
    if (mode !== undefined) await handle.chmod(mode);
    await handle.sync();
    await handle.close();
    handle = undefined;
    // A writer that is not lockstep (an editor saving) does not take our lock: look once more, last thing.
    const changed = base === undefined ? undefined : await baseChanged(target, base, shown);
    if (changed) {
      await fs.rm(temp, { force: true }).catch(() => undefined);
      return changed;
    }
    await fs.rename(temp, target);
  } catch (error) {
    await handle?.close().catch(() => undefined);
    await fs.rm(temp, { force: true }).catch(() => undefined);
    return ioFailure(error, shown, "write");
  }
  await syncDirectory(at);
  return succeed(undefined);
}

/** A unique sibling of `abs`: same directory (so rename is atomic), hidden, length-bounded, naming its writer's PID. */
function temporaryPath(abs: string): string {
  const base = path.basename(abs).slice(0, 100);
  return path.join(
    path.dirname(abs),
    `.${base}.${process.pid}-${randomBytes(4).toString("hex")}${TEMP_SUFFIX}`,
  );
}

const TEMP_SUFFIX = ".lockstep-tmp";

/** The hidden lock beside `abs` (in its held directory `at`) that every lockstep process takes before writing it. */
export function lockPath(at: string, abs: string): string {
  return path.join(at, `.${path.basename(abs).slice(0, 100)}.lockstep-lock`);
}

/**
 * Temporary files left in `dir` by writers that died mid-write (their PID is
 * gone): removed by the next write there, so a killed write leaves nothing for long.
 */
async function removeAbandonedTemporaries(dir: string): Promise<void> {
  let names: string[];
  try {
    names = await fs.readdir(dir);
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.endsWith(TEMP_SUFFIX)) continue;
    const pid = Number(/\.(\d+)-[0-9a-f]{8}\.lockstep-tmp$/.exec(name)?.[1]);
    if (!Number.isInteger(pid) || isProcessAlive(pid)) continue;
    await fs.rm(path.join(dir, name), { force: true }).catch(() => undefined);
  }
}

/** Makes the rename itself durable. Best effort: some platforms cannot open a directory. */
export async function syncDirectory(dir: string): Promise<void> {
  let handle: FileHandle | undefined;
  try {
    handle = await fs.open(dir, "r");
    await handle.sync();
  } catch {
    // The data is already fsynced; only the directory entry's durability is at stake.
  } finally {
    await handle?.close().catch(() => undefined);
  }
}
