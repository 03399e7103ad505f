// Several files written to disk as one change: all of them or none, also when
// the process dies half-way. A journal (batch-journal.ts: in lockstep's state
// directory, never the working tree) names every temporary file and every target's
// sha256 before and after, before one is written ("staging"); every new text is
// written beside its target; then the journal is marked committed (the point of no
// return); then the renames run. The next real write reads a dead process's journal:
// staging, its temporary files are removed (roll back, every file as it was);
// committed, the renames are finished (roll forward) for the files that still hold
// what the journal expects, and any other file is kept and named.
// Between the kill and that next run the files are a mix of old and new, each
// file whole: rename is atomic per file, not across files.
import { constants, promises as fs } from "node:fs";
import path from "node:path";
import { fail, succeed, type Outcome } from "../shared/outcome.js";
import {
  journalFolder,
  newJournalPath,
  recoverBatches,
  removeIfThere,
  sha256,
  tempFor,
  writeJournal,
  type Journal,
  type JournalEntry,
} from "./batch-journal.js";
import { ioFailure, lockPath, syncDirectory, takeLock } from "./disk.js";
import { DirectorySwapped, holdDirectory, type HeldDirectory } from "./pinned-directory.js";
import { errnoCode } from "../shared/errno.js";

export { recoverBatches };

export interface BatchFile {
  /** Real absolute path the sandbox checked. */
  abs: string;
  /** What the file must hold now (`null`: it must not exist). */
  before: string | null;
  /** What it holds after (`null`: it is deleted). */
  after: string | null;
}

/**
 * Finishes what a committed journal names: every staged rename that has not happened, every
 * delete. `via` names a path through its held directory (the writer's own run).
 */
async function rollForward(
  journalPath: string,
  entries: readonly JournalEntry[],
  via: (abs: string) => string,
): Promise<void> {
  const dirs = new Set<string>();
  for (const e of entries) {
    if (e.temp === null) await removeIfThere(via(e.target));
    else {
      try {
        await fs.rename(via(e.temp), via(e.target));
      } catch (error) {
        if (errnoCode(error) !== "ENOENT") throw error;
      }
    }
    dirs.add(path.dirname(e.target));
  }
  for (const d of dirs) await syncDirectory(d);
  await fs.rm(journalPath);
}

/**
 * Lets other requests in once the thread has worked this long without a pause: hashing a
 * thousand files' texts in one go held the server's every other request for tens of ms.
 */
const SLICE_MS = 8;
function timeSlice(): () => Promise<void> {
  let since = performance.now();
  return async () => {
    if (performance.now() - since < SLICE_MS) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
    since = performance.now();
  };
}

async function holds(abs: string, expected: string | null): Promise<boolean> {
  // `abs` may be a path through a held directory: still the file the sandbox checked.
  try {
    return (await fs.readFile(abs, "utf8")) === expected;
  } catch (error) {
    if (errnoCode(error) === "ENOENT") return expected === null;
    throw error;
  }
}

