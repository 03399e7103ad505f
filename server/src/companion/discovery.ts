// The discovery file of gemini-cli's IDE companion spec: how an agent in a
// terminal finds the editor session's endpoint. One JSON file per endpoint in
// <tmpdir>/gemini/ide/, named after the editor's PID and the port, readable
// only by its owner (it holds the token). The file also records lockstep's own
// PID, so the next start can remove the files of servers that died with SIGKILL
// while their editor lived on.
import { randomBytes } from "node:crypto";
import { promises as fs, realpathSync, unlinkSync } from "node:fs";
import os from "node:os";
import path from "node:path";

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

export function discoveryDir(): string {
  return path.join(os.tmpdir(), "gemini", "ide");
}

export function discoveryPath(editorPid: number, port: number): string {
  return path.join(discoveryDir(), `gemini-ide-server-${editorPid}-${port}.json`);
}

/** The editor's name as gemini-cli shows it, from LSP's clientInfo. */
export function ideInfoOf(clientName: string | undefined): IdeInfo {
  const displayName = clientName?.trim() || "LSP editor";
  const name = displayName.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "") || "lsp-editor";
  return { name, displayName };
}

export function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
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
  return dir;
}

/** Writes the file with mode 0600 (temporary name, then rename: a reader never sees half of it). */
export async function writeDiscovery(editorPid: number, info: DiscoveryFile): Promise<string> {
  const dir = await ensureDir();
  const target = discoveryPath(editorPid, info.port);
  const temporary = path.join(dir, `.lockstep-${process.pid}-${randomBytes(6).toString("hex")}.tmp`);
  await fs.writeFile(temporary, JSON.stringify(info, null, 2) + "\n", { mode: 0o600, flag: "wx" });
  try {
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

/** Reads one file: only a regular file owned by this user, holding a JSON object. */
async function readOne(file: string): Promise<DiscoveryFile | undefined> {
  try {
    const stat = await fs.lstat(file);
    const uid = ownUid();
    if (!stat.isFile() || (uid !== undefined && stat.uid !== uid)) return undefined;
    const parsed: unknown = JSON.parse(await fs.readFile(file, "utf8"));
    if (typeof parsed !== "object" || parsed === null) return undefined;
    return parsed as DiscoveryFile;
  } catch {
    return undefined;
  }
}

async function listFiles(): Promise<string[]> {
  try {
    return (await fs.readdir(discoveryDir())).filter((name) => FILE_PATTERN.test(name)).map((name) => path.join(discoveryDir(), name));
  } catch {
    return [];
  }
}

const isLockstep = (info: DiscoveryFile): boolean => typeof info.lockstep?.pid === "number" && typeof info.port === "number" && typeof info.authToken === "string";

/** Removes lockstep's files whose server process is gone; other companions' files are left alone. Returns the removed paths. */
export async function sweepStale(): Promise<string[]> {
  const removed: string[] = [];
  for (const file of await listFiles()) {
    const info = await readOne(file);
    if (!info || !isLockstep(info) || isAlive(info.lockstep.pid)) continue;
    removeDiscovery(file);
    removed.push(file);
  }
  return removed;
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
  for (const file of await listFiles()) {
    const info = await readOne(file);
    if (!info || !isLockstep(info) || !isAlive(info.lockstep.pid)) continue;
    if (port !== undefined && info.port !== port) continue;
    const roots = String(info.workspacePath ?? "").split(path.delimiter).filter(Boolean);
    if (!roots.some((root) => contains(realOrSame(root), here))) continue;
    const stat = await fs.stat(file).catch(() => undefined);
    found.push({ file, info, mtime: stat?.mtimeMs ?? 0 });
  }
  return found.sort((a, b) => b.mtime - a.mtime).map(({ file, info }) => ({ file, info }));
}
