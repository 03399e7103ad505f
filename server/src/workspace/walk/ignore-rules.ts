// .gitignore and .ignore, nested, with the `ignore` package's matching. Each
// directory's files hold rules relative to that directory; the deepest file
// that has a say about a path decides, and `.ignore` overrides `.gitignore` in
// the same directory (as ripgrep reads them).
import { promises as fs } from "node:fs";
import path from "node:path";
import ignore, { type Ignore } from "ignore";

export const IGNORE_FILES = [".gitignore", ".ignore"] as const;

interface Frame {
  /** Root-relative directory the rules are relative to ("" for the root). */
  dir: string;
  rules: Ignore;
}

/** The rules in force in one directory: its own files' and every ancestor's. */
export class IgnoreRules {
  private constructor(private readonly frames: readonly Frame[]) {}

  static readonly none = new IgnoreRules([]);

  /** These rules plus the ones in `dirAbs` (root-relative `dirRel`), when it holds any of `present`. */
  async enter(dirAbs: string, dirRel: string, present: readonly string[]): Promise<IgnoreRules> {
    if (present.length === 0) return this;
    const rules = ignore();
    let any = false;
    for (const name of IGNORE_FILES) {
      if (!present.includes(name)) continue;
      const text = await fs.readFile(path.join(dirAbs, name), "utf8").catch(() => "");
      if (text.trim() === "") continue;
      rules.add(text);
      any = true;
    }
    return any ? new IgnoreRules([...this.frames, { dir: dirRel, rules }]) : this;
  }

  /** Whether a root-relative path is ignored; directories are tested with a trailing slash. */
  ignores(rel: string, isDirectory: boolean): boolean {
    for (let i = this.frames.length - 1; i >= 0; i--) {
      const frame = this.frames[i]!;
      const local = frame.dir === "" ? rel : rel.slice(frame.dir.length + 1);
      const verdict = frame.rules.test(isDirectory ? `${local}/` : local);
      if (verdict.ignored) return true;
      if (verdict.unignored) return false;
    }
    return false;
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
      const present = await presentIgnoreFiles(dirAbs);
      rules = await rules.enter(dirAbs, dirRel, present);
      if (rules.ignores(names.slice(0, i + 1).join("/"), true)) return IgnoreRules.none;
    }
    return rules;
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
