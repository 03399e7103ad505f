// ripgrep's path and the JavaScript search give the same answer on the same
// tree: which files are searched (nested .gitignore and .ignore, a .ignore
// ranked over a deeper .gitignore, nested repositories, hidden files,
// node_modules and .git, links, files over 64 MB), the binary and UTF-8 rules,
// open buffers by their unsaved text, Unicode and smart case, the order of the
// matches, files_searched and truncated. Needs rg on PATH (CI installs it).
import { promises as fs } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { scopeOf } from "../../server/src/workspace/walk.js";
import { includeFilter } from "../../server/src/workspace/walk/glob.js";
import { compileSearch } from "../../server/src/workspace/walk/line-search.js";
import { planRipgrep, searchWithRipgrep } from "../../server/src/workspace/walk/rg-search.js";
import { findRipgrep, searchEngine } from "../../server/src/workspace/walk/ripgrep.js";
import { searchTree, type TreeSearch } from "../../server/src/workspace/walk/search-tree.js";
import type { Workspace } from "../../server/src/workspace/workspace.js";
import { setUp } from "./rg-tree.js";

const PATTERNS = [
  "Needle",
  "needle",
  "NEEDLE",
  "key",
  "Needle [0-9]-1\\d",
  "(?:Needle|zzz) [24]",
  "\\bneedle\\b",
  "é.*Needle",
  "naïve",
  "a\\.b",
  "needle$",
  "Needle(?= 1)",
  "(?<=naïve )needle",
];

async function request(
  workspace: Workspace,
  pattern: string,
  max: number,
  extra: { path?: string; include?: string } = {},
): Promise<TreeSearch> {
  const compiled = compileSearch(pattern, undefined);
  const scope = await scopeOf(workspace.sandbox, extra.path);
  if (!compiled.ok || !scope.ok) throw new Error("pattern or scope");
  return {
    pattern: compiled.value,
    scope: scope.value,
    maxResults: max,
    signal: new AbortController().signal,
    ...(extra.include ? { include: includeFilter(extra.include) } : {}),
  };
}

const rg = findRipgrep();