async function stage(file: BatchFile, temp: string, target: string): Promise<void> {
  let mode: number | undefined;
  try {
    mode = (await fs.stat(target)).mode & 0o7777;
  } catch {
    mode = undefined;
  }
  const handle = await fs.open(temp, "wx", mode ?? 0o666);
  try {
    await handle.writeFile(file.after!, "utf8");
    if (mode !== undefined) await handle.chmod(mode);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

export interface BatchOptions {
  /** Where the root's journals go (default: its folder in lockstep's state directory). */
  journals?: string;
  /** Told what recovering an earlier interrupted change kept or refused. */
  note?: (message: string) => void;
}

/**
 * Writes every file or none. `root` is the workspace root all the files are under; its
 * journals live in lockstep's state directory. Every target is locked the way single-file
 * writes lock it, so other lockstep processes wait; every base is checked under the locks
 * and once more just before the commit.
 */
export async function writeBatch(
  root: string,
  files: readonly BatchFile[],
  options: BatchOptions = {},
): Promise<Outcome<void>> {
  const realRoot = await fs.realpath(root);
  const folder = options.journals ?? journalFolder(realRoot);
  const recovered = await recoverBatches(realRoot, folder);
  for (const note of recovered.notes)
    (options.note ?? ((m: string) => process.stderr.write(`lockstep: ${m}\n`)))(note);
  const sorted = [...files].sort((a, b) => (a.abs < b.abs ? -1 : a.abs > b.abs ? 1 : 0));
  const releases: (() => Promise<void>)[] = [];
  // Every directory is held open and every path below it named through the handle (see pinned-directory.ts).
  const held = new Map<string, HeldDirectory>();
  const via = (abs: string): string => {
    const h = held.get(path.dirname(abs));
    return h ? path.join(h.via, path.basename(abs)) : abs;
  };
  const temps: string[] = [];
  let committed = false;
  let journalPath: string | undefined;
  try {
    for (const f of sorted) {
      const dir = path.dirname(f.abs);
      if (!held.has(dir)) held.set(dir, await holdDirectory(dir, { pin: true, create: f.after !== null }));
      await fs.access(held.get(dir)!.via, constants.W_OK);
      releases.push(await takeLock(via(f.abs), lockPath(held.get(dir)!.via, f.abs)));
    }
    const changed = async (): Promise<Outcome<never> | undefined> => {
      for (const f of sorted) {
        if (!(await holds(via(f.abs), f.before))) {
          return fail(
            "state_mismatch",
            `State Mismatch: ${f.abs} changed on disk while the change was being written (another program wrote it). Nothing was applied.`,
            ["Read the files again and rebuild the change from their latest state."],
          );
        }
      }
      return undefined;
    };
    const first = await changed();
    if (first) return first;
    const { file: journal, token } = newJournalPath(folder);
    const entries: JournalEntry[] = [];
    const slice = timeSlice();
    for (const f of sorted) {
      entries.push({
        target: f.abs,
        temp: f.after === null ? null : tempFor(f.abs),
        before: f.before === null ? null : sha256(f.before),
        after: f.after === null ? null : sha256(f.after),
      });
      await slice();
    }
    const record = (state: Journal["state"]): Journal => ({
      version: 2,
      token,
      pid: process.pid,
      root: realRoot,
      state,
      entries,
    });
    // Named before written: a kill from here on leaves a journal that says which temporary files to remove.
    await writeJournal(journal, record("staging"));
    journalPath = journal;
    for (let i = 0; i < sorted.length; i++) {
      const temp = entries[i]!.temp;
      if (temp === null) continue;
      temps.push(temp);
      await stage(sorted[i]!, via(temp), via(sorted[i]!.abs));
    }
    // A writer that is not lockstep does not take our locks: look once more, last thing before the commit.
    const late = await changed();
    if (late) return late;
    await writeJournal(journal, record("committed"));
    committed = true;
    await rollForward(journal, entries, via);
    return succeed(undefined);
  } catch (error) {
    if (committed) {
      return fail(
        "io_error",
        `I/O error after the change was committed: ${error instanceof Error ? error.message : String(error)}. The next lockstep apply-patch in this folder finishes it.`,
        ["Run the command again (any apply-patch); it completes the interrupted change first."],
      );
    }
    if (error instanceof DirectorySwapped) {
      return fail(
        "permission_denied",
        `${error.dir} changed while the change was being written (a symbolic link was put in its place). Nothing was written.`,
        ["Check the directory; if it is meant to be a link, give the path it leads to."],
      );
    }
    return ioFailure(error, sorted[0]?.abs ?? root, "write");
  } finally {
    if (!committed) {
      for (const t of temps) await removeIfThere(t);
      if (journalPath !== undefined) await removeIfThere(journalPath);
    }
    for (const release of releases) await release().catch(() => undefined);
    for (const h of held.values()) await h.close();
  }
}
