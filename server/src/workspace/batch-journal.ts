// The journal of a change across files (disk-batch.ts), and what the next run does with one
// a killed process left. Journals live in lockstep's state directory, in a folder per root
// (keyed by the root's real path), never in the working tree: a journal committed to a
// repository is never read. Each is named by the writer's pid and a random token, which the
// journal repeats, and it records every target's sha256 before and after. Recovery trusts
// none of it blindly: every target is resolved through the sandbox (inside the root, no
// link, never under .git/), every temporary file must be the one lockstep names beside its
// target, and a file is renamed or deleted only while it still holds the text the journal
// expects; any other file is left as it is and the conflict said.
import { createHash, randomBytes } from "node:crypto";
import { promises as fs } from "node:fs";
import path from "node:path";
import { readBoundedFile } from "../config/bounded-read.js";
import { errnoCode } from "../shared/errno.js";
import { syncDirectory } from "./disk.js";
import { Sandbox } from "./sandbox.js";
import { lockstepStateDir } from "../config/state-dir.js";

export interface JournalEntry {
  target: string;
  /** The staged text's temporary file; null: the target is deleted. */
  temp: string | null;
  /** sha256 of what the target held before (null: it did not exist) and after (null: deleted). */
  before: string | null;
  after: string | null;
}

export interface Journal {
  version: 2;
  token: string;
  pid: number;
  root: string;
  state: "staging" | "committed";
  entries: JournalEntry[];
}

export interface Recovery {
  /** Journals settled (rolled back or forward). */
  settled: number;
  /** What a person should know: conflicts kept, journals refused. */
  notes: string[];
}

/** A journal names each file twice and two hashes: far below this for any change lockstep takes. */
const JOURNAL_MAX_BYTES = 64 * 1024 * 1024;
const NAME = /^(\d+)-([0-9a-f]{32})\.json(\.tmp)?$/;
export const TEMP_SUFFIX = ".lockstep-batch";
const TEMP_NAME = /^\.(.*)\.\d+-[0-9a-f]{8}\.lockstep-batch$/s;

export const sha256 = (text: string): string => createHash("sha256").update(text, "utf8").digest("hex");

/** The folder of a root's journals: <state>/batches/<name>-<hash of the real root>, made 0700. */
export function journalFolder(realRoot: string, env: NodeJS.ProcessEnv = process.env): string {
  const name =
    path
      .basename(realRoot)
      .replace(/[^A-Za-z0-9._-]/g, "_")
      .slice(0, 40) || "root";
  return path.join(lockstepStateDir(env), "batches", `${name}-${sha256(realRoot).slice(0, 16)}`);
}

export function newJournalPath(folder: string): { file: string; token: string } {
  const token = randomBytes(16).toString("hex");
  return { file: path.join(folder, `${process.pid}-${token}.json`), token };
}

export function tempFor(abs: string): string {
  return path.join(
    path.dirname(abs),
    `.${path.basename(abs).slice(0, 100)}.${process.pid}-${randomBytes(4).toString("hex")}${TEMP_SUFFIX}`,
  );
}

/** Replaces the journal's content in one step (write beside it, sync, rename). */
export async function writeJournal(file: string, journal: Journal): Promise<void> {
  await fs.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  const temp = file + ".tmp";
  const handle = await fs.open(temp, "w", 0o600);
  try {
    await handle.writeFile(JSON.stringify(journal), "utf8");
    await handle.sync();
  } finally {
    await handle.close();
  }
  await fs.rename(temp, file);
  await syncDirectory(path.dirname(file));
}

export async function removeIfThere(file: string): Promise<void> {
  await fs.rm(file, { force: true }).catch(() => undefined);
}

function alive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return errnoCode(error) === "EPERM";
  }
}

/** sha256 of a regular file's text; null when there is none; "other" for anything else there. */
async function hashOf(abs: string): Promise<string | null> {
  try {
    const stats = await fs.lstat(abs);
    if (!stats.isFile()) return "other";
    return sha256(await fs.readFile(abs, "utf8"));
  } catch (error) {
    if (errnoCode(error) === "ENOENT") return null;
    throw error;
  }
}

const isSha = (v: unknown): v is string | null =>
  v === null || (typeof v === "string" && /^[0-9a-f]{64}$/.test(v));

