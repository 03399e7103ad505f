// Glob patterns as the walker reads them: refused before anything is read when
// their expansion could leave the root (or are too long to be a pattern),
// otherwise compiled to a matcher that never backtracks (glob-matcher.ts)
// tested against walked names. A glob is never expanded into paths:
// it only filters entries a walk found below a root, so `..`, `.` and names of
// other places can never come out of it.
import { fail, succeed, type Outcome } from "../../shared/outcome.js";
import { globMatcher } from "./glob-matcher.js";

const GLOB_CHARS = /[*?[\]{}]/;

export function isGlob(pattern: string): boolean {
  return GLOB_CHARS.test(pattern);
}

/** A pattern taken apart for the walk: where to start, what to match, how deep to go. */
export interface CompiledGlob {
  /** The literal directories before the first glob character ("" for none): where the walk starts. */
  prefix: string;
  /** Tests a file's path relative to the walk's base (the directory the pattern is relative to); linear in pattern × path. */
  match: (rel: string) => boolean;
  /** Directory levels below `prefix` the walk needs (Infinity with `**` or a brace holding `/`). */
  depth: number;
  /** The pattern names node_modules or .git itself, so those are walked. */
  namesSkipped: boolean;
}

/** The longest pattern matched (with runs of `*` counted as one): a matcher's cost grows with its pattern. */
export const MAX_GLOB_LENGTH = 1024;

/** A pattern's length as its matcher sees it: a run of stars is one star. */
export function patternLength(pattern: string): number {
  return pattern.replace(/\*+/g, "*").length;
}

/**
 * Refuses a pattern whose expansion could leave the root, naming only the
 * pattern: `..` in any form, braces that could spell it, `~`, NUL. An absolute
 * pattern or file:// URI comes back as-is (the caller finds its root).
 */
export function checkPattern(pattern: string): Outcome<string> {
  let rel = pattern.replace(/\\/g, "/");
  if (/^file:\/\//i.test(rel)) {
    try {
      rel = decodeURIComponent(rel.slice("file://".length));
    } catch {
      return refuse(pattern, "is a file:// URI that does not decode");
    }
  }
  if (rel.includes("\0")) return refuse(pattern, "holds a NUL character");
  if (patternLength(rel) > MAX_GLOB_LENGTH) {
    return fail(
      "invalid_argument",
      `The pattern is ${patternLength(rel)} characters long (runs of * counted as one); patterns longer than ${MAX_GLOB_LENGTH} are not matched.`,
      ['Use a shorter pattern, such as "src/**/*.ts".'],
    );
  }
  if (rel.includes("..")) return refuse(pattern, 'holds ".." and could reach outside the workspace');
  if (rel.startsWith("~")) return refuse(pattern, "starts with ~ (a home directory)");
  if (!bracesAreSafe(rel))
    return refuse(
      pattern,
      'has a brace group with an empty alternative or one that starts or ends with a dot, which could spell ".."',
    );
  return succeed(rel.replace(/^(\.\/)+/, ""));
}

function refuse(pattern: string, why: string): Outcome<never> {
  return fail(
    "permission_denied",
    `The pattern ${JSON.stringify(pattern)} ${why}, so it is not expanded. Use a pattern relative to the workspace root, such as "src/**/*.ts".`,
  );
}

/**
 * Brace groups are refused when an alternative is empty or starts or ends with
 * a dot: that is how braces spell `..` (`.{.,}`, `.{,}.`) out of a pattern that
 * has none. `*.{ts,d.ts}` is fine.
 */
function bracesAreSafe(rel: string): boolean {
  for (const group of rel.matchAll(/\{([^{}]*)\}/g)) {
    if (group[1]!.split(",").some((alt) => alt === "" || alt.startsWith(".") || alt.endsWith(".")))
      return false;
  }
  return true;
}

/** Compiles a checked, relative pattern. Throws on nothing: an unclosed `[` or `{` is a literal. */
export function compileGlob(rel: string): CompiledGlob {
  const parts = rel.split("/");
  const fixed: string[] = [];
  for (const part of parts.slice(0, -1)) {
    if (GLOB_CHARS.test(part)) break;
    fixed.push(part);
  }
  const prefix = fixed.join("/");
  const rest = parts.slice(fixed.length).join("/");
  const unbounded = rest.includes("**") || /\{[^}]*\/[^}]*\}/.test(rest);
  return {
    prefix,
    match: globMatcher(rest),
    depth: unbounded ? Infinity : rest.split("/").length - 1,
    namesSkipped: /(^|\/)(node_modules|\.git)(\/|$)/.test(rel),
  };
}

/** A glob filter such as `*.ts` (any depth, by file name) or `src/**\/*.ts` (by path). */
export function includeFilter(include: string): (rel: string) => boolean {
  const match = globMatcher(include.replace(/\\/g, "/").replace(/^(\.\/)+/, ""));
  if (!include.includes("/")) return (rel) => match(rel.slice(rel.lastIndexOf("/") + 1));
  return match;
}
