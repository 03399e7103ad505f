import { describe, expect, it } from "vitest";
import { applyModelPatch } from "../../../server/src/edit/patch/patch.js";

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

const source = text`
  |import { readFile } from "node:fs";
  |
  |export function load(path) {
  |    const raw = readFile(path);
  |    if (!raw) {
  |        return null;
  |    }
  |    return JSON.parse(raw);
  |}
  |
  |export function save(path, value) {
  |    const raw = JSON.stringify(value);
  |    writeFile(path, raw);
  |}
`;

const expectedAfter = text`
  |import { readFile } from "node:fs";
  |
  |export function load(path) {
  |    const raw = readFile(path);
  |    if (!raw) {
  |        throw new Error("empty file: " + path);
  |    }
  |    return JSON.parse(raw);
  |}
  |
  |export function save(path, value) {
  |    const raw = JSON.stringify(value);
  |    writeFile(path, raw);
  |}
`;

/** The change most cases make, the lines of a hunk below its header: `return null` becomes a throw. */
const FIX = text`
  |     if (!raw) {
  |-        return null;
  |+        throw new Error("empty file: " + path);
  |     }
`;
/** FIX with a line of context either side. */
const FIX_IN_CONTEXT = `     const raw = readFile(path);\n${FIX}     return JSON.parse(raw);\n`;

interface Case {
  name: string;
  diff: string;
  before?: string;
  after: string;
}

const applies: Case[] = [
  {
    name: "a correct diff",
    diff: `--- a/src/io.js\n+++ b/src/io.js\n@@ -4,5 +4,5 @@ export function load(path) {\n${FIX_IN_CONTEXT}`,
    after: expectedAfter,
  },
  {
    name: "line numbers off by dozens",
    diff: `@@ -44,5 +44,5 @@\n${FIX_IN_CONTEXT}`,
    after: expectedAfter,
  },
  {
    name: "a bare @@ @@ header and wrong counts",
    diff: `@@ @@\n${FIX}`,
    after: expectedAfter,
  },
  {
    name: "counts that do not add up",
    diff: `@@ -5,9 +5,2 @@\n${FIX}`,
    after: expectedAfter,
  },
  {
    name: "context re-indented with two spaces (added line follows the file's indentation)",
    diff: text`
      |@@ -4,5 +4,5 @@
      |  const raw = readFile(path);
      |  if (!raw) {
      |-    return null;
      |+    throw new Error("empty file: " + path);
      |  }
      |  return JSON.parse(raw);
    `,
    after: expectedAfter,
  },
  {
    name: "trailing spaces on context lines",
    diff: '@@ -4,4 +4,4 @@\n     const raw = readFile(path);  \n     if (!raw) { \n-        return null;\n+        throw new Error("empty file: " + path);\n     }\n',
    after: expectedAfter,
  },
  {
    name: "a fenced diff with prose around it",
    diff: text`
      |Here is the fix:
      |\`\`\`diff
      |@@ -5,3 +5,3 @@
      |     if (!raw) {
      |-        return null;
      |+        throw new Error("empty file: " + path);
      |     }
      |\`\`\`
      |This makes empty files an error.
    `,
    after: expectedAfter,
  },
  {
    name: "a blank context line written without its space",
    diff: "@@ -8,4 +8,5 @@\n     return JSON.parse(raw);\n }\n\n export function save(path, value) {\n+    // value must be serialisable\n     const raw = JSON.stringify(value);\n",
    after: source.replace("value) {\n", "value) {\n    // value must be serialisable\n"),
  },
  {
    name: "one context line that does not exist in the file",
    diff: text`
      |@@ -3,7 +3,7 @@
      | export function load(path) {
      |     const raw = readFile(path);
      |     // read the file first
      |-        return null;
      |+        throw new Error("empty file: " + path);
      |     }
      |     return JSON.parse(raw);
      | }
    `,
    after: expectedAfter,
  },
  {
    name: "two hunks, the second with a wrong line number",
    diff: text`
      |@@ -1,3 +1,3 @@
      |-import { readFile } from "node:fs";
      |+import { readFile, writeFile } from "node:fs";
      | 
      | export function load(path) {
      |@@ -90,3 +90,3 @@
      | export function save(path, value) {
      |-    const raw = JSON.stringify(value);
      |+    const raw = JSON.stringify(value, null, 2);
      |     writeFile(path, raw);
    `,
    after: source
      .replace("import { readFile }", "import { readFile, writeFile }")
      .replace("JSON.stringify(value)", "JSON.stringify(value, null, 2)"),
  },
  {
    name: "a new file from nothing",
    before: "",
    diff: "--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1,2 @@\n+first\n+second\n",
    after: "first\nsecond\n",
  },
  {
    name: "a diff that deletes every line",
    before: "a\nb\n",
    diff: "--- a/f\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-a\n-b\n",
    after: "",
  },
];

