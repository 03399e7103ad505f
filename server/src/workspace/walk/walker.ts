// The one walk of the tree. It starts at a directory the sandbox resolved (a
// real path inside a root), lists entries with readdir, and never follows a
// symbolic link: a linked file or directory is not reported and not entered,
// so every name it yields is made of real directories below the root. Nested
// .gitignore/.ignore rules prune what it enters; node_modules and .git are
// skipped unless the caller's path or pattern names them.
import type { Dirent } from "node:fs";
import { promises as fs } from "node:fs";
import path from "node:path";
import { IGNORE_FILES, IgnoreRules } from "./ignore-rules.js";

export interface WalkStart {
  /** Real path of the root the walk is under. */
  root: string;
  /** Root-relative start directory, `/`-separated ("" for the root itself). */
  rel: string;
}

export interface WalkedFile {
  root: string;
  /** Root-relative, `/`-separated. */
  rel: string;
  /** Absolute path (real directories all the way). */
  abs: string;
}

export interface WalkOptions {
  signal: AbortSignal;
  /** Walk node_modules and .git too (the path or pattern names them). */
  namesSkipped?: boolean;
  /** Directory levels to enter below the start (0: the start's own files only). */
  depth?: number;
  /** Other workspace roots nested in this one: walked on their own, not twice. */
  otherRoots?: ReadonlySet<string>;
}

const SKIPPED = new Set(["node_modules", ".git"]);

const byName = (a: Dirent, b: Dirent): number => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** Files below `start` in name order (depth first), honouring the ignore rules; stops when the signal fires. */
export async function* walkFiles(start: WalkStart, options: WalkOptions): AsyncGenerator<WalkedFile> {
  const skipNamed = !options.namesSkipped && !/(^|\/)(node_modules|\.git)(\/|$)/.test(start.rel);
  const rules = await IgnoreRules.above(start.root, start.rel);
  yield* walkDirectory(start.root, start.rel, rules, options.depth ?? Infinity, skipNamed, options);
}

async function* walkDirectory(root: string, rel: string, inherited: IgnoreRules, depth: number, skipNamed: boolean, options: WalkOptions): AsyncGenerator<WalkedFile> {
  if (options.signal.aborted) return;
  const abs = rel === "" ? root : path.join(root, rel);
  let entries: Dirent[];
  try {
    entries = await fs.readdir(abs, { withFileTypes: true });
  } catch {
    return; // gone or unreadable since its parent was listed: nothing to report from it
  }
  if (options.signal.aborted) return;
  const present = entries.filter((e) => e.isFile() && (IGNORE_FILES as readonly string[]).includes(e.name)).map((e) => e.name);
  const rules = await inherited.enter(abs, rel, present);
  entries.sort(byName);
  for (const entry of entries) {
    // A link is neither reported nor entered: its target is found at its own place, if inside.
    if (entry.isSymbolicLink()) continue;
    const childRel = rel === "" ? entry.name : `${rel}/${entry.name}`;
    if (entry.isDirectory()) {
      if (depth <= 0 || (skipNamed && SKIPPED.has(entry.name))) continue;
      const childAbs = path.join(abs, entry.name);
      if (options.otherRoots?.has(childAbs) || rules.ignores(childRel, true)) continue;
      yield* walkDirectory(root, childRel, rules, depth - 1, skipNamed, options);
      if (options.signal.aborted) return;
    } else if (entry.isFile() && !rules.ignores(childRel, false)) {
      yield { root, rel: childRel, abs: path.join(abs, entry.name) };
    }
  }
}
