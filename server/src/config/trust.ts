// Which folders the user trusts: recorded in lockstep's own state directory
// ($XDG_STATE_HOME/lockstep/trusted-folders.json, else ~/.local/state/lockstep/…), by real
// path, never in a repository. A trusted folder covers every folder below it. Only the
// user's own actions write it: `lockstep trust`, the editor's "Trust this folder", the ACP
// session option, the terminal's question; no tool the model calls can.
import { randomBytes } from "node:crypto";
import { chmodSync, mkdirSync, realpathSync, renameSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { isInside, readBoundedFile } from "./bounded-read.js";
import { lockstepStateDir } from "./state-dir.js";

export { lockstepStateDir };

export function trustFilePath(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(lockstepStateDir(env), "trusted-folders.json");
}

export interface TrustedFolder {
  path: string;
  added: string;
}

export interface TrustList {
  folders: TrustedFolder[];
  /** Set when the file exists but could not be used (then nothing is trusted). */
  problem?: string;
}

const MAX_BYTES = 4 * 1024 * 1024;

export function readTrustList(env: NodeJS.ProcessEnv = process.env): TrustList {
  const file = trustFilePath(env);
  const read = readBoundedFile(file, { maxBytes: MAX_BYTES, within: lockstepStateDir(env) });
  if (read.kind === "absent") return { folders: [] };
  if (read.kind === "refused") return { folders: [], problem: read.message };
  try {
    const parsed = JSON.parse(read.text) as { version?: unknown; folders?: unknown };
    if (parsed.version !== 1 || !Array.isArray(parsed.folders)) throw new Error("not version 1");
    const folders = parsed.folders.filter(
      (f): f is TrustedFolder =>
        typeof f === "object" &&
        f !== null &&
        typeof (f as TrustedFolder).path === "string" &&
        path.isAbsolute((f as TrustedFolder).path),
    );
    return {
      folders: folders.map((f) => ({ path: f.path, added: typeof f.added === "string" ? f.added : "" })),
    };
  } catch {
    return {
      folders: [],
      problem: `${file}: not a trust list lockstep wrote; nothing is trusted until it is fixed or removed`,
    };
  }
}

/** The real path of a folder (as given when it does not exist). */
export function realFolder(folder: string): string {
  try {
    return realpathSync(path.resolve(folder));
  } catch {
    return path.resolve(folder);
  }
}

/** The recorded folder that covers `folder` (itself or an ancestor), if any. */
export function trustedBy(folder: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const real = realFolder(folder);
  const covering = readTrustList(env).folders.filter((f) => isInside(f.path, real));
  return covering.sort((a, b) => b.path.length - a.path.length)[0]?.path;
}

export function isTrusted(folder: string, env: NodeJS.ProcessEnv = process.env): boolean {
  return trustedBy(folder, env) !== undefined;
}

function writeTrustList(folders: TrustedFolder[], env: NodeJS.ProcessEnv): void {
  const dir = lockstepStateDir(env);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = trustFilePath(env);
  const temp = `${file}.${randomBytes(6).toString("hex")}.tmp`;
  try {
    writeFileSync(temp, JSON.stringify({ version: 1, folders }, null, 2) + "\n", { mode: 0o600, flag: "wx" });
    chmodSync(temp, 0o600);
    renameSync(temp, file);
  } finally {
    rmSync(temp, { force: true });
  }
}

/** Trusts a folder (its real path); says whether it was new. */
export function addTrust(
  folder: string,
  env: NodeJS.ProcessEnv = process.env,
): { folder: string; added: boolean } {
  const real = realFolder(folder);
  const list = readTrustList(env);
  if (list.folders.some((f) => f.path === real)) return { folder: real, added: false };
  writeTrustList([...list.folders, { path: real, added: new Date().toISOString() }], env);
  return { folder: real, added: true };
}

/** Removes a folder's own record (not an ancestor's); says whether there was one. */
export function removeTrust(
  folder: string,
  env: NodeJS.ProcessEnv = process.env,
): { folder: string; removed: boolean } {
  const real = realFolder(folder);
  const given = path.resolve(folder);
  const list = readTrustList(env);
  const kept = list.folders.filter((f) => f.path !== real && f.path !== given);
  if (kept.length === list.folders.length) return { folder: real, removed: false };
  writeTrustList(kept, env);
  return { folder: real, removed: true };
}
