// `lockstep apply-patch` without FILE, as a user runs it: `git diff` output and
// OpenAI's apply_patch envelope across files, all files written or none; and
// with FILE, a diff that also changes other files refused with their names.
import { execFileSync } from "node:child_process";
import { existsSync, promises as fs } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { lockstep, requireBuild, workspace } from "./cli-run.js";

requireBuild();

const STATS =
  "def mean(xs):\n    return sum(xs) / len(xs)\n\n\ndef spread(xs):\n    return max(xs) - min(xs)\n";
const OTHER = "from stats import mean\n\nprint(mean([1, 2, 3]))\n";
const GONE = "obsolete\n";

async function tree(root: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (dir: string): Promise<void> => {
    for (const e of await fs.readdir(dir, { withFileTypes: true })) {
      if (e.name === ".git") continue;
      const full = path.join(dir, e.name);
      if (e.isDirectory()) await walk(full);
      else out[path.relative(root, full)] = await fs.readFile(full, "utf8");
    }
  };
  await walk(root);
  return out;
}

const git = (root: string, ...args: string[]): string =>
  execFileSync("git", ["-c", "user.email=t@t", "-c", "user.name=t", ...args], {
    cwd: root,
    encoding: "utf8",
  });

/** A repository at `before`, the `git diff` that turns it into `after` (renames found), and the files reset to `before`. */
async function gitChange(
  before: Record<string, string>,
  change: (root: string) => Promise<void>,
): Promise<{ root: string; diff: string; after: Record<string, string> }> {
  const root = await workspace(before);
  git(root, "init", "-q");
  git(root, "add", "-A");
  git(root, "commit", "-qm", "base");
  await change(root);
  git(root, "add", "-A");
  const diff = git(root, "diff", "--cached", "-M");
  const after = await tree(root);
  git(root, "reset", "-q", "--hard");
  git(root, "clean", "-qfd");
  return { root, diff, after };
}

const twoFileChange = (root: string): Promise<void> =>
  Promise.all([
    fs.writeFile(
      path.join(root, "stats.py"),
      STATS.replace("return sum(xs) / len(xs)", "return sum(xs) / max(len(xs), 1)"),
    ),
    fs.writeFile(path.join(root, "other.py"), OTHER.replace("[1, 2, 3]", "[]")),
  ]).then(() => undefined);

describe("lockstep apply-patch without FILE: a diff across files", () => {
  it("applies git diff output that changes, creates, deletes and renames files", async () => {
    const { root, diff, after } = await gitChange(
      { "stats.py": STATS, "other.py": OTHER, "gone.txt": GONE, "old/name.py": OTHER },
      async (r) => {
        await twoFileChange(r);
        await fs.rm(path.join(r, "gone.txt"));
        await fs.writeFile(path.join(r, "docs/new.md"), "# New\n").catch(async () => {
          await fs.mkdir(path.join(r, "docs"));
          await fs.writeFile(path.join(r, "docs/new.md"), "# New\n");
        });
        await fs.mkdir(path.join(r, "lib"));
        await fs.rename(path.join(r, "old/name.py"), path.join(r, "lib/name.py"));
      },
    );
    expect(diff).toContain("rename from old/name.py");
    const run = await lockstep(["apply-patch"], { cwd: root, stdin: diff });
    expect(run.status).toBe(0);
    expect(run.envelope.ok).toBe(true);
    expect(await tree(root)).toEqual(after);
    const files = run.envelope.data!["files"] as { file_path: string; op: string; status: string }[];
    expect(files.map((f) => [f.file_path, f.op, f.status]).sort()).toEqual(
      [
        ["docs/new.md", "add", "applied"],
        ["gone.txt", "delete", "applied"],
        ["old/name.py", "move", "applied"],
        ["other.py", "update", "applied"],
        ["stats.py", "update", "applied"],
      ].sort(),
    );
  });

  it("writes nothing when one file's section does not fit, and names that file", async () => {
    const { root, diff } = await gitChange({ "stats.py": STATS, "other.py": OTHER }, twoFileChange);
    await fs.writeFile(path.join(root, "other.py"), "print('someone changed this file')\n");
    const before = await tree(root);
    const run = await lockstep(["apply-patch"], { cwd: root, stdin: diff });
    expect(run.status).toBe(1);
    expect(run.envelope.error!.message).toMatch(/^other\.py: .*Nothing was applied to any file\./s);
    expect(await tree(root)).toEqual(before);
    const files = run.envelope.data!["files"] as { file_path: string; status: string }[];
    expect(files.map((f) => [f.file_path, f.status])).toEqual([
      ["other.py", "failed"],
      ["stats.py", "not_applied"],
    ]);
  });

  it("applies diff -ruN output, reading its paths without the leading folder", async () => {
    const parent = await workspace({
      "old/a.txt": "one\ntwo\n",
      "new/a.txt": "one\n2\n",
      "new/b.txt": "made\n",
    });
    let diff = "";
    try {
      execFileSync("diff", ["-ruN", "old", "new"], { cwd: parent, encoding: "utf8" });
    } catch (error) {
      diff = (error as { stdout: string }).stdout;
    }
    const root = await workspace({ "a.txt": "one\ntwo\n" });
    const run = await lockstep(["apply-patch", "--diff", "-"], { cwd: root, stdin: diff });
    expect(run.envelope.ok).toBe(true);
    expect(await tree(root)).toEqual({ "a.txt": "one\n2\n", "b.txt": "made\n" });
  });
});

