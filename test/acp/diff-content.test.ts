// The diff a client is sent, sized for its line: the cut to the changed lines with context is
// exact (the file's other lines around it give back both texts), and what exceeds the limits is
// cut or named. Seeded, so a failure repeats.
import { describe, expect, it } from "vitest";
import {
  changedRegion,
  sizedDiff,
  sizedDiffs,
  UPDATE_DIFF_BUDGET,
} from "../../server/src/acp/diff-content.js";

/** A small deterministic generator (mulberry32). */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function lines(next: () => number, count: number): string[] {
  return Array.from({ length: count }, () => ["a", "b", "c", ""][Math.floor(next() * 4)]!);
}

describe("changedRegion", () => {
  it("is exact: the lines before and after the cut, around it, give back both texts (500 seeded cases)", () => {
    const next = random(33);
    for (let n = 0; n < 500; n++) {
      const before = lines(next, Math.floor(next() * 30)).join("\n");
      const edited = before.split("\n");
      const at = Math.floor(next() * (edited.length + 1));
      edited.splice(at, Math.floor(next() * 3), ...lines(next, Math.floor(next() * 3)));
      const after = edited.join("\n");
      const cut = changedRegion(before, after);
      const head = before.split("\n").slice(0, cut.line - 1);
      const oldLines = cut.oldText.split("\n");
      const tail = before.split("\n").slice(head.length + oldLines.length);
      expect([...head, ...oldLines, ...tail].join("\n")).toBe(before);
      expect([...head, ...cut.newText.split("\n"), ...tail].join("\n")).toBe(after);
    }
  });
});

describe("sizedDiff", () => {
  const big = Array.from({ length: 2000 }, (_, i) => `line ${i}`).join("\n") + "\n";
  it("whole when small, cut with its line past the limit, named when even the cut is too large", () => {
    expect(
      sizedDiff({ file_path: "a", before: { content: "x\n" }, after: "y\n" }, "/r/a", 1e9).content,
    ).toEqual({
      type: "diff",
      path: "/r/a",
      oldText: "x\n",
      newText: "y\n",
    });
    const cut = sizedDiff(
      { file_path: "a", before: { content: big }, after: big.replace("line 1000\n", "line one thousand\n") },
      "/r/a",
      1e9,
    );
    expect(cut.content).toMatchObject({
      type: "diff",
      newText: expect.stringContaining("line one thousand"),
    });
    expect(cut.location).toEqual({ path: "/r/a", line: 998 });
    const named = sizedDiff({ file_path: "a", before: null, after: big }, "/r/a", 1e9);
    expect(named.content.type).toBe("content");
    expect(JSON.stringify(named.content)).toContain("creates a (2000 lines): too large to show here");
  });

  it("one update's diffs stay within the budget together", () => {
    const files = Array.from({ length: 6 }, (_, i) => ({
      file_path: `f${i}`,
      before: { content: "x".repeat(7_000) },
      after: "y".repeat(7_000),
    }));
    const sized = sizedDiffs(files, (rel) => `/r/${rel}`);
    const bytes = sized.reduce((n, d) => n + Buffer.byteLength(JSON.stringify(d.content)), 0);
    expect(bytes).toBeLessThanOrEqual(UPDATE_DIFF_BUDGET + 1_000);
    expect(sized.filter((d) => d.content.type === "diff").length).toBeLessThan(6);
  });
});
