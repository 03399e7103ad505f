// Several files written to disk as one change: all of them or none, also when
// the process dies half-way. A journal in the root names every temporary file
// before one is written ("staging"); every new text is written beside its
// target; then the journal is marked committed (the point of no return); then
// the renames run. The next run reads a dead process's journal: staging, its
// temporary files are removed (roll back, every file as it was); committed, the
// renames are finished (roll forward).
// Between the kill and that next run the files are a mix of old and new, each
// file whole: rename is atomic per file, not across files.
import { randomBytes } from "node:crypto";
import { constants, promises as fs } from "node:fs";
import path from "node:path";
import { fail, succeed, type Outcome } from "../shared/outcome.js";
import { ioFailure, lockPath, syncDirectory, takeLock } from "./disk.js";
import { DirectorySwapped, holdDirectory, type HeldDirectory } from "./pinned-directory.js";
import { isProcessAlive } from "../shared/process-alive.js";
import { errnoCode } from "../shared/errno.js";

export interface BatchFile {
  /** Real absolute path the sandbox checked. */
  abs: string;
  /** What the file must hold now (`null`: it must not exist). */
  before: string | null;
  /** What it holds after (`null`: it is deleted). */
  after: string | null;
}

interface JournalEntry {
  target: string;
  /** The staged text's temporary file; null: the target is deleted. */
  temp: string | null;
}

const JOURNAL = /^\.lockstep-batch\.(\d+)-[0-9a-f]{8}\.json(\.tmp)?$/;
const TEMP_SUFFIX = ".lockstep-batch";

async function removeIfThere(file: string): Promise<void> {
  await fs.rm(file, { force: true }).catch(() => undefined);
}

interface Journal {
  version: 1;
  state: "staging" | "committed";
  entries: JournalEntry[];
}

/** Replaces the journal's content in one step (write beside it, sync, rename). */
async function writeJournal(file: string, journal: Journal): Promise<void> {
  const temp = file + ".tmp";
  const handle = await fs.open(temp, "w");
  try {
    await handle.writeFile(JSON.stringify(journal), "utf8");
    await handle.sync();
  } finally {
    await handle.close();
  }
  await fs.rename(temp, file);
  await syncDirectory(path.dirname(file));
}

/** Ends what a dead (or this) process's journal began: a staging one is undone, a committed one finished. */
async function settleJournal(journalPath: string): Promise<void> {
  let journal: Journal;
  try {
    journal = JSON.parse(await fs.readFile(journalPath, "utf8")) as Journal;
  } catch {
    // Torn before its first rename: nothing was staged under it.
    await removeIfThere(journalPath);
    return;
  }
  if (journal.state === "staging") {
    for (const e of journal.entries) if (e.temp !== null) await removeIfThere(e.temp);
    await fs.rm(journalPath);
    return;
  }
  await rollForward(journalPath, journal.entries);
}

/**
 * Finishes what a committed journal names: every staged rename that has not happened, every
 * delete. `via` names a path through its held directory (the writer's own run); after a kill,
 * the next run goes by name.
 */
async function rollForward(journalPath: string, entries: readonly JournalEntry[], via: (abs: string) => string = (abs) => abs): Promise<void> {
  const dirs = new Set<string>();
  for (const e of entries) {
    if (e.temp === null) await removeIfThere(via(e.target));
    else {
      try {
        await fs.rename(via(e.temp), via(e.target));
      } catch (error) {
        // Renamed before the process died: nothing left to do for this one.
        if (errnoCode(error) !== "ENOENT") throw error;
      }
    }
    dirs.add(path.dirname(e.target));
  }
  for (const d of dirs) await syncDirectory(d);
  await fs.rm(journalPath);
}

/**
 * Completes the batches of processes that died after their commit, in `root`.
 * Returns how many were completed. Safe to call at any time: a live process's
 * journal is left to it.
 */
export async function recoverBatches(root: string): Promise<number> {
  let names: string[];
  try {
    names = await fs.readdir(root);
  } catch {
    return 0;
  }
  let done = 0;
  for (const name of names) {
    const m = JOURNAL.exec(name);
    if (!m || isProcessAlive(Number(m[1]))) continue;
    // A journal's next content, killed before its rename: the rename is the step, so it never happened.
    if (m[2] !== undefined) await removeIfThere(path.join(root, name));
    else await settleJournal(path.join(root, name));
    done++;
  }
  return done;
}

function tempFor(abs: string): string {
  return path.join(path.dirname(abs), `.${path.basename(abs).slice(0, 100)}.${process.pid}-${randomBytes(4).toString("hex")}${TEMP_SUFFIX}`);
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

/**
 * Writes every file or none. `root` holds the journal (a workspace root all the
 * files are under). Every target is locked the way single-file writes lock it,
 * so other lockstep processes wait; every base is checked under the locks and
 * once more just before the commit.
 */
export async function writeBatch(root: string, files: readonly BatchFile[]): Promise<Outcome<void>> {
  await recoverBatches(root);
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
          return fail("state_mismatch", `State Mismatch: ${f.abs} changed on disk while the change was being written (another program wrote it). Nothing was applied.`, [
            "Read the files again and rebuild the change from their latest state.",
          ]);
        }
      }
      return undefined;
    };
    const first = await changed();
    if (first) return first;
    const journal = path.join(root, `.lockstep-batch.${process.pid}-${randomBytes(4).toString("hex")}.json`);
    const entries: JournalEntry[] = sorted.map((f) => ({ target: f.abs, temp: f.after === null ? null : tempFor(f.abs) }));
    // Named before written: a kill from here on leaves a journal that says which temporary files to remove.
    await writeJournal(journal, { version: 1, state: "staging", entries });
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
    await writeJournal(journal, { version: 1, state: "committed", entries });
    committed = true;
    await rollForward(journal, entries, via);
    return succeed(undefined);
  } catch (error) {
    if (committed) {
      return fail("io_error", `I/O error after the change was committed: ${error instanceof Error ? error.message : String(error)}. The next lockstep apply-patch in this folder finishes it.`, [
        "Run the command again (any apply-patch); it completes the interrupted change first.",
      ]);
    }
    if (error instanceof DirectorySwapped) {
      return fail("permission_denied", `${error.dir} changed while the change was being written (a symbolic link was put in its place). Nothing was written.`, [
        "Check the directory; if it is meant to be a link, give the path it leads to.",
      ]);
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
