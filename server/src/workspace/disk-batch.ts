// Several files written to disk as one change: all of them or none, also when
// the process dies half-way. Every new text is written to a temporary file
// beside its target first; then a journal naming every rename is committed (the
// point of no return); then the renames run. A process killed before the commit
// leaves every file as it was (its temporary files are swept later); killed
// after it, the next run finishes the renames from the journal (roll forward).
// Between the kill and that next run the files are a mix of old and new, each
// file whole: rename is atomic per file, not across files.
import { randomBytes } from "node:crypto";
import { constants, promises as fs } from "node:fs";
import path from "node:path";
import { fail, succeed, type Outcome } from "../edit/shared/outcome.js";
import { errnoCode, ioFailure, lockPath, syncDirectory, takeLock } from "./disk.js";

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

const JOURNAL = /^\.lockstep-batch\.(\d+)-[0-9a-f]{8}\.json$/;
const TEMP_SUFFIX = ".lockstep-batch";

function alive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return errnoCode(error) === "EPERM";
  }
}

async function removeIfThere(file: string): Promise<void> {
  await fs.rm(file, { force: true }).catch(() => undefined);
}

/** Finishes what a journal names: every staged rename that has not happened, every delete. */
async function rollForward(journalPath: string): Promise<void> {
  const entries = (JSON.parse(await fs.readFile(journalPath, "utf8")) as { entries: JournalEntry[] }).entries;
  const dirs = new Set<string>();
  for (const e of entries) {
    if (e.temp === null) await removeIfThere(e.target);
    else {
      try {
        await fs.rename(e.temp, e.target);
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
    if (!m || alive(Number(m[1]))) continue;
    await rollForward(path.join(root, name));
    done++;
  }
  return done;
}

/** Temporary files a dead process staged and never committed (its journal, if any, was rolled forward first). */
async function sweepStaged(dirs: Iterable<string>): Promise<void> {
  for (const dir of dirs) {
    const names = await fs.readdir(dir).catch(() => [] as string[]);
    for (const name of names) {
      const pid = /\.(\d+)-[0-9a-f]{8}\.lockstep-batch$/.exec(name)?.[1];
      if (pid !== undefined && !alive(Number(pid))) await removeIfThere(path.join(dir, name));
    }
  }
}

function tempFor(abs: string): string {
  return path.join(path.dirname(abs), `.${path.basename(abs).slice(0, 100)}.${process.pid}-${randomBytes(4).toString("hex")}${TEMP_SUFFIX}`);
}

async function holds(abs: string, expected: string | null): Promise<boolean> {
  try {
    return (await fs.readFile(abs, "utf8")) === expected;
  } catch (error) {
    if (errnoCode(error) === "ENOENT") return expected === null;
    throw error;
  }
}

async function stage(file: BatchFile): Promise<string> {
  const temp = tempFor(file.abs);
  let mode: number | undefined;
  try {
    mode = (await fs.stat(file.abs)).mode & 0o7777;
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
  return temp;
}

/**
 * Writes every file or none. `root` holds the journal (a workspace root all the
 * files are under). Every target is locked the way single-file writes lock it,
 * so other lockstep processes wait; every base is checked under the locks and
 * once more just before the commit.
 */
export async function writeBatch(root: string, files: readonly BatchFile[]): Promise<Outcome<void>> {
  await recoverBatches(root);
  await sweepStaged(new Set(files.map((f) => path.dirname(f.abs))));
  const sorted = [...files].sort((a, b) => (a.abs < b.abs ? -1 : a.abs > b.abs ? 1 : 0));
  const releases: (() => Promise<void>)[] = [];
  const temps: string[] = [];
  let committed = false;
  try {
    for (const f of sorted) {
      if (f.after !== null) await fs.mkdir(path.dirname(f.abs), { recursive: true });
      else await fs.access(path.dirname(f.abs), constants.W_OK);
      releases.push(await takeLock(f.abs, lockPath(path.dirname(f.abs), f.abs)));
    }
    const changed = async (): Promise<Outcome<never> | undefined> => {
      for (const f of sorted) {
        if (!(await holds(f.abs, f.before))) {
          return fail("state_mismatch", `State Mismatch: ${f.abs} changed on disk while the change was being written (another program wrote it). Nothing was applied.`, [
            "Read the files again and rebuild the change from their latest state.",
          ]);
        }
      }
      return undefined;
    };
    const first = await changed();
    if (first) return first;
    const entries: JournalEntry[] = [];
    for (const f of sorted) {
      const temp = f.after === null ? null : await stage(f);
      if (temp !== null) temps.push(temp);
      entries.push({ target: f.abs, temp });
    }
    // A writer that is not lockstep does not take our locks: look once more, last thing before the commit.
    const late = await changed();
    if (late) return late;
    const journal = path.join(root, `.lockstep-batch.${process.pid}-${randomBytes(4).toString("hex")}.json`);
    const journalTemp = journal + ".tmp";
    await fs.writeFile(journalTemp, JSON.stringify({ version: 1, entries }), { flag: "wx" });
    const handle = await fs.open(journalTemp, "r");
    await handle.sync();
    await handle.close();
    await fs.rename(journalTemp, journal);
    await syncDirectory(root);
    committed = true;
    await rollForward(journal);
    return succeed(undefined);
  } catch (error) {
    if (committed) {
      return fail("io_error", `I/O error after the change was committed: ${error instanceof Error ? error.message : String(error)}. The next lockstep apply-patch in this folder finishes it.`, [
        "Run the command again (any apply-patch); it completes the interrupted change first.",
      ]);
    }
    return ioFailure(error, sorted[0]?.abs ?? root, "write");
  } finally {
    if (!committed) for (const t of temps) await removeIfThere(t);
    for (const release of releases) await release().catch(() => undefined);
  }
}
