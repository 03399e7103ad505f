import { describe, expect, it } from "vitest";
import { applyModelPatch } from "../../../server/src/edit/patch/patch.js";
import { detectIndentation } from "../../../server/src/edit/shared/indentation.js";

const lines = (...l: string[]): string => l.join("\n") + "\n";

describe("detectIndentation", () => {
  it.each([
    ["tabs", lines("a {", "\tb;", "\t\tc;", "}"), "\t", true],
    ["two spaces", lines("a {", "  b {", "    c;", "  }", "}"), 2, false],
    [
      "four spaces nesting two levels at once",
      lines("a(", "        b,", "    c", ")", "d {", "    e;", "}", "f {", "    g;", "}"),
      4,
      false,
    ],
    ["tabs with doc-comment alignment", lines("/**", " * doc", " */", "f() {", "\treturn;", "}"), "\t", true],
  ])("%s", (_name, text, unit, tabsOnly) => {
    expect(detectIndentation(text.split("\n"))).toEqual({ unit, tabsOnly });
  });
});

// Each case: a model re-typed the context with other indentation; the added lines must
// come out in the file's indentation.
describe("added lines follow the file's indentation", () => {
  it.each([
    {
      name: "a nested block in a 4-space file written with 2 spaces (scale, not shift)",
      file: lines(
        "function f(a) {",
        "    const x = 1;",
        "    const y = 2;",
        "    const z = 3;",
        "    return x + y + z;",
        "}",
      ),
      diff: lines(
        "@@ -2,4 +2,7 @@",
        "   const x = 1;",
        "   const y = 2;",
        "+  if (a) {",
        "+    log(a);",
        "+  }",
        "   const z = 3;",
        "   return x + y + z;",
      ),
      want: lines(
        "function f(a) {",
        "    const x = 1;",
        "    const y = 2;",
        "    if (a) {",
        "        log(a);",
        "    }",
        "    const z = 3;",
        "    return x + y + z;",
        "}",
      ),
    },
    {
      name: "a tab file with doc-comment alignment, written with 2 spaces",
      file: lines("class A {", "\t/**", "\t * Name.", "\t */", "\tname = 1;", "\tsize = 2;", "}"),
      diff: lines(
        "@@ -3,4 +3,7 @@",
        "    * Name.",
        "    */",
        "   name = 1;",
        "+  if (x) {",
        "+    y();",
        "+  }",
        "   size = 2;",
      ),
      want: lines(
        "class A {",
        "\t/**",
        "\t * Name.",
        "\t */",
        "\tname = 1;",
        "\tif (x) {",
        "\t\ty();",
        "\t}",
        "\tsize = 2;",
        "}",
      ),
    },
    {
      name: "spaces added at the top of a file indented only with tabs",
      file: lines("var a = 1;", "var b = 2;", "var c = 3;", "function f() {", "\treturn a;", "}"),
      diff: lines(
        "@@ -1,3 +1,6 @@",
        " var a = 1;",
        "+if (a) {",
        "+  b = 3;",
        "+}",
        " var b = 2;",
        " var c = 3;",
      ),
      want: lines(
        "var a = 1;",
        "if (a) {",
        "\tb = 3;",
        "}",
        "var b = 2;",
        "var c = 3;",
        "function f() {",
        "\treturn a;",
        "}",
      ),
    },
    {
      name: "a trailing space on an added line is kept even when context lines drifted",
      file: lines("const s = [", "  'a',", "  'b',", "];"),
      diff: lines("@@ @@", " const s = [  ", "   'a',", "+  'a b ',", "   'b',"),
      want: lines("const s = [", "  'a',", "  'a b ',", "  'b',", "];"),
    },
  ])("$name", ({ file, diff, want }) => {
    const result = applyModelPatch(file, diff);
    if (!result.ok) throw new Error(result.error.message);
    expect(result.value.content).toBe(want);
  });
});

// Indentation is evidence: each case is a diff whose context drifted; the outcome is the
// text the model meant or a refusal that names the line, never a line re-indented on a guess.
const py = lines(
  "def load(path):",
  "    raw = read(path)",
  "    if not raw:",
  "        return None",
  "    data = parse(raw)",
  "    return data",
);

const js = lines(
  "function a() {",
  "  return 1;",
  "}",
  "",
  "/**",
  " * Check.",
  " * @private",
  " */",
  "function valid(type) {",
  "  return typeof type === 'string';",
  "}",
);

