// In a process that answers nothing else (lockstep search), the files ripgrep
// names are searched in place for a pattern with no regular-expression syntax
// (no thread starts), and on the watched threads for any other: the answers are
// the JavaScript search's either way. Its own file: searchAlone() is for the process.
import { describe, expect, it } from "vitest";
import { scopeOf } from "../../server/src/workspace/walk.js";
import { compileSearch } from "../../server/src/workspace/walk/line-search.js";
import { findRipgrep } from "../../server/src/workspace/walk/ripgrep.js";
import { searchTree } from "../../server/src/workspace/walk/search-tree.js";
import { searchAlone, searchesHere } from "../../server/src/workspace/walk/search-worker.js";
import { setUp } from "./rg-tree.js";

describe.skipIf(findRipgrep() === undefined)("a search alone in its process", () => {
  it("searches plain text in place and patterns on the threads, with the same answers", async () => {
    expect(searchesHere({ source: "Needle" })).toBe(false);
    searchAlone();
    const { workspace } = await setUp();
    for (const [pattern, here] of [
      ["Needle", true],
      ["needle", true],
      ["naïve needle", true],
      ["Needle [0-9]", false],
      ["a\\.b", false],
    ] as const) {
      const compiled = compileSearch(pattern, undefined);
      const scope = await scopeOf(workspace.sandbox, undefined);
      if (!compiled.ok || !scope.ok) throw new Error("pattern");
      expect({ pattern, here: searchesHere(compiled.value) }).toEqual({ pattern, here });
      for (const maxResults of [1, 3, 1000]) {
        const request = {
          pattern: compiled.value,
          scope: scope.value,
          maxResults,
          signal: new AbortController().signal,
        };
        const alone = await searchTree(workspace, request);
        const js = await searchTree(workspace, { ...request, engine: "js" });
        expect({ pattern, maxResults, ...(alone.ok ? alone.value : alone.error) }).toEqual({
          pattern,
          maxResults,
          ...(js.ok ? js.value : js.error),
        });
      }
    }
  });
});
