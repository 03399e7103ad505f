// A session file's one writer: `<id>.lock` holds the writer's pid and a random token. It is
// created whole (written beside it, then hard-linked into place: a link fails when the name is
// taken), so no reader sees it empty. A lock whose process is gone is taken over, and only by
// one taker: the right to remove a stale lock is itself a file created exclusively, named by a
// hash of the stale lock's content (`<id>.lock.reap-<hash>`). The one taker that creates it
// removes the lock if it still holds that content, then competes for the name like everyone.
// Checking "stale" and then removing by name, as this did before, let a second taker that had
// seen the same stale lock remove the first one's fresh lock and take it too: two writers.
// A reap file whose own taker died is passed over the same way, one level down (its name
// hashed with its content), so a crash mid-takeover never blocks the session.
// The lock files are input too: read through a bounded, non-following read.
import { createHash, randomBytes } from "node:crypto";
import { closeSync, constants, linkSync, openSync, readSync, unlinkSync, writeFileSync } from "node:fs";
import { errnoCode } from "../shared/errno.js";
import { isProcessAlive } from "../shared/process-alive.js";

export class SessionBusy extends Error {}

export const lockOf = (file: string): string => file.replace(/\.jsonl$/, ".lock");

/** The session files this process writes: a second writer here is refused as one in another process is. */
export const held = new Set<string>();

/** Who takes a lock: its pid, and how it judges another pid alive (a test plays several processes). */
export interface Taker {
  pid: number;
  alive: (pid: number) => boolean;
}

const MAX_LOCK_BYTES = 128;
const MAX_REAP_LEVELS = 8;

/** A lock's or reap file's text (at most 128 bytes, never through a link), undefined when it is gone. */
export function readSmall(file: string): string | undefined {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    if (errnoCode(error) === "ENOENT") return undefined;
    // A link or a special file in the store's folder is no lock of ours: read as one that holds nobody.
    if (errnoCode(error) === "ELOOP") return "";
    throw error;
  }
  try {
    const buffer = Buffer.alloc(MAX_LOCK_BYTES);
    const n = readSync(fd, buffer, 0, MAX_LOCK_BYTES, null);
    return buffer.subarray(0, n).toString("utf8");
  } finally {
    closeSync(fd);
  }
}

/** The pid a lock names, when it names one. */
export function pidIn(content: string): number | undefined {
  const n = Number(content.trim().split(/\s+/)[0]);
  return Number.isSafeInteger(n) && n > 0 ? n : undefined;
}

const token = (): string => randomBytes(8).toString("hex");
const hash = (text: string): string => createHash("sha256").update(text).digest("hex").slice(0, 24);

function removeIfThere(file: string): void {
  try {
    unlinkSync(file);
  } catch (error) {
    if (errnoCode(error) !== "ENOENT") throw error;
  }
}

/** Creates `name` holding `content`, whole, only if the name is free; false when it is taken. */
function createWhole(name: string, content: string): boolean {
  const temp = `${name}.${token()}.tmp`;
  writeFileSync(temp, content, { mode: 0o600, flag: "wx" });
  try {
    linkSync(temp, name);
    return true;
  } catch (error) {
    if (errnoCode(error) === "EEXIST") return false;
    throw error;
  } finally {
    removeIfThere(temp);
  }
}

function busy(pid: number, me: Taker): SessionBusy {
  const where =
    pid === me.pid ? "this lockstep process (it is open already)" : `another lockstep process (pid ${pid})`;
  return new SessionBusy(`the session is live in ${where}`);
}

/**
 * The right to remove the stale lock holding `seen`: the reap files this taker created or passed
 * over (removed when it is done), or undefined when a live taker holds that right.
 */
function* claimReap(lockFile: string, seen: string, me: Taker): Generator<void, string[] | undefined> {
  const chain: string[] = [];
  let key = hash(seen);
  for (let level = 0; level < MAX_REAP_LEVELS; ) {
    const name = `${lockFile}.reap-${key}`;
    yield;
    if (createWhole(name, `${me.pid} ${token()}\n`)) return [...chain, name];
    yield;
    const holder = readSmall(name);
    if (holder === undefined) continue; // finished meanwhile: claiming it again is harmless (the content check fails)
    const pid = pidIn(holder);
    if (pid !== undefined && me.alive(pid)) return undefined;
    chain.push(name);
    key = hash(key + holder);
    level++;
  }
  return undefined;
}

/**
 * The steps of taking the lock, a `yield` between any two that touch the disk, so a test can run
 * several takers interleaved in a seeded order; `takeLock` runs them straight through.
 */
export function* lockSteps(file: string, me: Taker): Generator<void, void> {
  const lockFile = lockOf(file);
  const mine = `${me.pid} ${token()}\n`;
  for (let round = 0; round < 4; round++) {
    yield;
    if (createWhole(lockFile, mine)) return;
    yield;
    const seen = readSmall(lockFile);
    if (seen === undefined) continue; // released meanwhile
    const pid = pidIn(seen);
    if (pid !== undefined && me.alive(pid)) throw busy(pid, me);
    const reaps = yield* claimReap(lockFile, seen, me);
    if (reaps === undefined)
      throw new SessionBusy("another lockstep process is taking the session over at this moment");
    try {
      yield;
      if (readSmall(lockFile) === seen) {
        yield;
        removeIfThere(lockFile);
      }
    } finally {
      for (const r of reaps) removeIfThere(r);
    }
  }
  throw new SessionBusy("another lockstep process took the session at the same moment");
}

const thisProcess = (file: string): Taker => ({
  pid: process.pid,
  alive: (pid) => (pid === process.pid ? held.has(file) : isProcessAlive(pid)),
});

/** Takes the session's lock for this process, or throws SessionBusy. */
export function takeLock(file: string): void {
  const steps = lockSteps(file, thisProcess(file));
  while (!steps.next().done);
  held.add(file);
}

/** The pid holding a session, when that process is alive; this process's own only while it writes the file. */
export function liveHolder(file: string): number | undefined {
  const content = readSmall(lockOf(file));
  const pid = content === undefined ? undefined : pidIn(content);
  return pid !== undefined && thisProcess(file).alive(pid) ? pid : undefined;
}

/** Lets the session go: the lock is removed only while it is still this process's. */
export function releaseLock(file: string): void {
  held.delete(file);
  const content = readSmall(lockOf(file));
  if (content !== undefined && pidIn(content) === process.pid) removeIfThere(lockOf(file));
}

export function removeLock(file: string): void {
  removeIfThere(lockOf(file));
}
