import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { applyTextEdits, computeTextEdits } from "../../server/src/edit/text-edits.js";

/** Every edit starts and ends on a line boundary of the old text (or at its end). */
function lineAligned(before: string, at: number): boolean {
  return at === 0 || at === before.length || before[at - 1] === "\n";
}

function check(before: string, after: string): void {
  const edits = computeTextEdits(before, after);
  expect(applyTextEdits(before, edits)).toBe(after);
  for (const [i, e] of edits.entries()) {
    expect(e.start).toBeLessThanOrEqual(e.end);
    expect(
      lineAligned(before, e.start) && lineAligned(before, e.end),
      `edit ${i} ${JSON.stringify(e)} is not line-aligned`,
    ).toBe(true);
    if (i > 0) expect(e.start).toBeGreaterThan(edits[i - 1]!.end);
  }
}

const long = Array.from(
  { length: 3000 },
  (_, i) => `  line ${i} of a long file, padded so blocks of text compare\n`,
).join("");

describe("computeTextEdits", () => {
  it.each([
    ["identical", "a\nb\n", "a\nb\n", []],
    ["one changed line", "a\nb\nc\n", "a\nB\nc\n", [{ start: 2, end: 4, newText: "B\n" }]],
    ["an inserted line", "a\nc\n", "a\nb\nc\n", [{ start: 2, end: 2, newText: "b\n" }]],
    ["a deleted line", "a\nb\nc\n", "a\nc\n", [{ start: 2, end: 4, newText: "" }]],
    ["a line inserted before an equal one", "x\nA\n", "x\nB\nA\n", [{ start: 2, end: 2, newText: "B\n" }]],
    [
      "the first character differs and the text starts with a newline",
      "\nb\n",
      "a\nb\n",
      [{ start: 0, end: 1, newText: "a\n" }],
    ],
    ["a final newline added", "a\nX", "a\nX\n", [{ start: 2, end: 3, newText: "X\n" }]],
    ["a final newline removed", "a\nX\n", "a\nX", [{ start: 2, end: 4, newText: "X" }]],
    ["the first line, no final newline", "a\nX", "b\nX", [{ start: 0, end: 2, newText: "b\n" }]],
    ["CRLF line changed", "a\r\nb\r\nc\r\n", "a\r\nB\r\nc\r\n", [{ start: 3, end: 6, newText: "B\r\n" }]],
    ["only the line ending changed", "a\nb\n", "a\r\nb\n", [{ start: 0, end: 2, newText: "a\r\n" }]],
    ["from empty", "", "new\n", [{ start: 0, end: 0, newText: "new\n" }]],
    ["to empty", "old\n", "", [{ start: 0, end: 4, newText: "" }]],
    [
      "two changes far apart",
      "a\nb\nc\nd\ne\n",
      "A\nb\nc\nd\nE\n",
      [
        { start: 0, end: 2, newText: "A\n" },
        { start: 8, end: 10, newText: "E\n" },
      ],
    ],
  ])("%s", (_name, before, after, expected) => {
    expect(computeTextEdits(before, after)).toEqual(expected);
    check(before, after);
  });

  it("touches only the changed line of a long file", () => {
    const at = long.indexOf("  line 1700 ");
    const after = long.slice(0, at) + "  changed\n" + long.slice(long.indexOf("\n", at) + 1);
    expect(computeTextEdits(long, after)).toEqual([
      { start: at, end: long.indexOf("\n", at) + 1, newText: "  changed\n" },
    ]);
  });

  it("finds a change at either end of a long file", () => {
    check(long, "first\n" + long);
    check(long, long + "last\n");
    check(long, long.slice(long.indexOf("\n") + 1));
    check(long, long.slice(0, -1));
  });

  it("gives edits that rebuild the new text from any two texts", () => {
    const line = fc.constantFrom("a\n", "b\n", "a", "\n", "\r\n", "x\r\n", "\r", "😀\n", "b");
    const text = fc.array(line, { maxLength: 12 }).map((parts) => parts.join(""));
    fc.assert(
      fc.property(text, text, (before, after) => check(before, after)),
      { numRuns: 2000 },
    );
  });

  it("property: edits rebuild the new text from longer texts of repeated and unique lines, apart and in order", () => {
    // Unique lines become anchors of the line changes, repeated ones fall to the gaps between them.
    const line = fc.oneof(
      fc.constantFrom("a\n", "b\n", "}\n", "\n", "x\r\n", "\r", "tail"),
      fc.nat(30).map((n) => `unique ${n}\n`),
    );
    const text = fc.array(line, { maxLength: 60 }).map((parts) => parts.join(""));
    fc.assert(
      fc.property(text, text, (before, after) => check(before, after)),
      { numRuns: 2000 },
    );
  });

  it("gives one edit per changed line of 2,000 scattered over 20,000, not one edit of the whole file", () => {
    const lines = Array.from({ length: 20_000 }, (_, i) => `  const value${i} = compute(${i});\n`);
    const before = lines.join("");
    const after = lines.map((l, i) => (i % 10 === 5 ? l.replace("compute(", "recompute(") : l)).join("");
    const edits = computeTextEdits(before, after);
    expect(edits).toHaveLength(2000);
    expect(edits[0]).toEqual({
      start: before.indexOf("  const value5 "),
      end: before.indexOf("  const value6 "),
      newText: lines[5]!.replace("compute(", "recompute("),
    });
    check(before, after);
  });

  it("gives edits that rebuild a long text with a few lines changed", () => {
    const lines = long.split("\n");
    const change = fc.array(
      fc.record({
        at: fc.nat(lines.length - 1),
        text: fc.constantFrom("", "new", "  line 5 of a long file, padded so blocks of text compare"),
      }),
      { minLength: 1, maxLength: 4 },
    );
    fc.assert(
      fc.property(change, (changes) => {
        const copy = [...lines];
        for (const c of changes) copy[c.at] = c.text;
        check(long, copy.join("\n"));
      }),
      { numRuns: 300 },
    );
  });
});