describe("the evidence decides between the literal and the re-indented reading", () => {
  it.each([
    {
      name: "context halved, removed and added lines exact: the model wrote in the file's frame",
      diff: lines(
        "@@ @@",
        "   raw = read(path)",
        "   if not raw:",
        "-        return None",
        "+        return {}",
        "   data = parse(raw)",
      ),
      want: py.replace("return None", "return {}"),
    },
    {
      name: "context and removed halved, the added line exact where it replaces one",
      diff: lines(
        "@@ @@",
        "   raw = read(path)",
        "   if not raw:",
        "-    return None",
        "+        return {}",
        "   data = parse(raw)",
      ),
      want: py.replace("return None", "return {}"),
    },
    {
      name: "everything halved, the added line where the removed one was in the model's frame",
      diff: lines(
        "@@ @@",
        "   raw = read(path)",
        "   if not raw:",
        "-    return None",
        "+    return {}",
        "   data = parse(raw)",
      ),
      want: py.replace("return None", "return {}"),
    },
    {
      name: "everything halved, an odd level only the model's frame can have",
      diff: lines("@@ @@", "   raw = read(path)", "+  log(path)", "   if not raw:", "     return None"),
      want: py.replace("    raw = read(path)\n", "    raw = read(path)\n    log(path)\n"),
    },
    {
      name: "tabs written as spaces in the context, the added line with the file's tabs",
      file: lines("func f() {", "\tx := 1", "\tif x > 0 {", "\t\treturn", "\t}", "}"),
      diff: lines("@@ @@", "     x := 1", "     if x > 0 {", "-        return", "+\t\tpanic(x)", "     }"),
      want: lines("func f() {", "\tx := 1", "\tif x > 0 {", "\t\tpanic(x)", "\t}", "}"),
    },
    {
      name: "a doc comment's context drifted, its removed lines exact: the added ` * ` line is as written",
      file: js,
      diff: lines(
        "@@ @@",
        "   * Check.",
        "- * @private",
        "- */",
        "+if (flat) {",
        "+  * Return best.",
        "+}",
        " function valid(type) {",
        "     return typeof type === 'string';",
        " }",
      ),
      want: js.replace(" * @private\n */\n", "if (flat) {\n  * Return best.\n}\n"),
    },
    {
      name: "tabs written as spaces everywhere",
      file: lines("func f() {", "\tx := 1", "\tif x > 0 {", "\t\treturn", "\t}", "}"),
      diff: lines(
        "@@ @@",
        "     x := 1",
        "     if x > 0 {",
        "-        return",
        "+        panic(x)",
        "     }",
      ),
      want: lines("func f() {", "\tx := 1", "\tif x > 0 {", "\t\tpanic(x)", "\t}", "}"),
    },
  ])("$name", ({ file, diff, want }) => {
    const result = applyModelPatch(file ?? py, diff);
    if (!result.ok) throw new Error(result.error.message);
    expect(result.value.content).toBe(want);
  });

  it.each([
    {
      name: "a pure insertion at a level both frames can have",
      diff: lines("@@ @@", "   if not raw:", "     return None", "+    return {}", "   data = parse(raw)"),
      literal: "4 spaces",
      reindented: "8 spaces",
    },
    {
      name: "removed lines disagreeing on the frame: one drifted, one as in the file",
      diff: lines(
        "@@ @@",
        "   raw = read(path)",
        "-  if not raw:",
        "-        return None",
        "+  if raw is None:",
        "+        return {}",
        "   data = parse(raw)",
      ),
      literal: "2 spaces",
      reindented: "4 spaces",
    },
    {
      name: "a ` * ` line added where the context's doc comment drifted: its alignment space is off every grid",
      file: js,
      diff: lines(
        "@@ @@",
        "   * Check.",
        "-  * @private",
        "-  */",
        "+if (flat) {",
        "+  * Return best.",
        "+}",
        " function valid(type) {",
        "     return typeof type === 'string';",
        " }",
      ),
      literal: "2 spaces",
      reindented: "1 space",
    },
  ])("refuses $name, naming the line and both indentations", ({ file, diff, literal, reindented }) => {
    const result = applyModelPatch(file ?? py, diff);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.code).toBe("invalid_diff");
    expect(result.error.message).toContain(literal);
    expect(result.error.message).toContain(reindented);
    expect(result.error.suggestions.join(" ")).toContain("exact indentation");
  });
});
