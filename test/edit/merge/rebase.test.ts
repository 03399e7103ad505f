// A hunk placed on a text that moved on: the intended text or a conflict, never
// a guess. The properties build both edits from distinct lines, so the expected
// merge is known independently of the code under test.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { changeHunks, hunkDiff, hunkSummary } from "../../../server/src/edit/merge/hunks.js";
import { MovedText, placeAll } from "../../../server/src/edit/merge/rebase.js";

const text = (...lines: string[]): string => lines.map((l) => `${l}\n`).join("");

/** Replaces lines [start, end) of `lines` by `by`. */
const splice = (lines: readonly string[], start: number, end: number, by: readonly string[]): string[] => [
  ...lines.slice(0, start),
  ...by,
  ...lines.slice(end),
];

describe("changeHunks", () => {
  it("cuts a change into hunks that, all applied, give the new text back, shape included", () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom("a", "b", "c", "", "  d", "e\r"), { maxLength: 30 }),
        fc.array(fc.constantFrom("a", "b", "x", "", "  d", "y"), { maxLength: 30 }),
        fc.boolean(),
        (x, y, finalNewline) => {
          const before = x.join("\n") + (finalNewline ? "\n" : "");
          const after = y.join("\n");
          expect(placeAll(before, before, changeHunks(before, after))).toEqual({ ok: true, text: after });
        },
      ),
    );
  });

  it("groups changes closer than twice the context, and shows each hunk as a unified diff", () => {
    const before = text(
      "1",
      "2",
      "3",
      "4",
      "5",
      "6",
      "7",
      "8",
      "9",
      "10",
      "11",
      "12",
      "13",
      "14",
      "15",
      "16",
      "17",
      "18",
    );
    const after = before.replace("2\n", "two\n").replace("5\n", "five\n").replace("17\n", "");
    const hunks = changeHunks(before, after);
    expect(hunks.map((h) => [h.start, h.end])).toEqual([
      [1, 5],
      [16, 17],
    ]);
    expect(hunkDiff(hunks[1]!)).toBe("@@ -14,5 +14,4 @@\n 14\n 15\n 16\n-17\n 18\n");
    expect(hunkSummary(hunks[1]!)).toBe("+0 −1: − 17");
    expect(hunkSummary(hunks[0]!)).toBe("+4 −4: two");
  });
});

describe("MovedText.place", () => {
  it("lands a hunk after the user typed elsewhere, at the moved place, even in repetitive text", () => {
    const base = text("x", "x", "x", "target", "x", "x", "x", "x", "x", "x", "x", "x", "x");
    const [hunk] = changeHunks(base, base.replace("target\n", "TARGET\n"));
    const now = text("typed", "above", ...base.split("\n").slice(0, -1));
    const placed = new MovedText(base, now).place(hunk!);
    expect(placed.ok && placed.value.lines.join("")).toBe(now.replace("target\n", "TARGET\n"));
  });

  it.each([
    ["the hunk's own line was edited", (l: string[]) => splice(l, 3, 4, ["tarGET\n"])],
    ["the hunk's own line was deleted", (l: string[]) => splice(l, 3, 4, [])],
    ["a line was typed inside the replaced lines", (l: string[]) => splice(l, 4, 4, ["typed\n"])],
  ])("refuses when %s", (_what, edit) => {
    const base = text("a", "b", "c", "target", "more", "d", "e");
    const [hunk] = changeHunks(base, base.replace("target\nmore\n", "T\nM\n"));
    const now = edit(base.split(/(?<=\n)/)).join("");
    const placed = new MovedText(base, now).place(hunk!);
    expect(placed.ok).toBe(false);
  });

  it("refuses an insertion whose anchor line was edited", () => {
    const base = text("a", "b", "c", "d");
    const [hunk] = changeHunks(base, text("a", "b", "new", "c", "d"));
    expect(new MovedText(base, text("a", "B", "c", "d")).place(hunk!).ok).toBe(false);
    expect(new MovedText(base, text("A", "b", "c", "d")).place(hunk!).ok).toBe(true);
  });

  it("refuses when the hunk's lines were copied: which copy is meant cannot be told", () => {
    const base = text("p", "q", "r", "s", "t", "u", "v");
    const [hunk] = changeHunks(base, base.replace("s\n", "S\n"));
    const now = text("p", "q", "r", "s", "t", "u", "v", "p", "q", "r", "s", "t", "u", "v");
    const placed = new MovedText(base, now).place(hunk!);
    expect(placed).toMatchObject({ ok: false, error: { code: "ambiguous" } });
  });

  it("property: the merge of both edits, or a refusal exactly when the edits touch", () => {
    const edit = (n: number) =>
      fc
        .tuple(fc.nat({ max: n }), fc.nat({ max: 3 }), fc.nat({ max: 3 }))
        .map(([s, len, added]) => ({ start: s, end: Math.min(n, s + len), added }));
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 25 }).chain((n) => fc.tuple(fc.constant(n), edit(n), edit(n))),
        ([n, agent, user]) => {
          if (agent.start === agent.end && agent.added === 0) return;
          if (user.start === user.end && user.added === 0) return;
          const base = Array.from({ length: n }, (_, i) => `line ${i}\n`);
          const agentLines = Array.from({ length: agent.added }, (_, i) => `agent ${i}\n`);
          const userLines = Array.from({ length: user.added }, (_, i) => `user ${i}\n`);
          const proposed = splice(base, agent.start, agent.end, agentLines);
          const now = splice(base, user.start, user.end, userLines);
          const hunks = changeHunks(base.join(""), proposed.join(""));
          expect(hunks).toHaveLength(1);
          const placed = new MovedText(base.join(""), now.join("")).place(hunks[0]!);
          const h = hunks[0]!;
          const userInsert = user.start === user.end;
          const hunkInsert = h.start === h.end;
          const touch = hunkInsert
            ? user.start <= h.start && user.end >= h.start
            : userInsert
              ? user.start > h.start && user.start < h.end
              : user.start < h.end && user.end > h.start;
          if (touch) return void expect(placed.ok).toBe(false);
          // Independent merge: apply the later edit first so the earlier one's indices still hold.
          const userFirst = userInsert ? user.start <= h.start : user.end <= h.start;
          const expected = userFirst
            ? splice(splice(base, h.start, h.end, h.added), user.start, user.end, userLines)
            : splice(splice(base, user.start, user.end, userLines), h.start, h.end, h.added);
          expect(placed.ok && placed.value.lines).toEqual(expected);
        },
      ),
      { numRuns: 2000 },
    );
  });
});
