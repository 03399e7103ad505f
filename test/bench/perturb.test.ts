import { describe, expect, it } from "vitest";
import {
  bareHeaders,
  dropBlankPrefix,
  fencedWithoutFileHeaders,
  hallucinateContext,
  hunkOldSides,
  padContext,
  reindent,
  renameFile,
  ruleForUnit,
  shiftHeaders,
  singleHunk,
  wrongCounts,
} from "../../bench/perturb.js";
import { indentUnit } from "../../bench/lines.js";
import { Rng } from "../../bench/prng.js";

/** Fixtures are written as readable text; `|` marks the left edge so indentation is visible. */
function text(strings: TemplateStringsArray): string {
  return (
    strings
      .join("")
      .split("\n")
      .slice(1, -1)
      .map((l) => l.replace(/^\s*\|/, ""))
      .join("\n") + "\n"
  );
}

const diff = text`
  |Index: src/a.js
  |===================================================================
  |--- src/a.js
  |+++ src/a.js
  |@@ -3,6 +3,6 @@
  | function load(path) {
  |     const raw = read(path);
  |     if (!raw) {
  |-        return null;
  |+        throw new Error(path);
  |     }
  |
  |@@ -40,5 +40,6 @@
  | export function save(path, value) {
  |     const raw = JSON.stringify(value);
  |+    log(raw);
  |     write(path, raw);
  | }
`.replace(/^\n/m, " \n"); // the blank context line carries its space, as createPatch writes it

const headers = (d: string): string[] => d.split("\n").filter((l) => l.startsWith("@@"));
const bodies = (d: string): string[] =>
  d.split("\n").filter((l) => /^[ +-]/.test(l) && !/^(---|\+\+\+) /.test(l));

describe("header perturbations", () => {
  it("shifts both starts of every hunk and clamps at line 1", () => {
    expect(headers(shiftHeaders(diff, () => 20))).toEqual(["@@ -23,6 +23,6 @@", "@@ -60,5 +60,6 @@"]);
    expect(headers(shiftHeaders(diff, (h) => (h === 0 ? -10 : -5)))).toEqual([
      "@@ -1,6 +1,6 @@",
      "@@ -35,5 +35,6 @@",
    ]);
  });

  it("writes bare headers and keeps every hunk line", () => {
    const bare = bareHeaders(diff);
    expect(headers(bare)).toEqual(["@@ @@", "@@ @@"]);
    expect(bodies(bare)).toEqual(bodies(diff));
  });

  it("never writes the true counts", () => {
    for (let seed = 1; seed <= 50; seed++) {
      const [first, second] = headers(wrongCounts(diff, new Rng(seed)));
      const m1 = /^@@ -3,(\d+) \+3,(\d+) @@$/.exec(first!)!;
      const m2 = /^@@ -40,(\d+) \+40,(\d+) @@$/.exec(second!)!;
      expect(Number(m1[1])).not.toBe(6);
      expect(Number(m1[2])).not.toBe(6);
      expect(Number(m2[1])).not.toBe(5);
      expect(Number(m2[2])).not.toBe(6);
    }
  });
});

describe("file-level perturbations", () => {
  it("drops the file headers and fences the hunks after a sentence", () => {
    const fenced = fencedWithoutFileHeaders(diff, new Rng(1));
    const lines = fenced.split("\n");
    expect(lines[0]).toMatch(/\.$/);
    expect(lines[2]).toBe("```diff");
    expect(lines[3]).toBe("@@ -3,6 +3,6 @@");
    expect(fenced.endsWith("```\n")).toBe(true);
    expect(fenced).not.toMatch(/^(Index:|---|\+\+\+|===)/m);
  });

  it("renames the file in the headers only", () => {
    const renamed = renameFile(diff, "lib/b.js");
    expect(renamed).toContain("--- lib/b.js\n+++ lib/b.js\n");
    expect(bodies(renamed)).toEqual(bodies(diff));
  });

  it("keeps one hunk, its new start set to its old start", () => {
    const second = singleHunk(diff, 1);
    expect(headers(second)).toEqual(["@@ -40,5 +40,6 @@"]);
    expect(second.startsWith("Index: src/a.js\n")).toBe(true);
    expect(hunkOldSides(second)).toEqual([
      {
        oldStart: 40,
        lines: [
          "export function save(path, value) {",
          "    const raw = JSON.stringify(value);",
          "    write(path, raw);",
          "}",
        ],
      },
    ]);
  });
});