describe("applyModelPatch applies", () => {
  it.each(applies)("$name", ({ diff, before, after }) => {
    const result = applyModelPatch(before ?? source, diff);
    if (!result.ok) throw new Error(result.error.message);
    expect(result.value.content).toBe(after);
  });
});

describe("line endings and the final newline", () => {
  const diff = "@@ @@\n b\n-c\n+C\n d\n";
  it.each([
    ["LF", "a\nb\nc\nd\n", "a\nb\nC\nd\n"],
    ["CRLF file, LF diff", "a\r\nb\r\nc\r\nd\r\n", "a\r\nb\r\nC\r\nd\r\n"],
    ["mixed endings keep their own", "a\r\nb\nc\r\nd\n", "a\r\nb\nC\r\nd\n"],
    ["no final newline stays so", "a\nb\nc\nd", "a\nb\nC\nd"],
    ["CRLF without a final newline", "a\r\nb\r\nc\r\nd", "a\r\nb\r\nC\r\nd"],
  ])("%s", (_name, before, after) => {
    const result = applyModelPatch(before, diff);
    if (!result.ok) throw new Error(result.error.message);
    expect(result.value.content).toBe(after);
  });

  it("takes a CRLF diff for an LF file", () => {
    const result = applyModelPatch("a\nb\nc\nd\n", diff.replace(/\n/g, "\r\n"));
    expect(result.ok && result.value.content).toBe("a\nb\nC\nd\n");
  });

  it("follows an explicit 'No newline' marker on the new side", () => {
    const result = applyModelPatch("a\nb\n", "@@ -1,2 +1,2 @@\n a\n-b\n+B\n\\ No newline at end of file\n");
    expect(result.ok && result.value.content).toBe("a\nB");
  });

  it("changes the last line of a file without a final newline", () => {
    const result = applyModelPatch("a\nb", "@@ @@\n a\n-b\n+B\n");
    expect(result.ok && result.value.content).toBe("a\nB");
  });
});

