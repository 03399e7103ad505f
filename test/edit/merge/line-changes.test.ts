// The line changes between two texts: applied to the old lines they give the new
// ones, in order and disjoint, whatever the texts (repeated lines included); and
// a change of thousands of scattered hunks costs about its length, not lines × edits.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { lineChanges, type LineChange } from "../../../server/src/edit/merge/line-changes.js";

function applied(before: readonly string[], changes: readonly LineChange[]): string[] {
  const out: string[] = [];
  let from = 0;
  for (const c of changes) {
    out.push(...before.slice(from, c.start), ...c.lines);
    from = c.end;
  }
  return [...out, ...before.slice(from)];
}

describe("lineChanges", () => {
  it("property: the changes turn the old lines into the new, in order, disjoint and apart, none empty", () => {
    const line = fc.constantFrom("a\n", "b\n", "c\n", "}\n", "\n", "unique-1\n", "unique-2\n", "x");
    fc.assert(
      fc.property(fc.array(line, { maxLength: 40 }), fc.array(line, { maxLength: 40 }), (before, after) => {
        const changes = lineChanges(before, after);
        expect(applied(before, changes)).toEqual(after);
        for (let i = 0; i < changes.length; i++) {
          const c = changes[i]!;
          expect(c.start <= c.end && (c.start < c.end || c.lines.length > 0)).toBe(true);
          if (i > 0) expect(c.start).toBeGreaterThan(changes[i - 1]!.end);
        }
      }),
      { numRuns: 3000 },
    );
  });

  it("finds each of 2,000 scattered one-line changes on 20,000 lines as its own change, quickly", () => {
    const before = Array.from({ length: 20_000 }, (_, i) => `  const value${i} = compute(${i});\n`);
    const after = before.map((l, i) => (i % 10 === 5 ? l.replace("compute(", "recompute(") : l));
    const start = performance.now();
    const changes = lineChanges(before, after);
    const took = performance.now() - start;
    expect(changes).toHaveLength(2000);
    expect(changes[0]).toEqual({ start: 5, end: 6, lines: [after[5]] });
    // Myers over the whole took 5 s here (lines × edits); anchored, it is tens of milliseconds.
    expect(took).toBeLessThan(2000);
  });
});
