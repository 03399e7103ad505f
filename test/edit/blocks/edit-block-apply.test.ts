import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  applyEditBlock,
  parseEditBlocks,
  type EditBlock,
} from "../../../server/src/edit/blocks/edit-blocks.js";

/** Lines of a fixture, each ended by `\n`. */
const text = (...lines: string[]) => lines.map((l) => l + "\n").join("");

/** A block as a model writes it, parsed by the real parser. */
function block(path: string, edit: string[], repl: string[]): EditBlock {
  const [parsed] = parseEditBlocks(text(path, "««« EDIT", ...edit, "═══════ REPL", ...repl, "»»» EDIT END"));
  if (!parsed) throw new Error("fixture block did not parse");
  return parsed;
}

/** 1-based line of the first line equal to `wanted`, with or without its terminator. */
function lineOf(content: string, wanted: string): number {
  const index = content.split(/\r?\n/).indexOf(wanted);
  if (index < 0) throw new Error(`no line ${JSON.stringify(wanted)}`);
  return index + 1;
}

function applied(content: string, b: EditBlock) {
  const result = applyEditBlock(content, b);
  if (!result.ok) throw new Error(result.error.message);
  return result.value;
}

function failure(content: string, b: EditBlock) {
  const result = applyEditBlock(content, b);
  if (result.ok) throw new Error(`expected a failure, got ${JSON.stringify(result.value.content)}`);
  return result.error;
}

const MATH = text(
  "import os",
  "import deprecated_module",
  "import sys",
  "",
  "def add(a, b):",
  "    return a + b",
  "",
  "def multiply(a, b):",
  "    return a + b  # BUG",
);

