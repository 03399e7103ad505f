// Glob patterns expanded below a workspace root, and nowhere else. A pattern
// whose expansion could leave the root (`..` in any form, an absolute path
// elsewhere, a brace group that could spell `..`) is refused before anything is
// read; the walk never follows a link, its starting directory must really be
// inside the root, and a match whose real path is outside is dropped without
// being named: names are information, and a walk of `/` is a denial of service.
import { fail, succeed, type Outcome } from "../edit/shared/outcome.js";
import type { Sandbox } from "./sandbox.js";

const GLOB_CHARS = /[*?[\]{}]/;

export function isGlob(pattern: string): boolean {
  return GLOB_CHARS.test(pattern);
}

export interface Expansion {
  /** Workspace-relative paths of the matching files, sorted, each really inside the root. */
  files: string[];
  /** How many matches there were in all, when more than `limit` (the rest are not listed). */
  total?: number;
}

/** The pattern relative to the first root, or a refusal that names only the pattern. */
function relativePattern(pattern: string, roots: readonly string[]): Outcome<string> {
  let rel = pattern.replace(/\\/g, "/");
  if (rel.startsWith("file://")) rel = decodeURIComponent(rel.slice("file://".length));
  const refuse = (why: string): Outcome<never> =>
    fail("permission_denied", `The pattern ${JSON.stringify(pattern)} ${why}, so it is not expanded. Use a pattern relative to the workspace root, such as "src/**/*.ts".`);
  if (rel.includes("\0")) return refuse("holds a NUL character");
  if (rel.includes("..")) return refuse('holds ".." and could reach outside the workspace');
  if (rel.startsWith("~")) return refuse("starts with ~ (a home directory)");
  if (!bracesAreSafe(rel)) return refuse("has a brace group with an empty alternative or one that starts or ends with a dot, which could spell \"..\"");
  if (rel.startsWith("/")) {
    const root = roots[0]!;
    const base = root.endsWith("/") ? root : root + "/";
    if (!rel.startsWith(base)) return refuse("is an absolute path outside the workspace");
    rel = rel.slice(base.length);
  }
  return succeed(rel.replace(/^\.\//, ""));
}

/**
 * Brace groups are refused when an alternative is empty or starts or ends with
 * a dot: that is how braces spell `..` (`.{.,}`, `.{,}.`) out of a pattern that
 * has none. `*.{ts,d.ts}` is fine.
 */
function bracesAreSafe(rel: string): boolean {
  for (const group of rel.matchAll(/\{([^{}]*)\}/g)) {
    if (group[1]!.split(",").some((alt) => alt === "" || alt.startsWith(".") || alt.endsWith("."))) return false;
  }
  return true;
}

/** The directory part before the first glob character: where the walk starts. */
function staticPrefix(rel: string): string {
  const parts = rel.split("/");
  const fixed: string[] = [];
  for (const part of parts.slice(0, -1)) {
    if (GLOB_CHARS.test(part)) break;
    fixed.push(part);
  }
  return fixed.join("/");
}

/** Expands `pattern` below the first root; node_modules and .git are skipped unless the pattern names them. */
export async function expandGlob(sandbox: Sandbox, pattern: string, options: { limit: number; signal: AbortSignal }): Promise<Outcome<Expansion>> {
  const rel = relativePattern(pattern, sandbox.roots);
  if (!rel.ok) return rel;
  const root = sandbox.roots[0]!;
  // The walk starts at the pattern's fixed directories: they must really be inside the root (a link to `/` is not).
  const prefix = staticPrefix(rel.value);
  if (prefix !== "") {
    const start = await sandbox.resolve(prefix, "list");
    if (!start.ok || start.value.root !== root) {
      return fail("permission_denied", `The pattern ${JSON.stringify(pattern)} starts in a directory outside the workspace (through a symbolic link), so it is not expanded.`, [
        "Use a pattern whose directories are inside the workspace.",
      ]);
    }
  }
  const explicit = /(^|\/)(node_modules|\.git)(\/|$)/.test(rel.value);
  // Loaded on first use: most commands never glob, and start-up time is paid on every CLI call.
  const { glob } = await import("tinyglobby");
  const matches = await glob(rel.value, {
    cwd: root,
    onlyFiles: true,
    dot: false,
    followSymbolicLinks: false,
    braceExpansion: true,
    expandDirectories: false,
    ignore: explicit ? [] : ["**/node_modules/**", "**/.git/**"],
  });
  if (options.signal.aborted) return fail("cancelled", "Cancelled while expanding the pattern.");
  matches.sort();
  // A match that is a link out of the root is dropped, not reported: its name says where it points.
  const files: string[] = [];
  for (const match of matches) {
    if (files.length >= options.limit) break;
    const resolved = await sandbox.resolve(match, "read");
    if (resolved.ok && resolved.value.root === root) files.push(resolved.value.rel);
  }
  return succeed(matches.length > options.limit ? { files, total: matches.length } : { files });
}
