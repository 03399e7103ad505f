// Whether ripgrep walks a directory as the walker does, and its listing when it
// does: no other root nested in it, no ignore file above it (rg reads them from
// where it starts down; given as --ignore-file they would rank after every
// other and reach into nested repositories), and for ripgrep 14 a repository's
// root (it stops a .gitignore at a nested repository only when it requires one).
// Shared by search_files (rg-search.ts) and find_files (walk.ts).
import { promises as fs } from "node:fs";
import path from "node:path";
import { holdsRepository, IGNORE_FILES } from "./ignore-rules.js";
import { Listing } from "./rg-listing.js";
import { runOutput, walkFlags, type Ripgrep } from "./ripgrep.js";
import type { WalkStart } from "./walker.js";

export interface RgWalk {
  rg: Ripgrep;
  start: WalkStart;
  /** The walker's rules as rg's flags. */
  flags: string[];
  /** The path rg is given, relative to the root (its working directory). */
  where: string;
}

/** rg's walk from `start`, or why the walker walks instead. */
export async function ripgrepWalk(
  roots: readonly string[],
  start: WalkStart,
  namesSkipped: boolean,
  rg: Ripgrep,
  /** Files over this size left out (a search's walk: it does not search them); absent, every file. */
  maxBytes?: number,
): Promise<RgWalk | string> {
  if (roots.some((r) => r !== start.root && r.startsWith(start.root + path.sep)))
    return "a root nested in another";
  const names = start.rel === "" ? [] : start.rel.split("/");
  for (let i = 0; i < names.length; i++) {
    const dir = path.join(start.root, ...names.slice(0, i));
    for (const name of IGNORE_FILES) {
      if (await exists(path.join(dir, name))) return "ignore files above the directory searched";
    }
  }
  let requireGit = false;
  if (rg.major >= 14) {
    const git = await fs.lstat(path.join(start.root, ".git")).catch(() => undefined);
    if (start.rel !== "" || !(await holdsRepository(start.root, git)))
      return `${rg.version} outside a repository's root`;
    requireGit = true;
  }
  const skipNamed = !namesSkipped && !/(^|\/)(node_modules|\.git)(\/|$)/.test(start.rel);
  return {
    rg,
    start,
    flags: walkFlags(skipNamed, maxBytes, requireGit),
    where: start.rel === "" ? "." : start.rel,
  };
}

/** The files rg lists (those `include` keeps), or undefined when it could not list them all. */
export async function listWithRipgrep(
  walk: RgWalk,
  signal: AbortSignal,
  include?: (rel: string) => boolean,
): Promise<Listing | undefined> {
  const listed = await runOutput(
    walk.rg,
    walk.start.root,
    [...walk.flags, "--files", "--null", "--", walk.where],
    { maxTotal: 64 * 1024 * 1024, signal },
  );
  return listed.end === "done" && !signal.aborted ? Listing.of(listed.output, include) : undefined;
}

function exists(abs: string): Promise<boolean> {
  return fs.lstat(abs).then(
    () => true,
    () => false,
  );
}