describe("applyEditBlock", () => {
  it.each([
    {
      operation: "modify",
      block: block(
        "src/math.py",
        ["def multiply(a, b):", "    return a + b  # BUG"],
        ["def multiply(a, b):", "    return a * b"],
      ),
      after: MATH.replace("    return a + b  # BUG", "    return a * b"),
      landsOn: "    return a * b",
    },
    {
      operation: "insert after",
      block: block("src/math.py", ["import os"], ["import os", "import re"]),
      after: MATH.replace("import os\n", "import os\nimport re\n"),
      landsOn: "import re",
    },
    {
      operation: "delete lines",
      block: block(
        "src/math.py",
        ["import os", "import deprecated_module", "import sys"],
        ["import os", "import sys"],
      ),
      after: MATH.replace("import deprecated_module\n", ""),
      landsOn: "import sys",
    },
    {
      operation: "replace without an anchor",
      block: block("src/math.py", ["def add(a, b):"], ["def plus(a, b):"]),
      after: MATH.replace("def add", "def plus"),
      landsOn: "def plus(a, b):",
    },
    {
      operation: "append at the end",
      block: block(
        "src/math.py",
        ["    return a + b  # BUG"],
        ["    return a + b  # BUG", "def sub(a, b):", "    return a - b"],
      ),
      after: MATH + text("def sub(a, b):", "    return a - b"),
      landsOn: "def sub(a, b):",
    },
    {
      operation: "delete the last line",
      block: block(
        "src/math.py",
        ["def multiply(a, b):", "    return a + b  # BUG"],
        ["def multiply(a, b):"],
      ),
      after: MATH.replace("    return a + b  # BUG\n", ""),
      landsOn: "def multiply(a, b):", // nothing follows the anchor any more: the last line
    },
  ])("applies a $operation block and keeps the rest", ({ block: b, after, landsOn }) => {
    const result = applied(MATH, b);
    expect(result.content).toBe(after);
    expect(result.anchorLine).toBe(lineOf(after, landsOn));
  });

  it("creates a file from a block with an empty EDIT section", () => {
    const b = block("src/new.py", [], ["def hello():", "    pass"]);
    expect(applied("", b)).toEqual({ content: text("def hello():", "    pass"), anchorLine: 1 });
  });

  it("refuses a create block for a file that has content", () => {
    const error = failure(MATH, block("src/math.py", [], ["x = 1"]));
    expect(error.code).toBe("invalid_argument");
    expect(error.message).toMatch(/^File exists: src\/math\.py/);
    expect(error.message).toContain("EDIT section");
  });

  it("applies two blocks in turn, the second anchored on the first's result", () => {
    const first = block(
      "src/app.py",
      ["def process():", "    step_one()"],
      ["def process():", "    step_one()", "    step_two()"],
    );
    const second = block("src/app.py", ["    step_two()"], ["    step_two()", "    step_three()"]);
    const before = text("def process():", "    step_one()", "", "process()");
    expect(failure(before, second).code).toBe("not_found");
    const once = applied(before, first).content;
    expect(applied(once, second).content).toBe(
      text("def process():", "    step_one()", "    step_two()", "    step_three()", "", "process()"),
    );
  });

  it.each([
    {
      change: "insert in the middle",
      edit: ["a", "b"],
      repl: ["a", "b", "new"],
      after: ["a", "b", "new", "c", ""],
    },
    { change: "replace", edit: ["b"], repl: ["B1", "B2"], after: ["a", "B1", "B2", "c", ""] },
    { change: "append at the end", edit: ["c"], repl: ["c", "d"], after: ["a", "b", "c", "d", ""] },
    { change: "delete", edit: ["a", "b"], repl: ["a"], after: ["a", "c", ""] },
  ])("keeps a CRLF file CRLF: $change", ({ edit, repl, after }) => {
    const before = ["a", "b", "c", ""].join("\r\n");
    expect(applied(before, block("f.txt", edit, repl)).content).toBe(after.join("\r\n"));
  });

  it("gives new lines the dominant ending and keeps each old line's own", () => {
    const before = "one\r\ntwo\r\nthree\nfour\r\n";
    expect(applied(before, block("f.txt", ["two", "three"], ["two", "2.5", "three"])).content).toBe(
      "one\r\ntwo\r\n2.5\r\nthree\nfour\r\n",
    );
  });

  it.each([
    { change: "edit the last line", edit: ["b"], repl: ["B"], after: "a\nB" },
    { change: "append after the last line", edit: ["b"], repl: ["b", "c"], after: "a\nb\nc" },
    { change: "delete the last line", edit: ["a", "b"], repl: ["a"], after: "a" },
    { change: "edit the first line", edit: ["a"], repl: ["A"], after: "A\nb" },
  ])("keeps a missing final newline missing: $change", ({ edit, repl, after }) => {
    expect(applied("a\nb", block("f.txt", edit, repl)).content).toBe(after);
  });

  it("reports an EDIT section that is nowhere in the file", () => {
    const error = failure(
      MATH,
      block("src/math.py", ["class Vector:", "    pass"], ["class Vector:", "    x = 0"]),
    );
    expect(error.code).toBe("not_found");
    expect(error.message).toMatch(/^Anchor not found: .*src\/math\.py/);
    expect(error.message).toContain("Re-read");
    expect(error.suggestions).not.toEqual([]);
  });

  it("reports an edit of an empty file as not found and points to a create block", () => {
    const error = failure("", block("src/empty.py", ["x = 1"], ["x = 2"]));
    expect(error.code).toBe("not_found");
    expect(error.message).toContain("empty EDIT section");
  });

  it("reports every place an ambiguous section matches", () => {
    const before = text("if (a) {", "  return;", "}", "if (b) {", "  return;", "}");
    const error = failure(before, block("src/x.ts", ["  return;", "}"], ["  return null;", "}"]));
    expect(error.code).toBe("ambiguous");
    expect(error.message).toContain(
      `lines ${lineOf(before, "  return;")}, ${lineOf(before, "if (b) {") + 1}`,
    );
    expect(error.message).toContain("context");
  });

  it("counts overlapping matches as ambiguous", () => {
    const error = failure(text("x", "x", "x"), block("f.txt", ["x", "x"], ["y", "y"]));
    expect(error.code).toBe("ambiguous");
    expect(error.message).toContain("matches 2 places, at lines 1, 2");
  });

  it.each([
    {
      difference: "tabs vs spaces",
      file: text("function f() {", "\treturn 1;", "}"),
      edit: ["function f() {", "    return 1;"],
      says: "the file indents with tabs where the EDIT section uses spaces",
      at: "\treturn 1;",
    },
    {
      difference: "trailing whitespace",
      file: text("a = 1", "b = 2  ", "c = 3"),
      edit: ["a = 1", "b = 2", "c = 3"],
      says: "the file has trailing whitespace the EDIT section lacks",
      at: "b = 2  ",
    },
    {
      difference: "indentation",
      file: text("if x:", "    y()", "    z()"),
      edit: ["if x:", "  y()", "  z()"],
      says: "the indentation differs: 4 character(s) in the file, 2 in the EDIT section",
      at: "    y()",
    },
    {
      difference: "whitespace inside a line",
      file: text("let  a = 1;", "let b = 2;"),
      edit: ["let a = 1;", "let b = 2;"],
      says: "the whitespace inside the line differs",
      at: "let  a = 1;",
    },
  ])("diagnoses a whitespace mismatch: $difference", ({ file, edit, says, at }) => {
    const error = failure(file, block("src/f.ts", edit, [...edit, "// added"]));
    expect(error.code).toBe("not_found");
    expect(error.message).toMatch(/^Whitespace mismatch: /);
    expect(error.message).toContain(`At line ${lineOf(file, at)}, ${says}`);
    expect(error.message).toContain("send the block again");
  });

  it("names the nearest file line when a line was mistyped", () => {
    const error = failure(
      MATH,
      block(
        "src/math.py",
        ["def multiply(a, b):", "    retrun a + b  # BUG"],
        ["def multiply(a, b):", "    return a * b"],
      ),
    );
    expect(error.code).toBe("not_found");
    expect(error.message).toMatch(/^Near match: /);
    expect(error.message).toContain(`Its first line matches line ${lineOf(MATH, "def multiply(a, b):")}`);
    expect(error.message).toContain(`is line ${lineOf(MATH, "    return a + b  # BUG")}`);
  });

  it("names the nearest file line when the first line is off", () => {
    const error = failure(
      MATH,
      block("src/math.py", ["def multiply(x, y):"], ["def multiply(x, y):", '    """Product."""']),
    );
    expect(error.message).toMatch(/^Near match: /);
    expect(error.message).toContain(`is line ${lineOf(MATH, "def multiply(a, b):")}`);
  });

  it("reports identical sections as no change once they are found", () => {
    const error = failure(MATH, block("src/math.py", ["import os"], ["import os"]));
    expect(error.code).toBe("no_change");
  });

  it("leaves its input alone when it fails", () => {
    const before = MATH;
    failure(before, block("src/math.py", ["nope"], ["yes"]));
    expect(before).toBe(MATH);
  });
});

