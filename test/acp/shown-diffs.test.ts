// A change's diffs kept as shown and sent again: what the store kept comes back as the same
// update live sent (over seeded changes of every size, across files too), and a stored record
// larger than live could have made (a file is input) is cut or named by the live rules again.
import { describe, expect, it } from "vitest";
import { UPDATE_DIFF_BUDGET } from "../../server/src/acp/diff-content.js";
import { shownOf, shownUpdate } from "../../server/src/acp/shown-diffs.js";
import { diffsOf, Locations } from "../../server/src/acp/updates.js";
import type { ProposedChange } from "../../server/src/review/proposal.js";

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

const where = new Locations("/client/root");

function change(next: () => number, file: string): ProposedChange {
  const count = [3, 400, 3000, 20000][Math.floor(next() * 4)]!;
  const before = Array.from({ length: count }, (_, i) => `line ${i} ${"x".repeat(Math.floor(next() * 30))}`);
  const after = [...before];
  const at = Math.floor(next() * count);
  const width = [1, 5, count][Math.floor(next() * 3)]!;
  after.splice(at, Math.min(width, count - at), ...Array.from({ length: width }, (_, i) => `new ${i}`));
  const created = next() < 0.1;
  return {
    tool: "edit",
    file_path: file,
    uri: `file:///client/root/${file}`,
    before: created
      ? null
      : { file_path: file, content: before.join("\n") + "\n", sha256: "s", version: null },
    after: after.join("\n") + "\n",
    diff: "",
    added: width,
    removed: width,
  } as ProposedChange;
}

describe("shown diffs", () => {
  it("come back as live sent them (300 seeded changes, one file or several)", () => {
    const next = random(39);
    const seen = { whole: 0, cut: 0, named: 0 };
    for (let n = 0; n < 300; n++) {
      const files = Array.from({ length: 1 + Math.floor(next() * 3) }, (_, i) =>
        change(next, `src/f${i}.ts`),
      );
      const proposed = files.length === 1 ? files[0]! : { ...files[0]!, tool: "apply_patch", files };
      const live = diffsOf(proposed, where);
      const stored = shownOf(proposed, live);
      // Through the store's JSON, as a file gives it back.
      const again = shownUpdate(JSON.parse(JSON.stringify(stored)) as typeof stored, where);
      expect(again.content).toEqual(live.map((d) => d.content));
      const cuts = live.flatMap((d) => (d.location?.line !== undefined ? [d.location] : []));
      expect(again.locations.filter((l) => l.line !== undefined)).toEqual(cuts);
      for (const d of live)
        seen[d.content.type !== "diff" ? "named" : d.location?.line !== undefined ? "cut" : "whole"]++;
    }
    // Every kind of diff went through the store.
    expect(Math.min(seen.whole, seen.cut, seen.named)).toBeGreaterThan(10);
  });

  it("cuts or names a stored diff larger than live would send, and shortens long words", () => {
    const huge = Array.from({ length: 5000 }, (_, i) => `row ${i}`).join("\n");
    const update = shownUpdate(
      [
        { file_path: "a.ts", old_text: huge, new_text: huge.replace("row 2500", "ROW") },
        { file_path: "b.ts", old_text: null, new_text: huge },
        { file_path: "c.ts", text: "w".repeat(100_000) },
      ],
      where,
    );
    expect(Buffer.byteLength(JSON.stringify(update.content))).toBeLessThan(UPDATE_DIFF_BUDGET + 3_000);
    expect(JSON.stringify(update.content[0])).toContain("ROW");
    expect(JSON.stringify(update.content[1])).toContain("too large to show here");
    expect(JSON.stringify(update.content[2]).length).toBeLessThan(2_200);
  });
});
