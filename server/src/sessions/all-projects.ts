// Every project's store under one state directory: for a list of all sessions (ACP's
// session/list without a cwd). A folder counts only when the root its sessions name hashes
// to the folder's own name: a file put there by hand cannot make a store for another path.
import { closeSync, openSync, readdirSync, readSync } from "node:fs";
import path from "node:path";
import { projectFolderName, SessionStore } from "./store.js";

/** How much of a session file's first line is read for its header. */
const HEADER_BYTES = 64 * 1024;

export function storesUnder(stateDir: string, secrets: () => readonly string[] = () => []): SessionStore[] {
  const stores: SessionStore[] = [];
  for (const folder of names(stateDir)) {
    const root = rootOf(path.join(stateDir, folder));
    if (root !== undefined && projectFolderName(root) === folder)
      stores.push(new SessionStore(root, stateDir, secrets));
  }
  return stores;
}

function names(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/** The project root the folder's first readable session header names. */
function rootOf(folder: string): string | undefined {
  for (const name of names(folder)
    .filter((n) => n.endsWith(".jsonl"))
    .sort()) {
    const line = firstLine(path.join(folder, name));
    try {
      const header = JSON.parse(line ?? "") as { t?: unknown; root?: unknown };
      if (header.t === "session" && typeof header.root === "string" && path.isAbsolute(header.root))
        return header.root;
    } catch {
      // an unreadable file: the next one may name the root
    }
  }
  return undefined;
}

function firstLine(file: string): string | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(file, "r");
    const buffer = Buffer.alloc(HEADER_BYTES);
    const read = readSync(fd, buffer, 0, HEADER_BYTES, 0);
    return buffer.subarray(0, read).toString("utf8").split("\n")[0];
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
