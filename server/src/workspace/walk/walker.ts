// The one walk of the tree. It starts at a directory the sandbox resolved (a
// real path inside a root), lists entries with readdir, and never follows a
// symbolic link: a linked file or directory is not reported and not entered,
// so every name it yields is made of real directories below the root. Nested
// .gitignore/.ignore rules prune what it enters; node_modules and .git are
// skipped unless the caller's path or pattern names them.
import type { Dirent } from "node:fs";
import { promises as fs } from "node:fs";
import path from "node:path";
import { holdsRepository, IGNORE_FILES, IgnoreRules } from "./ignore-rules.js";

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

/** Directory listings read ahead of the walk, per directory being walked (the walk waits on the disk less). */
const READ_AHEAD = 8;

/** A directory being walked: its sorted entries, where the walk is in them, and its subdirectories' listings read ahead. */
interface Frame {
  rel: string;
  /** The directory's absolute path and a separator: a child's path is this and its name. */
  prefix: string;
  rules: IgnoreRules;
  depth: number;
  entries: Dirent[];
  at: number;
  /** Indexes (in `entries`) of the subdirectories the walk enters, in order. */
  subdirectories: number[];
  /** How many of `subdirectories` have had their listing started. */
  started: number;
  listings: Map<number, Promise<Dirent[] | undefined>>;
}

function list(abs: string): Promise<Dirent[] | undefined> {
  // Gone or unreadable since its parent was listed: nothing to report from it.
  return fs.readdir(abs, { withFileTypes: true }).catch(() => undefined);
}

/** Files below `start` in name order (depth first), honouring the ignore rules; stops when the signal fires. */
export async function* walkFiles(start: WalkStart, options: WalkOptions): AsyncGenerator<WalkedFile> {
  const skipNamed = !options.namesSkipped && !/(^|\/)(node_modules|\.git)(\/|$)/.test(start.rel);
  const rules = await IgnoreRules.above(start.root, start.rel);
  const abs = start.rel === "" ? start.root : path.join(start.root, start.rel);
  const first = await frameOf(
    start.rel,
    abs,
    rules,
    options.depth ?? Infinity,
    skipNamed,
    options,
    list(abs),
  );
  // An explicit stack rather than nested generators: a file's name is handed up once, not once per level.
  const stack: Frame[] = first === undefined ? [] : [first];
  while (stack.length > 0) {
    if (options.signal.aborted) return;
    const frame = stack[stack.length - 1]!;
    if (frame.at === frame.entries.length) {
      stack.pop();
      continue;
    }
    const index = frame.at++;
    const entry = frame.entries[index]!;
    // A link is neither reported nor entered: its target is found at its own place, if inside.
    if (entry.isSymbolicLink()) continue;
    const childRel = frame.rel === "" ? entry.name : `${frame.rel}/${entry.name}`;
    const childAbs = frame.prefix + entry.name;
    const listing = frame.listings.get(index);
    if (listing !== undefined) {
      frame.listings.delete(index);
      readAhead(frame);
      const child = await frameOf(
        childRel,
        childAbs,
        frame.rules,
        frame.depth - 1,
        skipNamed,
        options,
        listing,
      );
      if (child !== undefined) stack.push(child);
    } else if (entry.isFile() && !frame.rules.ignores(childRel, false)) {
      yield { root: start.root, rel: childRel, abs: childAbs };
    }
  }
}

/** A directory's frame once its listing is in: its ignore rules read, its entries sorted, its first subdirectories' listings started. */
async function frameOf(
  rel: string,
  abs: string,
  inherited: IgnoreRules,
  depth: number,
  skipNamed: boolean,
  options: WalkOptions,
  listing: Promise<Dirent[] | undefined>,
): Promise<Frame | undefined> {
  const entries = await listing;
  if (entries === undefined || options.signal.aborted) return undefined;
  const present = entries
    .filter((e) => e.isFile() && (IGNORE_FILES as readonly string[]).includes(e.name))
    .map((e) => e.name);
  const repository = await holdsRepository(
    abs,
    entries.find((e) => e.name === ".git"),
  );
  const rules = await inherited.enter(abs, rel, present, repository);
  entries.sort(byName);
  const subdirectories: number[] = [];
  if (depth > 0) {
    entries.forEach((entry, i) => {
      if (!entry.isDirectory() || (skipNamed && SKIPPED.has(entry.name))) return;
      const childRel = rel === "" ? entry.name : `${rel}/${entry.name}`;
      if (options.otherRoots?.has(path.join(abs, entry.name)) || rules.ignores(childRel, true)) return;
      subdirectories.push(i);
    });
  }
  const prefix = abs.endsWith(path.sep) ? abs : abs + path.sep;
  const frame: Frame = {
    rel,
    prefix,
    rules,
    depth,
    entries,
    at: 0,
    subdirectories,
    started: 0,
    listings: new Map(),
  };
  for (let i = 0; i < READ_AHEAD; i++) readAhead(frame);
  return frame;
}

/** Starts listing the frame's next subdirectory not yet started, if any. */
function readAhead(frame: Frame): void {
  const index = frame.subdirectories[frame.started];
  if (index === undefined) return;
  frame.started++;
  frame.listings.set(index, list(frame.prefix + frame.entries[index]!.name));
}

/**
 * Whether the walk from `start` reaches the file `rel` (root-relative): every directory on
 * the way a real directory that the rules and the skipped names let in, the file a regular
 * file the rules keep. For the few files (an editor's open buffers) asked about where the
 * walk's listing is not at hand.
 */
export async function isWalked(start: WalkStart, rel: string, namesSkipped: boolean): Promise<boolean> {
  const prefix = start.rel === "" ? "" : `${start.rel}/`;
  if (!rel.startsWith(prefix) || rel === prefix) return false;
  const skipNamed = !namesSkipped && !/(^|\/)(node_modules|\.git)(\/|$)/.test(start.rel);
  let rules = await IgnoreRules.above(start.root, start.rel);
  let dirRel = start.rel;
  const names = rel.slice(prefix.length).split("/");
  for (const [i, name] of names.entries()) {
    rules = await rules.enterFromDisk(dirRel === "" ? start.root : path.join(start.root, dirRel), dirRel);
    const childRel = dirRel === "" ? name : `${dirRel}/${name}`;
    const stats = await fs.lstat(path.join(start.root, childRel)).catch(() => undefined);
    if (stats === undefined) return false;
    if (i === names.length - 1) return stats.isFile() && !rules.ignores(childRel, false);
    // A link is not entered; nor is a name the walk skips, or a directory the rules ignore.
    if (!stats.isDirectory() || (skipNamed && SKIPPED.has(name)) || rules.ignores(childRel, true))
      return false;
    dirRel = childRel;
  }
  return false;
}