describe("line perturbations", () => {
  it("pads only context lines, before a CRLF line's \\r", () => {
    const crlf = diff.replace(/^([ +-](?!-- |\+\+ ).*)$/gm, "$1\r");
    const padded = padContext(crlf, new Rng(3))!;
    const before = crlf.split("\n");
    const after = padded.split("\n");
    expect(after.length).toBe(before.length);
    let changed = 0;
    after.forEach((l, i) => {
      if (l === before[i]) return;
      changed++;
      expect(l.startsWith(" ")).toBe(true);
      expect(l).toMatch(/ +\r$/);
      expect(l.replace(/ +\r$/, "\r")).toBe(before[i]!.replace(/ *\r$/, "\r"));
    });
    expect(changed).toBeGreaterThan(0);
  });

  it("re-indents context, removed and added lines alike", () => {
    const halved = reindent(diff, "4 spaces->2 spaces")!;
    expect(bodies(halved)).toContain("-    return null;");
    expect(bodies(halved)).toContain("+    throw new Error(path);");
    expect(bodies(halved)).toContain("   const raw = read(path);");
    expect(bodies(halved)).toContain("+  log(raw);");

    const tabbed = diff.replace(
      /^([ +-])((?: {4})+)/gm,
      (_, op: string, ws: string) => op + "\t".repeat(ws.length / 4),
    );
    expect(bodies(reindent(tabbed, "tabs->2 spaces")!)).toContain("-    return null;");
    expect(bodies(reindent(diff, "2 spaces->4 spaces")!)).toContain("-                return null;");
  });

  it("picks the rule from the file's indentation step, and refuses one that merges indents or changes nothing", () => {
    expect(ruleForUnit("\t")).toBe("tabs->2 spaces");
    expect(ruleForUnit("    ")).toBe("4 spaces->2 spaces");
    expect(ruleForUnit("  ")).toBe("2 spaces->4 spaces");
    expect(ruleForUnit(undefined)).toBeUndefined();
    const twoAndFour = "@@ -1,3 +1,3 @@\n if (a) {\n-  b();\n+  c();\n   {\n     d();\n";
    expect(reindent(twoAndFour, "4 spaces->2 spaces")).toBeUndefined();
    expect(reindent("@@ -1,2 +1,2 @@\n a\n-b\n+c\n", "2 spaces->4 spaces")).toBeUndefined();
  });

  it("finds a file's indentation step", () => {
    expect(indentUnit(["a {", "\tb;", "\t\tc;", "}"])).toBe("\t");
    expect(indentUnit(["a {", "    b;", "        c;", "     * doc", "}"])).toBe("    ");
    expect(indentUnit(["a {", "  b;", "    c;", "}"])).toBe("  ");
    expect(indentUnit(["a", "b"])).toBeUndefined();
  });

  it("replaces a context line away from the changes", () => {
    const h = hallucinateContext(diff, new Rng(5), (line) => line + " // invented")!;
    expect(h).toBeDefined();
    const changedLine = h.diff.split("\n").find((l) => l.endsWith(" // invented"))!;
    const around = h.diff.split("\n");
    const at = around.indexOf(changedLine);
    expect(around[at - 1]).toMatch(/^ /);
    expect(around[at + 1]).toMatch(/^ /);
    expect(hunkOldSides(diff)[h.hunk]!.lines[h.oldIndex]).toBe(h.original);
    expect(
      hallucinateContext("@@ -1,3 +1,3 @@\n a\n-b\n+c\n d\n", new Rng(1), (l) => l + "x"),
    ).toBeUndefined();
  });

  it("writes blank context lines without their space", () => {
    const dropped = dropBlankPrefix(diff)!;
    expect(dropped.split("\n")).toContain("");
    expect(dropped.split("\n").filter((l) => l === " ")).toEqual([]);
    expect(dropBlankPrefix("@@ -1,2 +1,2 @@\n a\n-b\n+c\n")).toBeUndefined();
  });
});
