// Changes across files for the multi-file and apply_patch sections: the bench's
// subjects (real files with their edits) grouped into commits of two to four
// files, some also creating, deleting or renaming a file, with the diff `git
// diff` writes for each and the same change as an apply_patch envelope.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { structuredPatch } from "diff";
import type { Rng } from "./prng.js";
import type { Subject } from "./variants.js";

export type Tree = Record<string, string>;

export interface Commit {
  name: string;
  before: Tree;
  after: Tree;
  /** What `git diff --cached -M` prints for it. */
  gitDiff: string;
  /** Updates, creates, deletes and renames, as an apply_patch envelope (hunks with 3 lines of context, `@@` without numbers). */
  envelope: string;
  /** The files it edits in place (a stale copy of one must refuse the whole change). */
  edited: string[];
}

export function writeTree(dir: string, tree: Tree): void {
  for (const [name, text] of Object.entries(tree)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
}

const git = (cwd: string, ...args: string[]): string =>
  execFileSync(
    "git",
    ["-c", "user.email=bench@lockstep", "-c", "user.name=bench", "-c", "core.autocrlf=false", ...args],
    { cwd, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 },
  );

/** `git diff` between two trees: a repository with `before` committed and `after` staged. */
function realGitDiff(before: Tree, after: Tree): string {
  const dir = mkdtempSync(join(tmpdir(), "lockstep-bench-commit-"));
  try {
    git(dir, "init", "-q");
    writeTree(dir, before);
    git(dir, "add", "-A");
    git(dir, "commit", "-qm", "before");
    for (const name of Object.keys(before)) if (!(name in after)) rmSync(join(dir, name));
    writeTree(dir, after);
    git(dir, "add", "-A");
    return git(dir, "diff", "--cached", "-M", "--no-color", "--no-ext-diff");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** One file's update as envelope hunks: each hunk's lines under a bare `@@`. */
function envelopeHunks(path: string, before: string, after: string): string[] {
  const patch = structuredPatch(path, path, before, after, "", "", { context: 3 });
  const out: string[] = [];
  for (const h of patch.hunks) {
    out.push("@@");
    for (const l of h.lines) if (!l.startsWith("\\")) out.push(l.replace(/\r$/, ""));
  }
  return out;
}

export function toEnvelope(before: Tree, after: Tree, renames: ReadonlyMap<string, string>): string {
  const lines = ["*** Begin Patch"];
  const renamedTo = new Set(renames.values());
  for (const name of Object.keys(before)) {
    const to = renames.get(name);
    if (to !== undefined) {
      lines.push(
        `*** Update File: ${name}`,
        `*** Move to: ${to}`,
        ...(before[name] === after[to] ? [] : envelopeHunks(name, before[name]!, after[to]!)),
      );
    } else if (!(name in after)) lines.push(`*** Delete File: ${name}`);
    else if (before[name] !== after[name])
      lines.push(`*** Update File: ${name}`, ...envelopeHunks(name, before[name]!, after[name]!));
  }
  for (const name of Object.keys(after)) {
    if (name in before || renamedTo.has(name)) continue;
    lines.push(
      `*** Add File: ${name}`,
      ...after[name]!.replace(/\n$/, "")
        .split("\n")
        .map((l) => "+" + l),
    );
  }
  lines.push("*** End Patch", "");
  return lines.join("\n");
}

/**
 * Commits of 2–4 subjects each. About a third also create a file, a third delete
 * one and a third rename one of their edited files (the edit travels with it).
 */
export function makeCommits(subjects: readonly Subject[], rng: Rng): Commit[] {
  const commits: Commit[] = [];
  // CRLF and missing final newlines are the single-file sections' business: an envelope's Add File writes LF lines.
  const usable = subjects.filter((s) => !s.crlf && s.pre.endsWith("\n") && s.post.endsWith("\n"));
  for (let i = 0; i + 1 < usable.length; ) {
    const size = Math.min(rng.int(2, 4), usable.length - i);
    const group = usable.slice(i, i + size);
    i += size;
    const before: Tree = {};
    const after: Tree = {};
    const renames = new Map<string, string>();
    for (const s of group) {
      before[s.file.path] = s.pre;
      after[s.file.path] = s.post;
    }
    const extra = usable[(i + 7) % usable.length]!;
    const n = commits.length;
    if (rng.chance(0.35)) after[`added/${n}/${extra.file.path.split("/").pop()!}`] = extra.post;
    if (rng.chance(0.35)) before[`removed/${n}/${extra.file.path.split("/").pop()!}`] = extra.pre;
    if (rng.chance(0.35)) {
      const moved = group[0]!.file.path;
      const to = `renamed/${n}/${moved.split("/").pop()!}`;
      after[to] = after[moved]!;
      delete after[moved];
      renames.set(moved, to);
    }
    commits.push({
      name: group.map((s) => s.file.path).join(" + "),
      before,
      after,
      gitDiff: realGitDiff(before, after),
      envelope: toEnvelope(before, after, renames),
      edited: group.map((s) => s.file.path).filter((p) => !renames.has(p)),
    });
  }
  return commits;
}
