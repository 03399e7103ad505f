// Temporary workspaces for servers under test: each a fresh directory (its real
// path) holding the files a test names, remembered until removed, so that
// cleanup() after a test removes every one still there.
import { promises as fs, mkdtempSync, realpathSync } from "node:fs";
import os from "node:os";
import path from "node:path";

const workspaces = new Set<string>();

/** A fresh temporary directory (real path) holding `files`; cleanup() removes it. */
export async function createWorkspace(
  files: Record<string, string | Uint8Array> = {},
  prefix = "lockstep-lsp-",
): Promise<string> {
  const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), prefix)));
  workspaces.add(root);
  for (const [rel, content] of Object.entries(files)) {
    const abs = path.join(root, rel);
    await fs.mkdir(path.dirname(abs), { recursive: true });
    await fs.writeFile(abs, content);
  }
  return root;
}

export async function removeWorkspace(root: string): Promise<void> {
  workspaces.delete(root);
  await fs.rm(root, { recursive: true, force: true });
}

/** Removes every workspace createWorkspace made that is still there. */
export async function removeAllWorkspaces(): Promise<void> {
  await Promise.all([...workspaces].map(removeWorkspace));
}
