// The repository as attacker: ripgrep opens and reads every ignore file as it
// walks, through links, whole. A FIFO named .gitignore makes it wait for ever; a
// .gitignore linked to /dev/zero makes it grow by gigabytes a second. lockstep
// sees it wait or grow, ends it, and answers through the walker (which reads
// neither): the same answer as the JavaScript search, for a search and for a
// glob. Needs rg on PATH and mkfifo (CI has both).
import { execFileSync } from "node:child_process";
import { promises as fs } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { Sandbox } from "../../server/src/workspace/sandbox.js";
import { expandGlob, scopeOf } from "../../server/src/workspace/walk.js";
import { compileSearch } from "../../server/src/workspace/walk/line-search.js";
import { planRipgrep, searchWithRipgrep } from "../../server/src/workspace/walk/rg-search.js";
import { STALL_MS } from "../../server/src/workspace/walk/rg-watch.js";
import { findRipgrep } from "../../server/src/workspace/walk/ripgrep.js";
import { searchTree } from "../../server/src/workspace/walk/search-tree.js";
import { Workspace } from "../../server/src/workspace/workspace.js";
import { tempDir, writeTree } from "../support/workspace-fixture.js";

describe.skipIf(findRipgrep() === undefined || process.platform !== "linux")(
  "an ignore file rg cannot read",
  () => {
    it.each([
      ["a FIFO", (at: string) => execFileSync("mkfifo", [at])],
      ["a link to /dev/zero", (at: string) => execFileSync("ln", ["-s", "/dev/zero", at])],
    ])(
      "%s named .gitignore: rg is ended, and the walker answers the search and the glob",
      async (_, make) => {
        const root = await fs.realpath(tempDir("lockstep-rg-attack-"));
        await writeTree(root, { ".git/HEAD": "x\n", "a.txt": "Needle top\n", "sub/b.txt": "Needle below\n" });
        make(path.join(root, "sub", ".gitignore"));
        const workspace = new Workspace(await Sandbox.create([root]));
        const compiled = compileSearch("Needle", undefined);
        const scope = await scopeOf(workspace.sandbox, undefined);
        if (!compiled.ok || !scope.ok) throw new Error("pattern");
        const request = {
          pattern: compiled.value,
          scope: scope.value,
          maxResults: 100,
          signal: new AbortController().signal,
        };

        const plan = await planRipgrep(workspace, request);
        if (typeof plan === "string") throw new Error(plan);
        const began = performance.now();
        expect(await searchWithRipgrep(workspace, request, plan)).toBeUndefined();
        // Ended by the watch, not left to the test's own timeout.
        expect(performance.now() - began).toBeLessThan(STALL_MS + 10_000);

        const answer = await searchTree(workspace, request);
        expect(answer).toEqual(await searchTree(workspace, { ...request, engine: "js" }));
        expect(answer.ok && answer.value.matches.map((m) => m.file_path)).toEqual(["a.txt", "sub/b.txt"]);

        const signal = new AbortController().signal;
        const globbed = await expandGlob(workspace.sandbox, "**/*.txt", { limit: 100, signal });
        expect(globbed.ok && globbed.value.files).toEqual(["a.txt", "sub/b.txt"]);
      },
      60_000,
    );
  },
);
