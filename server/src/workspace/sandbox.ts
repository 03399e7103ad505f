// The path sandbox: every path a tool touches is resolved here, and nothing
// whose real location lies outside the workspace roots gets through — not by
// `..`, not by an absolute path or URI, not through a symbolic link at any
// depth, and not by writing through a dangling link into a missing directory.
//
// Checks compare real paths (symlinks resolved) with path.relative, never by
// string prefix. The check and the later use are separate system calls, so a
// process racing to swap a directory for a link can still win; the sandbox
// keeps the model on the workspace, it is not a defence against local users.
import { promises as fs } from "node:fs";
import type { Stats } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { fail, succeed } from "../shared/outcome.js";
import type { Outcome } from "../shared/outcome.js";
import { ioFailure, listDirectory } from "./disk.js";
import { closestNames } from "./suggest.js";
import { errnoCode } from "../shared/errno.js";

export type Access = "read" | "write" | "list";

export interface ResolvedPath {
  /** Real absolute path; for a missing file, the real nearest existing ancestor plus the remaining names. */
  abs: string;
  /** Root-relative, `/`-separated; `.` for the root itself. */
  rel: string;
  /** `file://` URI of `abs`. */
  uri: string;
  /** Real path of the root `abs` is under. */
  root: string;
  /** Whether `abs` exists on disk now. */
  exists: boolean;
}

/** Version control's own folders: written by git, hg and svn only (a hook or a config there runs code). */
const VCS_FOLDERS: ReadonlySet<string> = new Set([".git", ".hg", ".svn"]);

/** The refusal for a path that is, or is under, a version control folder, whatever the approval mode. */
export function versionControlRefusal(rel: string): Outcome<never> | undefined {
  const folder = rel.split("/").find((part) => VCS_FOLDERS.has(part.toLowerCase()));
  if (folder === undefined) return undefined;
  return fail(
    "permission_denied",
    `"${rel}" is inside ${folder}/, which belongs to version control: lockstep never writes there (a hook or a config in it runs code). Nothing was written.`,
    [
      `Change the files in the working tree; use ${folder === ".git" ? "git" : folder === ".hg" ? "hg" : "svn"} itself for its own files.`,
    ],
  );
}

/** How many dangling links one resolution follows before calling it a loop (Linux's limit). */
const MAX_LINK_HOPS = 40;

/** Where a candidate path really is, before the root check. */
type Location =
  | { exists: true; real: string }
  | {
      exists: false;
      real: string;
      /** Real path of the nearest ancestor that exists. */
      ancestor: string;
      /** Names below `ancestor` that do not exist yet. */
      missing: string[];
      /** `ancestor` is a file, so nothing can exist below it. */
      blockedByFile: boolean;
    };

/** A root as the user named it (absolute, unresolved) and as it really is. */
interface RootForms {
  real: string;
  given: string;
}

export class Sandbox {
  /** Real absolute paths of the workspace roots; the first is the base of relative paths. */
  readonly roots: readonly string[];
  readonly #forms: readonly RootForms[];

  private constructor(forms: RootForms[]) {
    this.#forms = forms;
    this.roots = forms.map((f) => f.real);
  }

  /** Throws when a root is missing or not a directory: that is a configuration error, not a tool failure. */
  static async create(roots: readonly string[]): Promise<Sandbox> {
    if (roots.length === 0) throw new Error("Sandbox needs at least one workspace root");
    const forms: RootForms[] = [];
    for (const root of roots) {
      const given = path.resolve(root);
      const real = await fs.realpath(given);
      if (!(await fs.stat(real)).isDirectory()) throw new Error(`Workspace root ${given} is not a directory`);
      if (!forms.some((f) => f.real === real)) forms.push({ real, given });
    }
    return new Sandbox(forms);
  }

