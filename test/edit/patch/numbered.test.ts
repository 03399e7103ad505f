// Insertions without context (`diff -U0`): placed at their header's line only when
// git's index line proves the numbers exact for this text (both ends). Everything
// else is refused, a matched base with every other hunk at its header line included:
// the inputs built to make that weaker rule lie are here, all refused.
import { createPatch } from "diff";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseUnifiedDiff } from "../../../server/src/edit/patch/diff-parse.js";
import { gitBlobHash } from "../../../server/src/edit/patch/numbered.js";
import { applyModelPatch, type PatchOptions } from "../../../server/src/edit/patch/patch.js";

const PRE = Array.from({ length: 40 }, (_, i) => `line ${i + 1}`).join("\n") + "\n";

/** PRE with lines inserted after line `after` (1-based; 0 = at the top) and line `changed` rewritten. */
function edited(text: string, after: number, inserted: string[], changed?: number): string {
  const lines = text.split("\n");
  if (changed !== undefined) lines[changed - 1] = `changed ${changed}`;
  lines.splice(after, 0, ...inserted);
  return lines.join("\n");
}

/** A -U0 diff; with git's index line (blob hashes, abbreviated as git does) when asked. */
function u0(pre: string, post: string, index = false): string {
  const body = createPatch("f.txt", pre, post, "", "", { context: 0 }).split("\n").slice(2).join("\n");
  return (
    (index
      ? `diff --git a/f.txt b/f.txt\nindex ${gitBlobHash(pre).slice(0, 7)}..${gitBlobHash(post).slice(0, 7)} 100644\n`
      : "") + body
  );
}

function apply(content: string, diff: string, options: PatchOptions = {}) {
  return applyModelPatch(content, diff, { filePath: "f.txt", ...options });
}

/** Rewrites the header of hunk `n` (0-based) with `edit`. */
function reheader(
  diff: string,
  n: number,
  edit: (h: { a: number; o: number; b: number; c: number }) => { a: number; o: number; b: number; c: number },
): string {
  let k = -1;
  return diff.replace(
    /^@@ -(\d+),(\d+) \+(\d+),(\d+) @@/gm,
    (whole, a: string, o: string, b: string, c: string) => {
      if (++k !== n) return whole;
      const h = edit({ a: Number(a), o: Number(o), b: Number(b), c: Number(c) });
      return `@@ -${h.a},${h.o} +${h.b},${h.c} @@`;
    },
  );
}

const POST = edited(PRE, 10, ["NEW A", "NEW B"], 20);
const PLAIN = u0(PRE, POST);
const GIT = u0(PRE, POST, true);

describe("git's blob hash", () => {
  it("is git's: `hello\\n` hashes as `git hash-object` says", () => {
    expect(gitBlobHash("hello\n")).toBe("ce013625030ba8dba906f756967f9e9ca394464a");
  });

  it("is read from the diff's index line, for the section it heads", () => {
    const parsed = parseUnifiedDiff(
      `diff --git a/x b/x\nindex 1111111..2222222 100644\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\ndiff --git a/y b/y\n--- a/y\n+++ b/y\n@@ -1 +1 @@\n-c\n+d\n`,
    );
    expect(parsed.ok && parsed.value.map((p) => p.index)).toEqual([
      { old: "1111111", new: "2222222" },
      undefined,
    ]);
  });
});

describe("a zero-context insertion lands at its header's line on evidence", () => {
  it("(a) git's index line: OLD is this file's blob and the result is NEW", () => {
    expect(apply(PRE, GIT)).toMatchObject({ ok: true, value: { content: POST } });
  });

  it("(a) holds for the only hunk, after the first line, in the middle and at the end of a file with CRLF and a BOM", () => {
    const text = "\uFEFFa\r\nb\r\nc\r\n";
    for (const post of [
      text.replace("b\r\n", "b\r\nx\r\n"),
      text + "z\r\n",
      text.replace("a\r\n", "a\r\ny\r\n"),
    ]) {
      expect(apply(text, u0(text, post, true))).toMatchObject({ ok: true, value: { content: post } });
    }
  });

  it("(a) on a CRLF checkout of an LF blob (core.autocrlf): the index line names the LF text, and the file keeps its CRLF", () => {
    const crlf = (t: string): string => t.replace(/\n/g, "\r\n");
    expect(apply(crlf(PRE), GIT)).toMatchObject({ ok: true, value: { content: crlf(POST) } });
    const shifted = reheader(GIT, 0, (h) => ({ ...h, a: h.a + 1, b: h.b + 1 }));
    expect(apply(crlf(PRE), shifted)).toMatchObject({
      ok: false,
      error: { message: expect.stringMatching(/its numbers do not describe this file/) as string },
    });
  });

  it("(a) places it by number: the report says so", () => {
    const result = apply(PRE, GIT);
    expect(result.ok && result.value.hunks.map((h) => [h.line, h.tier])).toEqual([
      [11, "numbered"],
      [20, "exact"],
    ]);
  });

  it("without the index line, refuses even when every other hunk lands at its header line, and says what would settle it", () => {
    const result = apply(PRE, PLAIN);
    expect(result).toMatchObject({ ok: false, error: { code: "invalid_diff" } });
    expect(!result.ok && result.error.message).toMatch(
      /hunk 1 of 2 .* has only added lines and no context.*no git `index OLD\.\.NEW` line.*a matching base sha256 does not/,
    );
    expect(!result.ok && result.error.suggestions.join(" ")).toMatch(
      /Add 3 unchanged lines of context.*`index OLD\.\.NEW`/,
    );
  });
});