describe("lockstep apply-patch FILE with a diff for several files", () => {
  it("refuses, naming the sections it would not apply, and changes nothing", async () => {
    const { root, diff } = await gitChange({ "stats.py": STATS, "other.py": OTHER }, twoFileChange);
    const run = await lockstep(["apply-patch", "stats.py"], { cwd: root, stdin: diff });
    expect(run.status).toBe(1);
    expect(run.envelope.error).toMatchObject({ code: "invalid_diff" });
    expect(run.envelope.error!.message).toContain("`other.py`");
    expect(await tree(root)).toEqual({ "stats.py": STATS, "other.py": OTHER });
  });
});

describe("lockstep apply-patch with an apply_patch envelope", () => {
  const envelope = [
    "*** Begin Patch",
    "*** Update File: stats.py",
    "@@ def spread(xs):",
    "-    return max(xs) - min(xs)",
    "+    return max(xs, default=0) - min(xs, default=0)",
    "*** Update File: other.py",
    "*** Move to: app/main.py",
    "@@",
    "-print(mean([1, 2, 3]))",
    "+print(mean([4]))",
    "*** Add File: README.md",
    "+# Stats",
    "*** Delete File: gone.txt",
    "*** End Patch",
    "",
  ].join("\n");

  it("applies every operation", async () => {
    const root = await workspace({ "stats.py": STATS, "other.py": OTHER, "gone.txt": GONE });
    const run = await lockstep(["apply-patch"], { cwd: root, stdin: envelope });
    expect(run.envelope.ok).toBe(true);
    expect(await tree(root)).toEqual({
      "stats.py": STATS.replace("return max(xs) - min(xs)", "return max(xs, default=0) - min(xs, default=0)"),
      "app/main.py": OTHER.replace("[1, 2, 3]", "[4]"),
      "README.md": "# Stats\n",
    });
  });

  it("refuses an Add File of an existing file and a Delete File of a missing one, writing nothing", async () => {
    const root = await workspace({
      "stats.py": STATS,
      "other.py": OTHER,
      "gone.txt": GONE,
      "README.md": "mine\n",
    });
    const run = await lockstep(["apply-patch"], { cwd: root, stdin: envelope });
    expect(run.envelope.ok).toBe(false);
    expect(run.envelope.error!.message).toContain("README.md");
    expect(await tree(root)).toEqual({
      "stats.py": STATS,
      "other.py": OTHER,
      "gone.txt": GONE,
      "README.md": "mine\n",
    });
    const noGone = await workspace({ "stats.py": STATS, "other.py": OTHER });
    const missing = await lockstep(["apply-patch"], { cwd: noGone, stdin: envelope });
    expect(missing.envelope.error).toMatchObject({ code: "not_found" });
    expect(existsSync(path.join(noGone, "README.md"))).toBe(false);
  });

  it("refuses a Delete File that names a symbolic link, by name, and deletes neither the link nor its target", async () => {
    // It used to delete b.txt and leave the link dangling.
    const root = await workspace({ "b.txt": "keep me\n" });
    await fs.symlink("b.txt", path.join(root, "link-to-b.txt"));
    const run = await lockstep(["apply-patch"], {
      cwd: root,
      stdin: "*** Begin Patch\n*** Delete File: link-to-b.txt\n*** End Patch\n",
    });
    expect(run.envelope.ok).toBe(false);
    expect(run.envelope.error!.message).toMatch(
      /link-to-b\.txt is a symbolic link to b\.txt.*Nothing was applied/,
    );
    expect(await fs.readFile(path.join(root, "b.txt"), "utf8")).toBe("keep me\n");
    expect((await fs.lstat(path.join(root, "link-to-b.txt"))).isSymbolicLink()).toBe(true);
    // The file itself, named, is deleted as before.
    const direct = await lockstep(["apply-patch"], {
      cwd: root,
      stdin: "*** Begin Patch\n*** Delete File: b.txt\n*** End Patch\n",
    });
    expect(direct.envelope.ok).toBe(true);
    expect(existsSync(path.join(root, "b.txt"))).toBe(false);
  });

  it("with FILE, refuses an envelope that also changes other files", async () => {
    const root = await workspace({ "stats.py": STATS, "other.py": OTHER, "gone.txt": GONE });
    const run = await lockstep(["apply-patch", "stats.py"], { cwd: root, stdin: envelope });
    expect(run.envelope.error!.message).toMatch(/`other\.py`.*`app\/main\.py`.*`README\.md`.*`gone\.txt`/);
    expect(await tree(root)).toEqual({ "stats.py": STATS, "other.py": OTHER, "gone.txt": GONE });
  });
});

describe("a large change across files", () => {
  it("of over 512 KB (the size the engine runs in its worker) lands whole", async () => {
    const root = await workspace({ "stats.py": STATS });
    const big = Array.from({ length: 40_000 }, (_, i) => `+line ${i} of a generated table`).join("\n");
    const envelope = [
      "*** Begin Patch",
      "*** Update File: stats.py",
      "@@ def spread(xs):",
      "-    return max(xs) - min(xs)",
      "+    return 0",
      "*** Add File: table.txt",
      big,
      "*** End Patch",
      "",
    ].join("\n");
    const run = await lockstep(["apply-patch"], { cwd: root, stdin: envelope });
    expect(run.envelope.ok).toBe(true);
    expect((await fs.readFile(path.join(root, "table.txt"), "utf8")).split("\n")).toHaveLength(40_001);
    expect(await fs.readFile(path.join(root, "stats.py"), "utf8")).toContain("return 0");
  });
});
