// The walker reads ignore files as ripgrep does: a `.rgignore` with a say decides
// first, then a `.ignore`, then a `.gitignore`, whatever their depths, and a directory holding `.git`
// (a directory, a file, or a link to something that exists) starts a repository
// where the `.gitignore` files above it stop applying and the `.ignore` files go on.
import { promises as fs } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { walkFiles } from "../../server/src/workspace/walk/walker.js";
import { IgnoreRules } from "../../server/src/workspace/walk/ignore-rules.js";
import { tempDir, writeTree } from "../support/workspace-fixture.js";

async function walked(root: string, rel = ""): Promise<string[]> {
  const out: string[] = [];
  for await (const f of walkFiles({ root, rel }, { signal: new AbortController().signal })) out.push(f.rel);
  return out;
}

describe("ignore files, read as ripgrep reads them", () => {
  it("stops the outer .gitignore at a nested repository, keeps .ignore, and ranks .rgignore, .ignore, .gitignore", async () => {
    const root = await fs.realpath(tempDir("lockstep-ignore-"));
    await writeTree(root, {
      ".gitignore": "*.log\nbuild/\n",
      ".ignore": "*.bak\n!deep/kept.tmp\n",
      "top.log": "",
      "deep/.gitignore": "*.tmp\n",
      "deep/kept.tmp": "",
      "deep/dropped.tmp": "",
      "repo/.git/HEAD": "ref: refs/heads/main\n",
      "repo/.gitignore": "own.txt\n",
      "repo/own.txt": "",
      "repo/inner.log": "",
      "repo/build/out.txt": "",
      "repo/old.bak": "",
      "repo/deeper/more.log": "",
      "worktree/.git": "gitdir: elsewhere\n",
      "worktree/w.log": "",
      "linked/x.log": "",
      "dangling/y.log": "",
      "rg/.gitignore": "*.txt\n",
      "rg/.rgignore": "!keep.txt\nsecret.md\n",
      "rg/keep.txt": "",
      "rg/other.txt": "",
      "rg/secret.md": "",
      "rg/plain.md": "",
    });
    await fs.symlink(path.join(root, "repo", ".git"), path.join(root, "linked", ".git"));
    await fs.symlink(path.join(root, "nowhere"), path.join(root, "dangling", ".git"));
    const files = await walked(root);
    expect(files).toEqual(
      expect.arrayContaining([
        "deep/kept.tmp",
        "repo/inner.log",
        "repo/build/out.txt",
        "repo/deeper/more.log",
        "worktree/.git",
        "worktree/w.log",
        "linked/x.log",
        "rg/keep.txt",
        "rg/plain.md",
      ]),
    );
    for (const gone of [
      "top.log",
      "deep/dropped.tmp",
      "repo/own.txt",
      "repo/old.bak",
      "dangling/y.log",
      "rg/other.txt",
      "rg/secret.md",
    ])
      expect(files).not.toContain(gone);
    expect(files.some((f) => f.startsWith("repo/.git/"))).toBe(false);
    // A walk that starts inside the nested repository reads the rules above it the same way.
    expect(await walked(root, "repo/deeper")).toEqual(["repo/deeper/more.log"]);
    const above = await IgnoreRules.above(root, "repo/deeper");
    expect(above.ignores("repo/deeper/more.log", false)).toBe(false);
    expect(above.ignores("repo/deeper/x.bak", false)).toBe(true);
  });
});

describe("an ignore file is the repository's input", () => {
  it("is not read over 1 MB, nor through a link, nor when it is a FIFO: the walk goes on without it", async () => {
    const root = await fs.realpath(tempDir("lockstep-ignore-bounds-"));
    await writeTree(root, {
      "big/x.log": "",
      "big/keep.txt": "",
      "linked/y.log": "",
      "fifo/z.log": "",
      "outside/.gitignore": "*.log\n",
    });
    // 100 MB of rules (sparse): read, it would be compiled for every path walked.
    await fs.writeFile(path.join(root, "big", ".gitignore"), "*.log\n");
    await fs.truncate(path.join(root, "big", ".gitignore"), 100 * 1024 * 1024);
    await fs.symlink(path.join(root, "outside", ".gitignore"), path.join(root, "linked", ".gitignore"));
    const { execFileSync } = await import("node:child_process");
    execFileSync("mkfifo", [path.join(root, "fifo", ".gitignore")]);
    const began = performance.now();
    const files = await walked(root);
    expect(performance.now() - began).toBeLessThan(10_000);
    expect(files).toEqual(
      expect.arrayContaining(["big/x.log", "big/keep.txt", "linked/y.log", "fifo/z.log"]),
    );
    // A file inside the bound is read as before.
    expect(files).not.toContain("outside/x.log");
    const above = await IgnoreRules.above(root, "outside/deeper");
    expect(above.ignores("outside/deeper/a.log", false)).toBe(true);
  });
});
