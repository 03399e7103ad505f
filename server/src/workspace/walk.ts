// Walking, globbing and searching the tree happen here and nowhere else
// (read_many_files, find_files, search_files and @-mentions all come through):
// every root, not only the first. Where a walk starts is decided by the sandbox
// on real paths; below that, the walker (walk/walker.ts) follows no link, so no
// name outside a root is ever reported. A pattern whose expansion could leave
// the root is refused before anything is read (walk/glob.ts).
import path from "node:path";
import { fail, succeed, type Outcome } from "../shared/outcome.js";
import type { Sandbox } from "./sandbox.js";
import { checkPattern, compileGlob, isGlob } from "./walk/glob.js";
import { listWithRipgrep, ripgrepWalk } from "./walk/rg-walk.js";
import { ripgrep } from "./walk/ripgrep.js";
import { walkCompare } from "./walk/walk-order.js";
import { walkFiles, type WalkedFile, type WalkStart } from "./walk/walker.js";

export { isGlob };
export type { WalkedFile };

export interface Expansion {
  /** Names of the matching files (see `displayName`) in walk order (root by root, depth first, by name), each really inside a root. */
  files: string[];
  /** The same files as the walk found them (real paths, no link on the way): reading them needs no second resolution. */
  found: WalkedFile[];
  /** How many matches there were in all, when more than `limit` (the rest are not listed). */
  total?: number;
}

/** A file's name as tools report it: root-relative in the first root, absolute in the others (so it resolves back). */
export function displayName(sandbox: Sandbox, root: string, rel: string): string {
  return root === sandbox.roots[0] ? rel : path.join(root, rel);
}

/** Where a walk goes: directories to walk, or one file the caller named. */
export type Scope =
  | { kind: "tree"; starts: WalkStart[]; namesSkipped: boolean }
  | { kind: "file"; file: WalkedFile };

/**
 * The scope of a search: every root when `userPath` is absent, else the
 * directory or file it names, resolved by the sandbox (a link out is refused).
 */
export async function scopeOf(sandbox: Sandbox, userPath: string | undefined): Promise<Outcome<Scope>> {
  if (userPath === undefined || userPath.trim() === "" || userPath.trim() === ".") {
    return succeed({
      kind: "tree",
      starts: sandbox.roots.map((root) => ({ root, rel: "" })),
      namesSkipped: false,
    });
  }
  const dir = await sandbox.resolve(userPath, "list");
  if (dir.ok) {
    if (!dir.value.exists) return notFound(sandbox, userPath);
    const rel = dir.value.rel === "." ? "" : dir.value.rel;
    return succeed({
      kind: "tree",
      starts: [{ root: dir.value.root, rel }],
      namesSkipped: /(^|\/)(node_modules|\.git)(\/|$)/.test(rel),
    });
  }
  const file = await sandbox.resolve(userPath, "read");
  if (!file.ok) return dir.error.code === "invalid_argument" ? file : dir;
  return succeed({ kind: "file", file: { root: file.value.root, rel: file.value.rel, abs: file.value.abs } });
}

async function notFound(sandbox: Sandbox, userPath: string): Promise<Outcome<never>> {
  const near = await sandbox.suggest(userPath);
  return fail(
    "not_found",
    `No such directory or file: ${userPath}.${near.length ? ` Did you mean ${near.map((n) => `\`${n}\``).join(", ")}?` : ""}`,
    [...near.map((n) => `Did you mean ${n}?`), 'Call list_files on "." to see what is there.'],
  );
}

/** Every file of a scope, in walk order. */
export async function* scopeFiles(
  scope: Scope,
  signal: AbortSignal,
  roots: readonly string[],
): AsyncGenerator<WalkedFile> {
  if (scope.kind === "file") {
    yield scope.file;
    return;
  }
  for (const start of scope.starts) {
    if (signal.aborted) return;
    yield* walkFiles(start, {
      signal,
      namesSkipped: scope.namesSkipped,
      otherRoots: nestedRoots(roots, start.root),
    });
  }
}

function nestedRoots(roots: readonly string[], root: string): ReadonlySet<string> {
  return new Set(roots.filter((r) => r !== root && r.startsWith(root + path.sep)));
}

/**
 * Expands `pattern` below `base` (a directory; every root when absent). Refuses,
 * naming only the pattern, what could leave the root; a start directory that is
 * really outside (through a link) is refused the same way, before any walk.
 */
