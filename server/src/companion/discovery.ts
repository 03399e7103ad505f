// The discovery file of gemini-cli's IDE companion spec: how an agent in a
// terminal finds the editor session's endpoint. One JSON file per endpoint in
// <tmpdir>/gemini/ide/, named after the editor's PID and the port, readable
// only by its owner (it holds the token), in a directory only its owner can
// enter. The file also records lockstep's own PID, so the next start (and every
// exit, and `lockstep mcp`) can remove the files of servers that died with
// SIGKILL while their editor lived on, and the temporary files such a death
// left half-way through a write (named by the writer's PID).
import { randomBytes } from "node:crypto";
import { promises as fs, lstatSync, readdirSync, readFileSync, realpathSync, unlinkSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { isProcessAlive } from "../shared/process-alive.js";

export interface IdeInfo {
  /** Short lowercase identifier; gemini-cli believes it runs in this IDE. */
  name: string;
  displayName: string;
}

export interface DiscoveryFile {
  port: number;
  /** Workspace roots joined with the platform's path delimiter, as the spec says. */
  workspacePath: string;
  authToken: string;
  ideInfo: IdeInfo;
  /** lockstep's own mark: which server process wrote the file. */
  lockstep: { pid: number; version: string };
}

/** A discovery file found on disk, with its path. */
export interface FoundSession {
  file: string;
  info: DiscoveryFile;
}

const FILE_PATTERN = /^gemini-ide-server-(\d+)-(\d+)\.json$/;
/** A file writeDiscovery writes before renaming it into place: the writer's PID, then random hex. */
const TEMPORARY_PATTERN = /^\.lockstep-(\d+)-[0-9a-f]+\.tmp$/;

export function discoveryDir(): string {
  return path.join(os.tmpdir(), "gemini", "ide");
}

export function discoveryPath(editorPid: number, port: number): string {
  return path.join(discoveryDir(), `gemini-ide-server-${editorPid}-${port}.json`);
}

/** The editor's name as gemini-cli shows it, from LSP's clientInfo. */
export function ideInfoOf(clientName: string | undefined): IdeInfo {
  const displayName = clientName?.trim() || "LSP editor";
  const name =
    displayName
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-|-$/g, "") || "lsp-editor";
  return { name, displayName };
}

const ownUid = (): number | undefined => process.getuid?.();

/**
 * Creates the directory if needed and checks it is a real directory of ours, not
 * a link someone planted in a shared /tmp. Throws with the reason otherwise.
 */
async function ensureDir(): Promise<string> {
  const dir = discoveryDir();
  await fs.mkdir(dir, { recursive: true, mode: 0o700 });
  const stat = await fs.lstat(dir);
  if (!stat.isDirectory()) throw new Error(`${dir} is not a directory`);
  const uid = ownUid();
  if (uid !== undefined && stat.uid !== uid) throw new Error(`${dir} belongs to another user`);
  // Made by another companion with the usual 0755: only its owner needs to enter it (the files hold tokens).
  if ((stat.mode & 0o077) !== 0) await fs.chmod(dir, 0o700);
  return dir;
}

/**
 * Writes the file: created 0600 under a temporary name, written, renamed into
 * place (a reader never sees half of it); the temporary file is removed on any
 * failure, and one a crash leaves behind is swept by the next start.
 */
export async function writeDiscovery(editorPid: number, info: DiscoveryFile): Promise<string> {
  const dir = await ensureDir();
  const target = discoveryPath(editorPid, info.port);
  const temporary = path.join(dir, `.lockstep-${process.pid}-${randomBytes(6).toString("hex")}.tmp`);
  try {
    await fs.writeFile(temporary, JSON.stringify(info, null, 2) + "\n", { mode: 0o600, flag: "wx" });
    await fs.rename(temporary, target);
  } catch (error) {
    await fs.rm(temporary, { force: true });
    throw error;
  }
  return target;
}

/** Removes the file; synchronous so it also works from a process 'exit' handler. */
export function removeDiscovery(file: string): void {
  try {
    unlinkSync(file);
  } catch {
    // Already gone: nothing to do.
  }
}

/** A regular file of this user's (not a link, not someone else's). */
function ownFile(file: string): boolean {
  try {
    const stat = lstatSync(file);
    const uid = ownUid();
    return stat.isFile() && (uid === undefined || stat.uid === uid);
  } catch {
    return false;
  }
}

/** Reads one file: only a regular file owned by this user, holding a JSON object. */
function readOne(file: string): DiscoveryFile | undefined {
  try {
    if (!ownFile(file)) return undefined;
    const parsed: unknown = JSON.parse(readFileSync(file, "utf8"));
    if (typeof parsed !== "object" || parsed === null) return undefined;
    return parsed as DiscoveryFile;
  } catch {
    return undefined;
  }
}

async function listFiles(): Promise<string[]> {
  try {
    return (await fs.readdir(discoveryDir()))
      .filter((name) => FILE_PATTERN.test(name))
      .map((name) => path.join(discoveryDir(), name));
  } catch {
    return [];
  }
}

const isLockstep = (info: DiscoveryFile): boolean =>
  typeof info.lockstep?.pid === "number" &&
  typeof info.port === "number" &&
  typeof info.authToken === "string";

/**
 * Removes lockstep's files whose server process is gone, and the temporary
 * files of writers that are gone; other companions' files are left alone.
 * Synchronous (a small directory), so it also runs in a process 'exit' handler.
 * Returns the removed paths.
 */
export function sweepStaleSync(): string[] {
  const dir = discoveryDir();
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const file = path.join(dir, name);
    const writer = TEMPORARY_PATTERN.exec(name)?.[1];
    const stale =
      writer !== undefined
        ? Number(writer) !== process.pid && !isProcessAlive(Number(writer)) && ownFile(file)
        : FILE_PATTERN.test(name) &&
          ((info) => info !== undefined && isLockstep(info) && !isProcessAlive(info.lockstep.pid))(
            readOne(file),
          );
    if (!stale) continue;
    removeDiscovery(file);
    removed.push(file);
  }
  return removed;
}

export async function sweepStale(): Promise<string[]> {
  return sweepStaleSync();
}

function realOrSame(p: string): string {
  try {
    return realpathSync.native(p);
  } catch {
    return path.resolve(p);
  }
}

function contains(root: string, target: string): boolean {
  const rel = path.relative(root, target);
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel));
}

/**
 * The live lockstep sessions whose workspace holds `cwd`, best first: the one on
 * `port` when given, else the most recently written. Files of dead servers are skipped.
 */
export async function findSessions(cwd: string, port?: number): Promise<FoundSession[]> {
  const here = realOrSame(cwd);
  const found: { file: string; info: DiscoveryFile; mtime: number }[] = [];
  // A dead server's files are swept by any lockstep that looks, not only by the next editor session.
  sweepStaleSync();
  for (const file of await listFiles()) {
    const info = readOne(file);
    if (!info || !isLockstep(info) || !isProcessAlive(info.lockstep.pid)) continue;
    if (port !== undefined && info.port !== port) continue;
    const roots = String(info.workspacePath ?? "")
      .split(path.delimiter)
      .filter(Boolean);
    if (!roots.some((root) => contains(realOrSame(root), here))) continue;
    const stat = await fs.stat(file).catch(() => undefined);
    found.push({ file, info, mtime: stat?.mtimeMs ?? 0 });
  }
  return found.sort((a, b) => b.mtime - a.mtime).map(({ file, info }) => ({ file, info }));
}