  /** Accepts a path relative to the first root, an absolute path, or a `file://` URI. */
  async resolve(userPath: string, access: Access): Promise<Outcome<ResolvedPath>> {
    const parsed = this.#parse(userPath);
    if (!parsed.ok) return parsed;
    const { candidate, shown } = parsed.value;
    if (this.#baseOf(candidate) === undefined) return fail("permission_denied", this.#outsideMessage(shown));

    const located = await locate(candidate, shown);
    if (!located.ok) return located;
    const where = located.value;
    const root = this.#rootOf(where.real);
    if (root === undefined) {
      return fail(
        "permission_denied",
        `"${shown}" goes through a symbolic link that leads outside the workspace, so it cannot be used. ${this.#useRelative()}`,
      );
    }
    const resolved: ResolvedPath = {
      abs: where.real,
      rel: toRel(root, where.real),
      uri: pathToFileURL(where.real).href,
      root,
      exists: where.exists,
    };
    if (access === "write") {
      const refused = versionControlRefusal(resolved.rel);
      if (refused) return refused;
    }

    if (!where.exists) {
      if (!where.blockedByFile) return succeed(resolved);
      return fail(
        "invalid_argument",
        `"${shown}" cannot exist: "${toRel(root, where.ancestor)}" is a file, not a directory, so nothing can be below it. Check the path, or list its parent directory to see what is there.`,
      );
    }
    return this.#checkType(resolved, access);
  }

  /**
   * Whether the path as given ends in a symbolic link (its last name; links above it are followed as
   * usual). `resolve` answers with where a link leads, which is right for reading and writing through
   * it, and wrong for deleting it: the target would go and the link stay.
   */
  async endsInLink(userPath: string): Promise<boolean> {
    const parsed = this.#parse(userPath);
    if (!parsed.ok) return false;
    return (await fs.lstat(parsed.value.candidate).catch(() => undefined))?.isSymbolicLink() === true;
  }

  /** Up to three existing names close to a missing path, as root-relative paths. */
  async suggest(userPath: string): Promise<string[]> {
    const parsed = this.#parse(userPath);
    if (!parsed.ok || this.#baseOf(parsed.value.candidate) === undefined) return [];
    const located = await locate(parsed.value.candidate, parsed.value.shown);
    if (!located.ok || located.value.exists || located.value.blockedByFile) return [];
    const { ancestor, missing } = located.value;
    const root = this.#rootOf(ancestor);
    const [wanted, ...rest] = missing;
    if (root === undefined || wanted === undefined) return [];

    const listed = await listDirectory(ancestor);
    if (!listed.ok) return [];
    const names = closestNames(
      wanted,
      listed.value.map((e) => e.name),
    );
    // A typo in a directory name (`srx/index.ts`): offer the whole path when it exists there.
    return Promise.all(
      names.map(async (name) => {
        const nearest = path.join(ancestor, name);
        const whole = path.join(nearest, ...rest);
        const wholeExists =
          rest.length > 0 &&
          (await fs.stat(whole).then(
            () => true,
            () => false,
          ));
        return toRel(root, wholeExists ? whole : nearest);
      }),
    );
  }

  /**
   * Root-relative path for an absolute path or `file://` URI under a root, else
   * `undefined`. Purely lexical (for mapping editor URIs): it knows a root by
   * both its real path and the path it was given as, but follows no other link.
   */
  relativize(absOrUri: string): string | undefined {
    let abs: string;
    if (/^file:/i.test(absOrUri)) {
      try {
        abs = fileURLToPath(absOrUri);
      } catch {
        return undefined;
      }
    } else if (path.isAbsolute(absOrUri)) {
      abs = path.resolve(absOrUri);
    } else {
      return undefined;
    }
    const base = this.#baseOf(abs);
    return base === undefined ? undefined : toRel(base, abs);
  }

  /** Turns user input into an absolute, lexically normalized candidate path. */
  #parse(userPath: string): Outcome<{ candidate: string; shown: string }> {
    if (userPath.trim() === "") {
      return fail(
        "invalid_argument",
        `The path is empty. Give a path relative to the workspace root, such as "src/index.ts", or "." for the root directory.`,
      );
    }
    if (userPath.includes("\0")) {
      return fail(
        "invalid_argument",
        `The path ${JSON.stringify(userPath)} contains a NUL byte, which no file name can hold. Give the path as plain text relative to the workspace root.`,
      );
    }
    if (/^file:/i.test(userPath)) {
      try {
        return succeed({ candidate: fileURLToPath(userPath), shown: userPath });
      } catch (error) {
        const why = error instanceof Error ? error.message : String(error);
        return fail(
          "invalid_argument",
          `"${userPath}" is not a usable file:// URI (${why}). Give a path relative to the workspace root instead.`,
        );
      }
    }
    const scheme = /^([a-z][a-z0-9+.-]+):\/\//i.exec(userPath);
    if (scheme) {
      return fail(
        "invalid_argument",
        `"${userPath}" is a ${scheme[1]}: URI; only file:// URIs and file paths are accepted. Give a path relative to the workspace root.`,
      );
    }
    // Models trained on Windows transcripts write `src\a.ts`; treat `\` as a separator.
    const shown = userPath.replaceAll("\\", "/");
    return succeed({ candidate: path.resolve(this.roots[0]!, shown), shown });
  }

  /** The read/list/write rules for a path that exists. */
  async #checkType(resolved: ResolvedPath, access: Access): Promise<Outcome<ResolvedPath>> {
    let stats: Stats;
    try {
      stats = await fs.stat(resolved.abs);
    } catch (error) {
      return ioFailure(error, resolved.rel, "resolve");
    }
    const { rel } = resolved;
    if (stats.isDirectory()) {
      if (access === "list") return succeed(resolved);
      return fail(
        "invalid_argument",
        access === "read"
          ? `"${rel}" is a directory; use list_files to see its entries, then read one of them.`
          : `"${rel}" is a directory, so it cannot be written as a file. Give the path of a file, such as "${rel === "." ? "" : `${rel}/`}new-file.ts".`,
      );
    }
    if (!stats.isFile()) {
      return fail(
        "invalid_argument",
        `"${rel}" is not a regular file or directory (it is a pipe, socket or device). lockstep works with regular files only.`,
      );
    }
    if (access === "list") {
      const parent = path.posix.dirname(rel);
      return fail(
        "invalid_argument",
        `"${rel}" is a file, not a directory; use read_file to read it, or list_files on "${parent}" to see its directory.`,
      );
    }
    return succeed(resolved);
  }

