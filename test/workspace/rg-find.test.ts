// find_files (and every glob: read_many_files, @ mentions) through ripgrep's
// listing names the same files, in the same order, as the walker, on the tree
// the searches are compared on (rg-tree.ts): every rule of the walk, the limit
// and the count past it. Needs rg on PATH (CI installs it).
import { describe, expect, it } from "vitest";
import { expandGlob } from "../../server/src/workspace/walk.js";
import { findRipgrep } from "../../server/src/workspace/walk/ripgrep.js";
import { setUp } from "./rg-tree.js";

const rg = findRipgrep();

describe.skipIf(rg === undefined)("globs through ripgrep", () => {
  it("name the walker's files in its order, with the limit and the count past it", async () => {
    const { workspace } = await setUp();
    const signal = new AbortController().signal;
    const patterns = [
      "**/*",
      "**/*.txt",
      "**/*.log",
      "d*/**/f0*",
      "**/.*",
      "repo/**",
      "big/**/*.txt",
      "**/node_modules/**",
      "node_modules/**/*.js",
      "**/*.{ts,tmp}",
      "**/.git/**",
    ];
    let viaRg = 0;
    for (const pattern of patterns) {
      for (const limit of [1, 5, 1000]) {
        for (const base of [undefined, "d2", "src"]) {
          const options = { limit, signal, ...(base === undefined ? {} : { base }) };
          const fast = await expandGlob(workspace.sandbox, pattern, options);
          const walked = await expandGlob(workspace.sandbox, pattern, { ...options, engine: "js" });
          const shown = (o: typeof fast) => (o.ok ? { files: o.value.files, total: o.value.total } : o.error);
          expect({ pattern, limit, base, ...shown(fast) }).toEqual({
            pattern,
            limit,
            base,
            ...shown(walked),
          });
          if (fast.ok && fast.value.files.length > 0) viaRg++;
        }
      }
    }
    expect(viaRg).toBeGreaterThan(20);
  });
});