/** Why a journal cannot be followed, or undefined when every entry is what lockstep would have written. */
async function refusal(
  journal: Journal,
  token: string,
  pid: number,
  root: string,
): Promise<string | undefined> {
  if (journal.version !== 2 || journal.token !== token || journal.pid !== pid || journal.root !== root)
    return "it is not one lockstep wrote for this folder";
  if (journal.state !== "staging" && journal.state !== "committed") return "its state is unknown";
  if (!Array.isArray(journal.entries)) return "it names no files";
  const sandbox = await Sandbox.create([root]);
  for (const e of journal.entries) {
    if (typeof e.target !== "string" || !path.isAbsolute(e.target) || !isSha(e.before) || !isSha(e.after))
      return "an entry is malformed";
    const resolved = await sandbox.resolve(e.target, "write");
    if (!resolved.ok) return `it names ${e.target}: ${resolved.error.message}`;
    if (resolved.value.abs !== e.target)
      return `it names ${e.target}, which is reached through a symbolic link`;
    if (e.temp !== null) {
      const m = typeof e.temp === "string" ? TEMP_NAME.exec(path.basename(e.temp)) : null;
      if (
        !m ||
        path.dirname(e.temp) !== path.dirname(e.target) ||
        m[1] !== path.basename(e.target).slice(0, 100)
      )
        return `its temporary file for ${e.target} is not one lockstep names`;
      if (e.after === null) return "an entry is malformed";
    } else if (e.after !== null) return "an entry is malformed";
  }
  return undefined;
}

/** Undoes a staging journal (its temporary files go) or finishes a committed one, file by file. */
async function settle(journal: Journal, notes: string[]): Promise<void> {
  const rel = (abs: string): string => path.relative(journal.root, abs);
  if (journal.state === "staging") {
    for (const e of journal.entries) if (e.temp !== null) await removeIfThere(e.temp);
    return;
  }
  const dirs = new Set<string>();
  for (const e of journal.entries) {
    const now = await hashOf(e.target);
    dirs.add(path.dirname(e.target));
    if (now === e.after) {
      if (e.temp !== null) await removeIfThere(e.temp);
      continue;
    }
    if (now !== e.before) {
      if (e.temp !== null) await removeIfThere(e.temp);
      notes.push(
        `${rel(e.target)}: changed since the interrupted change was made; kept as it is (that change's part for this file was not applied)`,
      );
      continue;
    }
    if (e.temp === null) {
      await removeIfThere(e.target);
      continue;
    }
    if ((await hashOf(e.temp)) !== e.after) {
      await removeIfThere(e.temp);
      notes.push(
        `${rel(e.target)}: the interrupted change's new text for it is missing or damaged; the file is kept as it was before that change`,
      );
      continue;
    }
    await fs.rename(e.temp, e.target);
  }
  for (const d of dirs) await syncDirectory(d).catch(() => undefined);
}

/**
 * Settles the journals of processes that died in a change across files under `root`, from the
 * journal folder (never the working tree). A live process's journal is left to it. Only a
 * real write calls this: a dry run recovers nothing.
 */
export async function recoverBatches(root: string, folder?: string): Promise<Recovery> {
  const realRoot = await fs.realpath(root);
  const dir = folder ?? journalFolder(realRoot);
  const report: Recovery = { settled: 0, notes: [] };
  let names: string[];
  try {
    names = await fs.readdir(dir);
  } catch {
    return report;
  }
  for (const name of names) {
    const m = NAME.exec(name);
    if (!m || alive(Number(m[1]))) continue;
    const file = path.join(dir, name);
    // A journal's next content, killed before its rename: the rename is the step, so it never happened.
    if (m[3] !== undefined) {
      await removeIfThere(file);
      continue;
    }
    let journal: Journal;
    try {
      const read = readBoundedFile(file, { maxBytes: JOURNAL_MAX_BYTES, within: dir });
      if (read.kind !== "read") throw new Error(read.kind === "refused" ? read.message : "gone");
      journal = JSON.parse(read.text) as Journal;
    } catch {
      await removeIfThere(file); // torn before its first rename: nothing was staged under it
      continue;
    }
    const refused = await refusal(journal, m[2]!, Number(m[1]), realRoot);
    if (refused !== undefined) {
      report.notes.push(
        `an interrupted change's journal (${file}) was not followed: ${refused}; it was removed and no file was touched`,
      );
    } else {
      await settle(journal, report.notes);
      report.settled++;
    }
    await removeIfThere(file);
  }
  return report;
}