describe("the file's shape", () => {
  it("anchors on the first line of a file with a byte order mark, and keeps the mark", () => {
    expect(applied("\uFEFFimport a\nrun()\n", block("f.js", ["import a"], ["import b"])).content).toBe(
      "\uFEFFimport b\nrun()\n",
    );
  });

  it.each([
    { name: "a changed last line", content: "a\nb\nc", edit: ["c"], repl: ["C"], after: "a\nb\nC" },
    {
      name: "lines added after the last line",
      content: "a\nb\nc",
      edit: ["c"],
      repl: ["c", "d"],
      after: "a\nb\nc\nd",
    },
    {
      name: "the last lines replaced by fewer",
      content: "a\nb\nc",
      edit: ["b", "c"],
      repl: ["x"],
      after: "a\nx",
    },
    {
      name: "CRLF, no final newline",
      content: "a\r\nb\r\nc",
      edit: ["c"],
      repl: ["c", "d"],
      after: "a\r\nb\r\nc\r\nd",
    },
  ])("no final newline stays absent: $name", ({ content, edit, repl, after }) => {
    expect(applied(content, block("src/f.txt", edit, repl)).content).toBe(after);
  });
});

describe("property: the string-search path for \\n files gives what the line-based path gives", () => {
  it("on the same file with \\r\\n endings, once those are read back as \\n", () => {
    const line = fc.constantFrom("a", "b", "c", "", "  d");
    fc.assert(
      fc.property(
        fc.array(line, { minLength: 1, maxLength: 12 }),
        fc.boolean(),
        fc.nat(),
        fc.nat({ max: 3 }),
        fc.array(line, { maxLength: 4 }),
        (lines, finalNewline, from, count, repl) => {
          const content = lines.join("\n") + (finalNewline ? "\n" : "");
          const start = from % lines.length;
          const edit = lines.slice(start, start + Math.max(1, count));
          const b: EditBlock = {
            index: 0,
            file_path: "f",
            old: edit.map((l) => l + "\n").join(""),
            new: repl.map((l) => l + "\n").join(""),
            line: 1,
          };
          const lf = applyEditBlock(content, b);
          const crlf = applyEditBlock(content.replace(/\n/g, "\r\n"), b);
          expect(lf.ok).toBe(crlf.ok);
          if (lf.ok && crlf.ok) {
            expect(lf.value.content).toBe(crlf.value.content.replace(/\r\n/g, "\n"));
            expect(lf.value.anchorLine).toBe(crlf.value.anchorLine);
          } else if (!lf.ok && !crlf.ok) expect(lf.error.code).toBe(crlf.error.code);
        },
      ),
      { numRuns: 2000 },
    );
  });
});