  /** The real root containing `real` (the deepest one, should roots nest), if any. */
  #rootOf(real: string): string | undefined {
    return deepest(this.roots.filter((root) => isInside(root, real)));
  }

  /** The root, by real or given path, that lexically contains `abs`, if any. */
  #baseOf(abs: string): string | undefined {
    return deepest(this.#forms.flatMap((f) => [f.real, f.given]).filter((base) => isInside(base, abs)));
  }

  #outsideMessage(shown: string): string {
    return `"${shown}" is outside the workspace, so it cannot be used. ${this.#useRelative()}`;
  }

  #useRelative(): string {
    const where =
      this.roots.length === 1
        ? `the workspace root ${this.roots[0]}`
        : `one of the workspace roots (${this.roots.join(", ")})`;
    return `Give a path relative to ${where}, such as "src/index.ts"; list_files on "." shows what is there.`;
  }
}

/**
 * Finds where `candidate` really is. An existing path costs one realpath. For a
 * missing one, walks up to the nearest existing ancestor; if the first missing
 * name is a dangling symbolic link, follows it by hand, because creating the
 * file would follow it too and might land anywhere.
 */
async function locate(candidate: string, shown: string, hops = 0): Promise<Outcome<Location>> {
  if (hops > MAX_LINK_HOPS) {
    return fail(
      "invalid_argument",
      `"${shown}" cannot be resolved: it goes through more than ${MAX_LINK_HOPS} symbolic links, most likely a loop. Use a path that does not go through the looping link.`,
    );
  }
  try {
    return succeed({ exists: true, real: await fs.realpath(candidate) });
  } catch (error) {
    if (!isMissing(error)) return ioFailure(error, `"${shown}"`, "resolve");
  }

  const missing: string[] = [];
  let dir = candidate;
  for (;;) {
    const parent = path.dirname(dir);
    if (parent === dir)
      return fail("io_error", `No part of "${shown}" exists, not even the file-system root.`);
    missing.unshift(path.basename(dir));
    dir = parent;
    let ancestor: string;
    try {
      ancestor = await fs.realpath(dir);
    } catch (error) {
      if (isMissing(error)) continue;
      return ioFailure(error, `"${shown}"`, "resolve");
    }

    const first = path.join(ancestor, missing[0]!);
    const notYet = { exists: false as const, real: path.join(ancestor, ...missing), ancestor, missing };
    let link: string;
    try {
      link = await fs.readlink(first);
    } catch (error) {
      const code = errnoCode(error);
      if (code === "ENOENT") return succeed({ ...notYet, blockedByFile: false });
      if (code === "ENOTDIR") return succeed({ ...notYet, blockedByFile: true });
      // EINVAL: it exists and is no link, so it appeared after the realpath above.
      return code === "EINVAL"
        ? locate(candidate, shown, hops + 1)
        : ioFailure(error, `"${shown}"`, "resolve");
    }
    return locate(path.join(path.resolve(ancestor, link), ...missing.slice(1)), shown, hops + 1);
  }
}

function isMissing(error: unknown): boolean {
  const code = errnoCode(error);
  return code === "ENOENT" || code === "ENOTDIR";
}

/** Containment by path.relative, so `/root-other` is not inside `/root`. */
function isInside(base: string, target: string): boolean {
  const rel = path.relative(base, target);
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}

function deepest(bases: string[]): string | undefined {
  return bases.reduce<string | undefined>(
    (best, b) => (best === undefined || b.length > best.length ? b : best),
    undefined,
  );
}

function toRel(base: string, abs: string): string {
  return path.relative(base, abs).split(path.sep).join("/") || ".";
}