describe("applyModelPatch refuses", () => {
  const duplicated = "x = 1\ny = 2\nz = 3\n\nx = 1\ny = 2\nz = 3\n";
  it.each([
    { name: "an empty diff", diff: "", code: "invalid_diff" },
    { name: "prose without a diff", diff: "I changed the function to throw.", code: "invalid_diff" },
    { name: "headers only", diff: "--- a/f\n+++ b/f\n", code: "invalid_diff" },
    {
      name: "a removed line that is not in the file",
      diff: "@@ @@\n     if (!raw) {\n-        return undefined;\n+        throw new Error();\n     }\n",
      code: "invalid_diff",
    },
    {
      name: "a hunk from another file",
      diff: "@@ -1,3 +1,3 @@\n def main():\n-    print('hi')\n+    print('hello')\n",
      code: "invalid_diff",
    },
    { name: "a diff with only context", diff: "@@ @@\n     if (!raw) {\n", code: "no_change" },
    { name: "an insertion without context", diff: "@@ -3,0 +4,1 @@\n+// note\n", code: "invalid_diff" },
    {
      name: "hunks out of order",
      diff: "@@ @@\n export function save(path, value) {\n-    const raw = JSON.stringify(value);\n+    const raw = String(value);\n@@ @@\n export function load(path) {\n-    const raw = readFile(path);\n+    const raw = readFileSync(path);\n",
      code: "invalid_diff",
    },
  ])("$name → $code", ({ diff, code }) => {
    const result = applyModelPatch(source, diff);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error.code).toBe(code);
  });

  it("a region that appears twice, without line numbers, is ambiguous and names both places", () => {
    const result = applyModelPatch(duplicated, "@@ @@\n x = 1\n-y = 2\n+y = 20\n z = 3\n");
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.code).toBe("ambiguous");
    expect(result.error.message).toContain("lines 1, 5");
  });

  it("a region that appears twice is placed when the header names one of them exactly", () => {
    const result = applyModelPatch(duplicated, "@@ -5,3 +5,3 @@\n x = 1\n-y = 2\n+y = 20\n z = 3\n");
    expect(result.ok && result.value.content).toBe("x = 1\ny = 2\nz = 3\n\nx = 1\ny = 20\nz = 3\n");
  });

  it("a hunk whose only old line is blank, in a file without a blank line or a final newline, is refused (and returns)", () => {
    const result = applyModelPatch("alpha\nbeta", "@@ -1,1 +1,2 @@\n \n+gamma\n");
    expect(!result.ok && result.error.code).toBe("invalid_diff");
  });

  it("a diff whose header names another file that exists is refused, naming it", () => {
    const exists = (p: string): boolean => p === "lib/other.py";
    const result = applyModelPatch(
      source,
      "--- a/lib/other.py\n+++ b/lib/other.py\n@@ @@\n     if (!raw) {\n-        return null;\n+        return 0;\n",
      { filePath: "src/io.js", fileExists: exists },
    );
    expect(!result.ok && result.error.code).toBe("invalid_diff");
    expect(!result.ok && result.error.message).toContain("`lib/other.py`, not `src/io.js`");
  });

  // file_path decides: names models put in headers are hints, whatever they say.
  it.each([
    ["--- original", "+++ modified"],
    ["--- a/src/io.js", "+++ b/src/io.js"],
    ["--- before.c", "+++ after.c"],
    ["--- a/main.c", "+++ patched_before.c"],
    ["--- src/io.js.orig", "+++ src/io.js"],
    ["--- lib/other.py", "+++ lib/other.py"],
  ])("headers %s / %s are hints when they name no other existing file", (minus, plus) => {
    const exists = (p: string): boolean => p === "src/io.js";
    const diff = `${minus}\n${plus}\n@@ @@\n     if (!raw) {\n-        return null;\n+        return 0;\n`;
    const result = applyModelPatch(source, diff, { filePath: "src/io.js", fileExists: exists });
    expect(result.ok && result.value.content).toBe(source.replace("return null;", "return 0;"));
  });

  it("a diff already applied reports no_change", () => {
    const result = applyModelPatch(expectedAfter, applies[0]!.diff);
    expect(!result.ok && result.error.code).toBe("no_change");
  });

  it("names the nearest candidate line when a hunk does not match", () => {
    const result = applyModelPatch(
      source,
      "@@ @@\n     const raw = readFile(path);\n     if (!raw) {\n-        return undefined;\n+        return 0;\n     }\n",
    );
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.message).toContain("Nearest candidate: lines 4-7");
    expect(result.error.message).toContain(
      'expects "        return undefined;" at line 6, but the file has "        return null;"',
    );
  });
});

describe("the corrected diff", () => {
  it("carries true line numbers and the file's own context lines", () => {
    const result = applyModelPatch(source, applies[4]!.diff);
    if (!result.ok) throw new Error(result.error.message);
    expect(result.value.diff).toContain("@@ -4,5 +4,5 @@");
    expect(result.value.diff).toContain("\n     const raw = readFile(path);\n");
    expect(result.value.hunks).toEqual([
      { index: 0, line: 4, claimedLine: 4, tier: "whitespace", contextMismatches: 0 },
    ]);
  });
});

describe("never wrong", () => {
  it("a fix written into a context line beside an identical -/+ pair is refused, naming the line", () => {
    const diff =
      "@@ @@\n     const raw = readFile(path);\n-    if (!raw) {\n+    if (!raw) {\n         return undefined;\n     }\n";
    const result = applyModelPatch(source, diff);
    expect(!result.ok && result.error.code).toBe("invalid_diff");
    expect(!result.ok && result.error.message).toContain('"return undefined;"');
    expect(!result.ok && result.error.suggestions.join(" ")).toContain("line 6");
  });

  it("a diff that removes a line past the end is invalid_diff, not internal_error", () => {
    const result = applyModelPatch("a\nb\nline 3 value 59\n", "@@ @@\n b\n line 3 value 59\n-\n+NEW\n");
    expect(!result.ok && result.error.code).toBe("invalid_diff");
  });

  it("keeps a byte order mark when the first line changes", () => {
    const result = applyModelPatch("\uFEFFa\nb\nc\n", "@@ @@\n-a\n+A\n b\n c\n");
    expect(result.ok && result.value.content).toBe("\uFEFFA\nb\nc\n");
  });

  it("an 'already applied' diff proven only by fuzzy context is not no_change", () => {
    const after = source.replace("return null;", "return 0;");
    const diff =
      "@@ @@\n     const raw = readFile(path);\n     if (!raw) {\n-        return undefined;\n+        return 0;\n     }\n     return JSON.parse(raw, reviver);\n }\n";
    const result = applyModelPatch(after, diff);
    expect(!result.ok && result.error.code).toBe("invalid_diff");
  });
});
