// A tree searched by several threads at once, batch by batch, gives what one
// pass over its files in walk order gives: the same matches in the same order,
// the same files_searched (counted up to the file where the limit was passed)
// and the same truncated, with and without a prefilter for the pattern.
import { promises as fs } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { scopeOf } from "../../server/src/workspace/walk.js";
import { compileSearch, searchLines } from "../../server/src/workspace/walk/line-search.js";
import { searchTree } from "../../server/src/workspace/walk/search-tree.js";
import { makeWorkspace } from "../support/workspace-fixture.js";

/** A seeded generator (the same tree every run). */
function lcg(seed: number): () => number {
  let s = seed;
  return () => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
}

function generatedTree(): Record<string, string | Buffer> {
  const random = lcg(36);
  const tree: Record<string, string | Buffer> = {};
  for (let d = 0; d < 9; d++) {
    for (let f = 0; f < 100; f++) {
      const lines = Array.from({ length: 1 + Math.floor(random() * 30) }, (_, n) =>
        random() < 0.03 ? `const a = "Needle ${d}-${f}-${n}";` : `line ${n} of é😀 text`,
      );
      const text = lines.join(random() < 0.3 ? "\r\n" : "\n") + "\n";
      const kind = random();
      const rel = `d${d}/f${String(f).padStart(3, "0")}.txt`;
      tree[rel] =
        kind < 0.03
          ? Buffer.concat([Buffer.from([0]), Buffer.from(text)])
          : kind < 0.06
            ? Buffer.concat([Buffer.from(text), Buffer.from([0xff])])
            : text;
    }
  }
  return tree;
}

/** One file after another in walk order, as the search did with one thread and no prefilter. */
function reference(tree: Record<string, string | Buffer>, pattern: string, max: number) {
  const compiled = compileSearch(pattern, undefined);
  if (!compiled.ok) throw new Error(compiled.error.message);
  const matches: { file_path: string; line: number; text: string }[] = [];
  let found = 0;
  let searched = 0;
  for (const rel of Object.keys(tree).sort()) {
    if (found > max) break;
    const bytes = Buffer.from(tree[rel]!);
    // A binary file was looked at: it counts, and has no matches.
    searched++;
    let text: string;
    try {
      if (bytes.subarray(0, 8192).includes(0)) continue;
      text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
    } catch {
      continue;
    }
    const hits = searchLines(text, compiled.value.source, compiled.value.flags, max + 1 - found);
    found += hits.length;
    matches.push(...hits.map((h) => ({ file_path: rel, line: h.line, text: h.text })));
  }
  return { matches: matches.slice(0, max), files_searched: searched, truncated: found > max };
}

describe("searchTree on several threads", () => {
  it("gives the matches, files_searched and truncated of one pass in walk order, for literals, case folding and regular expressions", async () => {
    const tree = generatedTree();
    const ws = await makeWorkspace(tree);
    try {
      for (const pattern of [
        "Needle",
        "needle",
        "Needle [0-9]-1\\d",
        "(?:Needle|zzz) 8",
        "[N]eedle",
        "line 2\\b",
      ]) {
        for (const max of [1, 5, 40, 1000]) {
          const expected = { pattern, max, ...reference(tree, pattern, max) };
          const result = await ws.call("search_files", { pattern, max_results: max });
          expect({ pattern, max, ...result.data }).toEqual(expected);
          // Three batches at once, whatever this machine's cores.
          const compiled = compileSearch(pattern, undefined);
          const scope = await scopeOf(ws.ctx.workspace.sandbox, undefined);
          if (!compiled.ok || !scope.ok) throw new Error("pattern or scope");
          const three = await searchTree(ws.ctx.workspace, {
            pattern: compiled.value,
            scope: scope.value,
            maxResults: max,
            signal: new AbortController().signal,
            threads: 3,
            engine: "js",
          });
          expect({ pattern, max, ...(three.ok ? three.value : three.error) }).toEqual(expected);
        }
      }
    } finally {
      await fs.rm(path.dirname(ws.root), { recursive: true, force: true });
    }
  });
});
