// .gitignore, .ignore and .rgignore, nested, with the `ignore` package's
// matching, read as ripgrep reads them (so its search and this walk list the
// same files): each directory's files hold rules relative to that directory; any
// `.rgignore` with a say about a path (the deepest first) decides first, then
// any `.ignore`, then any `.gitignore`; and a directory holding `.git` starts a
// repository, where the `.gitignore` files above it stop applying (as in git,
// where the outer repository does not reach into a nested one) while the others
// go on applying.
import { constants as fsConstants, promises as fs } from "node:fs";
import path from "node:path";
import ignore, { type Ignore } from "ignore";

export const IGNORE_FILES = [".gitignore", ".ignore", ".rgignore"] as const;

/** Each ignore file's kind, in the order they have a say. */
const KINDS = { ".rgignore": "custom", ".ignore": "plain", ".gitignore": "git" } as const;
type Kind = (typeof KINDS)[keyof typeof KINDS];

interface Frame {
  /** Root-relative directory the rules are relative to ("" for the root). */
  dir: string;
  git?: Ignore;
  plain?: Ignore;
  custom?: Ignore;
  /** The directory holds `.git`: no `.gitignore` above it has a say below it. */
  repository: boolean;
}

/** The rules in force in one directory: its own files' and every ancestor's. */
export class IgnoreRules {
  private constructor(private readonly frames: readonly Frame[]) {}

  static readonly none = new IgnoreRules([]);

  /**
   * These rules plus the ones in `dirAbs` (root-relative `dirRel`), when it holds any
   * of `present`; `repository`: the directory holds `.git` (see `holdsRepository`).
   */
  async enter(
    dirAbs: string,
    dirRel: string,
    present: readonly string[],
    repository = false,
  ): Promise<IgnoreRules> {
    const frame: Frame = { dir: dirRel, repository };
    for (const name of IGNORE_FILES) {
      if (!present.includes(name)) continue;
      const text = await readIgnoreFile(path.join(dirAbs, name));
      if (text.trim() === "") continue;
      frame[KINDS[name]] = ignore().add(text);
    }
    return frame.git || frame.plain || frame.custom || repository
      ? new IgnoreRules([...this.frames, frame])
      : this;
  }

  /** These rules plus those of `dirAbs` as the disk has it: its ignore files, and whether it holds `.git`. */
  async enterFromDisk(dirAbs: string, dirRel: string): Promise<IgnoreRules> {
    const git = await fs.lstat(path.join(dirAbs, ".git")).catch(() => undefined);
    return this.enter(dirAbs, dirRel, await presentIgnoreFiles(dirAbs), await holdsRepository(dirAbs, git));
  }

  /** Whether a root-relative path is ignored; directories are tested with a trailing slash. */
  ignores(rel: string, isDirectory: boolean): boolean {
    return (
      this.verdict(rel, isDirectory, "custom") ??
      this.verdict(rel, isDirectory, "plain") ??
      this.verdict(rel, isDirectory, "git") ??
      false
    );
  }

  /** The deepest say of one kind of file (a `.gitignore` only up to the nearest repository). */
  private verdict(rel: string, isDirectory: boolean, kind: Kind): boolean | undefined {
    for (let i = this.frames.length - 1; i >= 0; i--) {
      const frame = this.frames[i]!;
      const rules = frame[kind];
      if (rules !== undefined) {
        const local = frame.dir === "" ? rel : rel.slice(frame.dir.length + 1);
        const said = rules.test(isDirectory ? `${local}/` : local);
        if (said.ignored) return true;
        if (said.unignored) return false;
      }
      if (kind === "git" && frame.repository) return undefined;
    }
    return undefined;
  }

  /**
   * The rules of the directories from the root down to `rel` (exclusive), for a
   * walk that starts below the root. A start directory that those rules ignore
   * was named on purpose: the walk below it keeps only its own rules.
   */
  static async above(rootAbs: string, rel: string): Promise<IgnoreRules> {
    let rules = IgnoreRules.none;
    if (rel === "" || rel === ".") return rules;
    const names = rel.split("/");
    for (let i = 0; i < names.length; i++) {
      const dirRel = names.slice(0, i).join("/");
      const dirAbs = path.join(rootAbs, ...names.slice(0, i));
      rules = await rules.enterFromDisk(dirAbs, dirRel);
      if (rules.ignores(names.slice(0, i + 1).join("/"), true)) return IgnoreRules.none;
    }
    return rules;
  }
}

/**
 * Whether a directory whose `.git` entry is `entry` (undefined when it has none) holds a
 * repository: a `.git` of any kind, or a link to something that exists (ripgrep asks
 * whether `.git` exists, following a link; nothing of it is read).
 */
export async function holdsRepository(
  dirAbs: string,
  entry: { isSymbolicLink(): boolean } | undefined,
): Promise<boolean> {
  if (entry === undefined) return false;
  if (!entry.isSymbolicLink()) return true;
  return (await fs.stat(path.join(dirAbs, ".git")).catch(() => undefined)) !== undefined;
}

/** An ignore file's text is read up to this size; a larger one is not read (as if empty). */
export const MAX_IGNORE_FILE_BYTES = 1024 * 1024;

/**
 * An ignore file's text: the repository's input, so a regular file only, never through a link
 * (swapped in since the listing), never waiting on a FIFO, and none over the bound (a 100 MB
 * .gitignore would make 100 MB of rules for every path walked).
 */
async function readIgnoreFile(abs: string): Promise<string> {
  const flags = fsConstants.O_RDONLY | (fsConstants.O_NOFOLLOW ?? 0) | (fsConstants.O_NONBLOCK ?? 0);
  const file = await fs.open(abs, flags).catch(() => undefined);
  if (file === undefined) return "";
  try {
    const stats = await file.stat();
    if (!stats.isFile() || stats.size > MAX_IGNORE_FILE_BYTES) return "";
    // The size fstat gave, and no more (a file still growing is cut there).
    const bytes = Buffer.alloc(stats.size);
    const { bytesRead } = await file.read(bytes, 0, stats.size, 0);
    return bytes.toString("utf8", 0, bytesRead);
  } catch {
    return "";
  } finally {
    await file.close().catch(() => undefined);
  }
}

async function presentIgnoreFiles(dirAbs: string): Promise<string[]> {
  const present: string[] = [];
  for (const name of IGNORE_FILES) {
    const stats = await fs.lstat(path.join(dirAbs, name)).catch(() => undefined);
    if (stats?.isFile()) present.push(name);
  }
  return present;
}