export async function expandGlob(
  sandbox: Sandbox,
  pattern: string,
  options: { limit: number; signal: AbortSignal; base?: string; engine?: "auto" | "js" },
): Promise<Outcome<Expansion>> {
  const checked = checkPattern(pattern);
  if (!checked.ok) return checked;
  const starts = await startsOf(sandbox, pattern, checked.value, options.base);
  if (!starts.ok) return starts;
  const found: WalkedFile[] = [];
  let total = 0;
  const take = (file: WalkedFile): void => {
    // Past the limit only the count goes on: a pattern matching a million files holds no million names.
    if (++total <= options.limit) found.push(file);
  };
  const rg = options.engine === "js" ? undefined : ripgrep();
  for (const { start, glob } of starts.value) {
    const walkFrom =
      glob.prefix === ""
        ? start
        : { root: start.root, rel: start.rel === "" ? glob.prefix : `${start.rel}/${glob.prefix}` };
    const baseLength = walkFrom.rel === "" ? 0 : walkFrom.rel.length + 1;
    // A walk of every level: rg lists it (the walker's rules, as bytes), and the names are matched here.
    const walk =
      rg && glob.depth === Infinity
        ? await ripgrepWalk(sandbox.roots, walkFrom, glob.namesSkipped, rg)
        : undefined;
    const listed = typeof walk === "object" ? await listWithRipgrep(walk, options.signal) : undefined;
    if (listed !== undefined) {
      const names: string[] = [];
      for (const rel of listed.names()) if (glob.match(rel.slice(baseLength))) names.push(rel);
      for (const rel of names.sort(walkCompare))
        take({ root: start.root, rel, abs: path.join(start.root, rel) });
      continue;
    }
    for await (const file of walkFiles(walkFrom, {
      signal: options.signal,
      namesSkipped: glob.namesSkipped,
      depth: glob.depth,
      otherRoots: nestedRoots(sandbox.roots, start.root),
    })) {
      if (glob.match(file.rel.slice(baseLength))) take(file);
    }
  }
  if (options.signal.aborted) return fail("cancelled", "Cancelled while expanding the pattern.");
  const files = found.map((n) => displayName(sandbox, n.root, n.rel));
  return succeed(total > options.limit ? { files, found, total } : { files, found });
}

type Start = { start: WalkStart; glob: ReturnType<typeof compileGlob> };

/** The directories a pattern is walked from, each resolved by the sandbox. */
async function startsOf(
  sandbox: Sandbox,
  pattern: string,
  rel: string,
  base: string | undefined,
): Promise<Outcome<Start[]>> {
  const outside = fail(
    "permission_denied",
    `The pattern ${JSON.stringify(pattern)} starts in a directory outside the workspace (through a symbolic link, or an absolute path elsewhere), so it is not expanded.`,
    ['Use a pattern relative to the workspace root, whose directories are inside it, such as "src/**/*.ts".'],
  );
  if (rel.startsWith("/")) {
    // An absolute pattern: its literal directories must be a directory inside a root.
    const glob = compileGlob(rel.slice(1));
    const dir = await sandbox.resolve(`/${glob.prefix}`, "list");
    if (!dir.ok || !dir.value.exists)
      return dir.ok || dir.error.code !== "permission_denied" ? succeed([]) : outside;
    const rest = rel.slice(glob.prefix === "" ? 1 : glob.prefix.length + 2);
    return succeed([
      {
        start: { root: dir.value.root, rel: dir.value.rel === "." ? "" : dir.value.rel },
        glob: { ...compileGlob(rest), namesSkipped: glob.namesSkipped },
      },
    ]);
  }
  const glob = compileGlob(rel);
  const bases = base === undefined ? sandbox.roots.map((root) => ({ root, rel: "" })) : [];
  if (base !== undefined) {
    const scope = await scopeOf(sandbox, base);
    if (!scope.ok) return scope;
    if (scope.value.kind === "file")
      return fail(
        "invalid_argument",
        `${base} is a file; give the directory to search in as path, or leave path out to search every root.`,
      );
    bases.push(...scope.value.starts);
  }
  const starts: Start[] = [];
  for (const b of bases) {
    if (glob.prefix === "") {
      starts.push({ start: b, glob });
      continue;
    }
    // The walk starts at the pattern's literal directories: they must really be inside this root (a link to `/` is not).
    const dir = await sandbox.resolve(path.join(b.root, b.rel, glob.prefix), "list");
    if (!dir.ok) {
      if (dir.error.code === "permission_denied") return outside;
      continue;
    }
    if (!dir.value.exists) continue;
    if (dir.value.root !== b.root) return outside;
    starts.push({ start: b, glob });
  }
  return succeed(starts);
}