describe("inputs that would make the rule lie are refused", () => {
  const refused = (content: string, diff: string, options: PatchOptions, why: RegExp): void => {
    const result = apply(content, diff, options);
    expect(result.ok, result.ok ? `applied: ${JSON.stringify(result.value.content.slice(0, 200))}` : "").toBe(
      false,
    );
    if (!result.ok) expect(result.error.message).toMatch(why);
  };

  const noIndex = /no git `index OLD\.\.NEW` line/;

  it.each([1, 2, 3, -1, -2, -3])("no index line, the checkable hunk's numbers off by %i", (d) => {
    refused(
      PRE,
      reheader(PLAIN, 1, (h) => ({ ...h, a: h.a + d, b: h.b + d })),
      {},
      noIndex,
    );
  });

  it.each([1, 2, 3, -1, -2, -3])("no index line, the insertion's old-side number alone off by %i", (d) => {
    refused(
      PRE,
      reheader(PLAIN, 0, (h) => ({ ...h, a: h.a + d })),
      {},
      noIndex,
    );
  });

  it.each([1, 2, 3])(
    "no index line, numbers counted on another text (%i lines more above the insertion)",
    (extra) => {
      const other = edited(
        PRE,
        2,
        Array.from({ length: extra }, (_, i) => `old ${i}`),
      );
      refused(PRE, u0(other, edited(other, 10 + extra, ["NEW A", "NEW B"], 20 + extra)), {}, noIndex);
    },
  );

  it.each([1, 2, 3, -1, -2, -3])(
    "no index line, the insertion shifted by %i on both sides while every other hunk lands at its header line",
    (d) => {
      // Read alone, this is a correct diff of another change: only the index line's blobs could tell, so it is refused.
      refused(
        PRE,
        reheader(PLAIN, 0, (h) => ({ ...h, a: h.a + d, b: h.b + d })),
        {},
        noIndex,
      );
    },
  );

  it("no index line, the only hunk is a zero-context insertion", () => {
    refused(PRE, u0(PRE, edited(PRE, 10, ["NEW"])), {}, noIndex);
  });

  it("a bare header on the insertion, with the index line", () => {
    refused(PRE, GIT.replace(/^@@ -10,0 \+11,2 @@/m, "@@ @@"), {}, /does not give the line it follows/);
  });

  it("(a) OLD right but NEW wrong", () => {
    refused(PRE, GIT.replace(/\.\.([0-9a-f]{7})/, "..0123456"), {}, /the diff's `index` line says 0123456/);
  });

  it.each([1, 2, 3, -1, -2, -3])(
    "(a) the insertion shifted by %i on both sides: OLD still matches, NEW does not",
    (d) => {
      refused(
        PRE,
        reheader(GIT, 0, (h) => ({ ...h, a: h.a + d, b: h.b + d })),
        {},
        /result's blob is .*, so its numbers do not describe this file/,
      );
    },
  );

  it("(a) OLD names another text", () => {
    const other = edited(PRE, 0, ["old 0"]);
    refused(
      PRE,
      u0(other, edited(other, 11, ["NEW A", "NEW B"], 21), true),
      {},
      /names blob .* the diff was made on another text/,
    );
  });
});

describe("property: a -U0 diff, true or lying, gives its intended text or a refusal", () => {
  type Lie =
    | "none"
    | "checked-shift"
    | "insert-old-shift"
    | "insert-shift"
    | "other-text"
    | "index-new"
    | "insert-shift-index";
  const lies: Lie[] = [
    "none",
    "checked-shift",
    "insert-old-shift",
    "insert-shift",
    "other-text",
    "index-new",
    "insert-shift-index",
  ];

  it("never writes a wrong text", () => {
    /** Per lie, how many diffs landed with an insertion placed by its numbers: the property is not vacuous. */
    const numberedLandings = new Map<Lie, number>();
    fc.assert(
      fc.property(
        fc.integer({ min: 5, max: 60 }),
        fc.array(
          fc.record({
            at: fc.nat(),
            kind: fc.constantFrom("insert", "change", "delete"),
            n: fc.integer({ min: 1, max: 3 }),
          }),
          { minLength: 1, maxLength: 5 },
        ),
        fc.constantFrom(...lies),
        fc.constantFrom(1, 2, 3, -1, -2, -3),
        fc.boolean(),
        (size, edits, lie, d, withIndex) => {
          const pre = Array.from({ length: size }, (_, i) => `line ${i + 1}`);
          const post = [...pre];
          // Far apart and from the bottom up, so the edits' places do not move each other.
          const places = [...new Set(edits.map((e) => (e.at % size) + 1))].sort((a, b) => b - a);
          places.forEach((at, k) => {
            const e = edits[k % edits.length]!;
            const fresh = Array.from({ length: e.n }, (_, j) => `new ${at}.${j}`);
            if (e.kind === "insert") post.splice(at, 0, ...fresh);
            else if (e.kind === "change") post.splice(at - 1, 1, ...fresh);
            else post.splice(at - 1, 1);
          });
          const before = pre.join("\n") + "\n";
          const after = post.join("\n") + "\n";
          let diff = u0(before, after, withIndex || lie === "index-new" || lie === "insert-shift-index");
          const hunks = [...diff.matchAll(/^@@ -(\d+),(\d+)/gm)].map((m) => Number(m[2]));
          const insertion = hunks.findIndex((o) => o === 0);
          const checked = hunks.findIndex((o) => o > 0);
          if (lie === "checked-shift" && checked >= 0)
            diff = reheader(diff, checked, (h) => ({
              ...h,
              a: Math.max(0, h.a + d),
              b: Math.max(0, h.b + d),
            }));
          if (lie === "insert-old-shift" && insertion >= 0)
            diff = reheader(diff, insertion, (h) => ({ ...h, a: Math.max(0, h.a + d) }));
          if ((lie === "insert-shift" || lie === "insert-shift-index") && insertion >= 0)
            diff = reheader(diff, insertion, (h) => ({
              ...h,
              a: Math.max(0, h.a + d),
              b: Math.max(1, h.b + d),
            }));
          if (lie === "index-new") diff = diff.replace(/\.\.([0-9a-f]{7})/, "..0000000");
          let content = before;
          if (lie === "other-text") content = ["extra", ...pre].join("\n") + "\n"; // the base "matches", the numbers were counted on `before`
          const result = apply(content, diff);
          // A true diff with git's index line on its own base always lands: the evidence rule is not vacuous.
          if (lie === "none" && /^index /m.test(diff)) expect(result.ok, diff).toBe(true);
          if (!result.ok) return;
          if (result.value.hunks.some((h) => h.tier === "numbered")) {
            expect(diff, "an insertion placed by number without git's index line").toMatch(/^index /m);
            numberedLandings.set(lie, (numberedLandings.get(lie) ?? 0) + 1);
          }
          const intended = lie === "other-text" ? "extra\n" + after : after;
          expect(result.value.content).toBe(intended);
        },
      ),
      { numRuns: 700 },
    );
    // About one run in 24 is a true diff whose insertion lands by number (measured: 846 in 20,000), so 700 runs give about 30.
    expect(numberedLandings.get("none") ?? 0).toBeGreaterThan(0);
  });
});

describe("a hunk header whose numbers cannot be read", () => {
  it.each(["@@ ... @@", "@@ -2,3 +2,3 @", "@@ --1,3 +1,3 @@"])(
    "%s opens a bare hunk: its lines are placed by content, never dropped",
    (first) => {
      const diff = `--- a/f.txt\n+++ b/f.txt\n${first}\n line 1\n-line 2\n+LINE 2\n line 3\n@@ -15,3 +15,3 @@\n line 15\n-line 16\n+LINE 16\n line 17\n`;
      expect(apply(PRE, diff)).toMatchObject({
        ok: true,
        value: { content: PRE.replace("line 2\n", "LINE 2\n").replace("line 16\n", "LINE 16\n") },
      });
    },
  );
});