describe.skipIf(rg === undefined)("search through ripgrep", () => {
  it("gives what the JavaScript search gives: files, rules, buffers, order, files_searched, truncated", async () => {
    const { workspace, root } = await setUp();
    const compare = async (
      extras: { path?: string; include?: string }[],
      expected: string,
    ): Promise<void> => {
      for (const extra of extras) {
        for (const pattern of PATTERNS) {
          for (const max of [1, 3, 20, 1000]) {
            const r = await request(workspace, pattern, max, extra);
            const plan = await planRipgrep(workspace, r, rg);
            expect({ pattern, extra, plan: typeof plan === "string" ? plan : "rg" }).toEqual({
              pattern,
              extra,
              plan: expected,
            });
            const viaRg = typeof plan === "string" ? undefined : await searchWithRipgrep(workspace, r, plan);
            const viaJs = await searchTree(workspace, { ...r, engine: "js" });
            const shown = (o: typeof viaJs | undefined): object =>
              o === undefined ? { fellBack: true } : o.ok ? o.value : o.error;
            if (expected === "rg")
              expect({ pattern, max, extra, ...shown(viaRg) }).toEqual({
                pattern,
                max,
                extra,
                ...shown(viaJs),
              });
            // What a search answers (rg or not) is what JavaScript answers.
            const chosen = await searchTree(workspace, r);
            expect({ pattern, max, extra, ...shown(chosen) }).toEqual({
              pattern,
              max,
              extra,
              ...shown(viaJs),
            });
          }
        }
      }
    };
    await compare([{}, { include: "*.txt" }], "rg");
    // Below the root, the root's ignore files are JavaScript's to read; without them, rg's.
    await compare([{ path: "d2" }, { path: "src" }], "ignore files above the directory searched");
    await fs.rename(path.join(root, ".gitignore"), path.join(root, "gitignore.off"));
    await fs.rename(path.join(root, ".ignore"), path.join(root, "ignore.off"));
    await compare([{ path: "d2" }, { path: "src" }, { path: "repo" }], "rg");
    await fs.rename(path.join(root, "gitignore.off"), path.join(root, ".gitignore"));
    await fs.rename(path.join(root, "ignore.off"), path.join(root, ".ignore"));
    // The tree's traps are there: the unsaved buffer is searched, its disk copy is not.
    const all = await searchTree(workspace, await request(workspace, "Needle", 1000));
    const found = all.ok ? all.value.matches.map((m) => `${m.file_path}:${m.line}`) : [];
    expect(found).toEqual(
      expect.arrayContaining([
        "open.txt:1",
        "open.txt:3",
        "nul-late.txt:5001",
        "a/b.txt:1",
        "deep/kept.tmp:1",
        "repo/x.log:1",
        "big/located.txt:1",
        "big/bom.txt:1",
        "repo/build/out.txt:1",
        "sub/y.log:1",
      ]),
    );
    expect(found.indexOf("a/b.txt:1")).toBeLessThan(found.indexOf("a.b:1"));
    expect(found.some((f) => f.startsWith("d4/f0"))).toBe(true);
    expect(found.filter((f) => f.startsWith("big/invalid-late"))).toEqual([]);
    for (const absent of [
      "src/gen-drop.ts",
      "node_modules",
      "nul-early",
      "latin1",
      "keep.log",
      "link.txt",
      "linked-dir",
      "deep/dropped.tmp",
      "repo/.git",
      "d4/f1",
    ])
      expect(found.filter((f) => f.startsWith(absent))).toEqual([]);
  });

  it("says which search runs, for lockstep config and the server's status; LOCKSTEP_SEARCH=js declines rg", () => {
    const before = process.env["LOCKSTEP_SEARCH"];
    try {
      delete process.env["LOCKSTEP_SEARCH"];
      const used = /^ripgrep \d+\.\d+\S* \(\/.*rg\), JavaScript where rg cannot give the same answer$/;
      const declined =
        /^JavaScript \(ripgrep \d+\.\d+\S* is installed, but only ripgrep 13 and 14 read ignore files as lockstep does\)$/;
      expect(searchEngine()).toMatch(rg!.major === 13 || rg!.major === 14 ? used : declined);
      process.env["LOCKSTEP_SEARCH"] = "js";
      expect(searchEngine()).toBe(`JavaScript (LOCKSTEP_SEARCH=js; ${rg!.version} is installed)`);
    } finally {
      if (before === undefined) delete process.env["LOCKSTEP_SEARCH"];
      else process.env["LOCKSTEP_SEARCH"] = before;
    }
  });

  it("leaves to JavaScript what rg cannot do alike: no required text, a file, ignore files above the path", async () => {
    const { workspace, root } = await setUp();
    const plans = async (pattern: string, p?: string) =>
      planRipgrep(workspace, await request(workspace, pattern, 10, p === undefined ? {} : { path: p }), rg);
    expect(await plans("\\w+")).toBe("no required text in the pattern");
    expect(await plans("Needle", "a.b")).toBe("one file");
    await fs.mkdir(path.join(root, "src", "x"));
    expect(await plans("Needle", "src/x")).toBe("ignore files above the directory searched");
    expect(await plans("Needle", "d3")).toBe("ignore files above the directory searched");
    await fs.rm(path.join(root, ".gitignore"));
    await fs.rm(path.join(root, ".ignore"));
    expect(await plans("Needle", "d3")).toBeTypeOf("object");
    expect(await plans("Needle", "src/x")).toBe("ignore files above the directory searched");
    // ripgrep 14 stops a .gitignore at a nested repository only when started in a repository.
    const fourteen = { ...rg!, version: "ripgrep 14.1.1", major: 14 };
    const plan14 = async (p?: string) =>
      planRipgrep(
        workspace,
        await request(workspace, "Needle", 10, p === undefined ? {} : { path: p }),
        fourteen,
      );
    const inRepository = await plan14();
    expect(typeof inRepository === "object" && inRepository.flags.includes("--no-require-git")).toBe(false);
    expect(inRepository).toMatchObject({ flags: expect.arrayContaining(["--hidden"]) as string[] });
    await fs.rm(path.join(root, ".git"), { recursive: true });
    expect(await plan14()).toBe("ripgrep 14.1.1 outside a repository's root");
    expect(await plan14("d3")).toBe("ripgrep 14.1.1 outside a repository's root");
  });
});
