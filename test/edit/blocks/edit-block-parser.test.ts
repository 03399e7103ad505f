import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  EditBlockParser,
  countEditBlocks,
  isCreateBlock,
  parseEditBlocks,
  pathFromLine,
  type EditBlock,
} from "../../../server/src/edit/blocks/edit-blocks.js";

/** Lines of a fixture, each ended by `\n`. */
const text = (...lines: string[]) => lines.map((l) => l + "\n").join("");

/** 1-based line of the first line equal to `wanted`. */
function lineOf(source: string, wanted: string): number {
  const index = source.split("\n").indexOf(wanted);
  if (index < 0) throw new Error(`fixture has no line ${JSON.stringify(wanted)}`);
  return index + 1;
}

/** Feeds `source` in pieces cut at `cuts` and collects every block, in order. */
function parseInPieces(source: string, cuts: number[]) {
  const parser = new EditBlockParser();
  const blocks: EditBlock[] = [];
  let from = 0;
  for (const cut of [...cuts].sort((a, b) => a - b)) {
    blocks.push(...parser.push(source.slice(from, cut)));
    from = cut;
  }
  blocks.push(...parser.push(source.slice(from)));
  const end = parser.finish();
  return { blocks: [...blocks, ...end.blocks], unterminated: end.unterminated };
}

const RESPONSE = text(
  "Sure, here is the fix for `multiply`:",
  "",
  "src/math.py",
  "```python",
  "««« EDIT",
  "def multiply(a, b):",
  "    return a + b  # BUG",
  "═══════ REPL",
  "def multiply(a, b):",
  "    return a * b",
  "»»» EDIT END",
  "```",
  "",
  "And a new module — 🎉 with emoji:",
  "",
  "```",
  "src/hello.py",
  "««« EDIT",
  "═══════ REPL",
  "def hello():",
  '    print("Hello, 世界 🌍")',
  "»»» EDIT END",
  "```",
  "",
  "Finally drop an import from README.md",
  "README.md",
  "««« EDIT",
  "import os",
  "import deprecated_module",
  "import sys",
  "═══════ REPL",
  "import os",
  "import sys",
  "»»» EDIT END",
  "That's all.",
);

describe("parseEditBlocks", () => {
  it("extracts blocks from prose, fences and all", () => {
    expect(parseEditBlocks(RESPONSE)).toEqual([
      {
        index: 0,
        file_path: "src/math.py",
        old: text("def multiply(a, b):", "    return a + b  # BUG"),
        new: text("def multiply(a, b):", "    return a * b"),
        line: lineOf(RESPONSE, "src/math.py"),
      },
      {
        index: 1,
        file_path: "src/hello.py",
        old: "",
        new: text("def hello():", '    print("Hello, 世界 🌍")'),
        line: lineOf(RESPONSE, "src/hello.py"),
      },
      {
        index: 2,
        file_path: "README.md",
        old: text("import os", "import deprecated_module", "import sys"),
        new: text("import os", "import sys"),
        line: lineOf(RESPONSE, "README.md"),
      },
    ]);
  });

  it.each([
    {
      operation: "modify",
      source: text(
        "src/a.ts",
        "««« EDIT",
        "function f() {",
        "  return 1;",
        "═══════ REPL",
        "function f() {",
        "  return 2;",
        "»»» EDIT END",
      ),
      old: text("function f() {", "  return 1;"),
      new: text("function f() {", "  return 2;"),
      create: false,
    },
    {
      operation: "create",
      source: text(
        "src/new_module.py",
        "««« EDIT",
        "═══════ REPL",
        "def hello():",
        "    pass",
        "»»» EDIT END",
      ),
      old: "",
      new: text("def hello():", "    pass"),
      create: true,
    },
    {
      operation: "insert after",
      source: text(
        "src/utils.py",
        "««« EDIT",
        "import os",
        "═══════ REPL",
        "import os",
        "import sys",
        "»»» EDIT END",
      ),
      old: text("import os"),
      new: text("import os", "import sys"),
      create: false,
    },
    {
      operation: "delete lines",
      source: text(
        "src/utils.py",
        "««« EDIT",
        "import os",
        "import gone",
        "═══════ REPL",
        "import os",
        "»»» EDIT END",
      ),
      old: text("import os", "import gone"),
      new: text("import os"),
      create: false,
    },
    {
      operation: "delete everything in the section",
      source: text("src/utils.py", "««« EDIT", "import gone", "═══════ REPL", "»»» EDIT END"),
      old: text("import gone"),
      new: "",
      create: false,
    },
    {
      operation: "keep blank lines inside sections",
      source: text(
        "a/b.md",
        "««« EDIT",
        "# Title",
        "",
        "═══════ REPL",
        "# Title",
        "",
        "Body",
        "»»» EDIT END",
      ),
      old: text("# Title", ""),
      new: text("# Title", "", "Body"),
      create: false,
    },
  ])("reads a $operation block", ({ source, old, new: replacement, create }) => {
    const [block, ...rest] = parseEditBlocks(source);
    expect(rest).toEqual([]);
    expect(block).toMatchObject({ old, new: replacement, line: 1 });
    expect(isCreateBlock(block!)).toBe(create);
  });

  it.each([
    { line: "src/x.ts", path: "src/x.ts" },
    { line: "  src/x.ts  ", path: "src/x.ts" },
    { line: "README.md", path: "README.md" },
    { line: "main.go", path: "main.go" },
    { line: "types.d.ts", path: "types.d.ts" },
    { line: ".gitignore", path: ".gitignore" },
    { line: "Makefile", path: "Makefile" },
    { line: "`src/x.ts`", path: "src/x.ts" },
    { line: "**src/x.ts**", path: "src/x.ts" },
    { line: "**`src/x.ts`**", path: "src/x.ts" },
    { line: '"src/x.ts"', path: "src/x.ts" },
    { line: "'main.go'", path: "main.go" },
    { line: "C:\\proj\\x.ts", path: "C:\\proj\\x.ts" },
    { line: "/abs/path/file.rs", path: "/abs/path/file.rs" },
    { line: "# foo/bar.py", path: undefined },
    { line: "#foo/bar.py", path: undefined },
    { line: "// src/x.ts", path: undefined },
    { line: "* src/x.ts", path: undefined },
    { line: "- src/x.ts", path: undefined },
    { line: "> src/x.ts", path: undefined },
    { line: "- `src/x.ts`", path: undefined },
    { line: "see src/x.ts", path: undefined },
    { line: "`src/my file.ts`", path: undefined },
    { line: "Done.", path: undefined },
    { line: "hello", path: undefined },
    { line: "v1.2", path: undefined },
    { line: "", path: undefined },
    { line: "a/" + "b".repeat(197), path: "a/" + "b".repeat(197) }, // 199 characters
    { line: "a/" + "b".repeat(198), path: undefined }, // 200 characters
  ])("path line $line → $path", ({ line, path }) => {
    expect(pathFromLine(line)).toBe(path);
  });

  it.each(["# foo/bar.py", "// src/x.ts", "- src/x.ts", "> src/x.ts", "Here is the change:"])(
    "does not take %j before a marker as a path",
    (line) => {
      const source = text(line, "««« EDIT", "a", "═══════ REPL", "b", "»»» EDIT END");
      expect(parseEditBlocks(source)).toEqual([]);
    },
  );

  it("needs the path right before the EDIT marker (a fence may sit between)", () => {
    const blankBetween = text("src/a.ts", "", "««« EDIT", "a", "═══════ REPL", "b", "»»» EDIT END");
    const fenceBetween = text(
      "src/a.ts",
      "```ts",
      "««« EDIT",
      "a",
      "═══════ REPL",
      "b",
      "»»» EDIT END",
      "```",
    );
    expect(parseEditBlocks(blankBetween)).toEqual([]);
    expect(parseEditBlocks(fenceBetween)).toMatchObject([
      { file_path: "src/a.ts", old: "a\n", new: "b\n", line: 1 },
    ]);
  });

  it("tolerates CRLF output and whitespace around markers", () => {
    const lf = text("src/a.ts", "««« EDIT", "  a", "═══════ REPL", "  b", "»»» EDIT END");
    const crlf = lf.replace(/\n/g, "\r\n");
    const padded = text("  src/a.ts\t", "   ««« EDIT  ", "  a", "\t═══════ REPL ", "  b", " »»» EDIT END\t");
    expect(parseEditBlocks(crlf)).toEqual(parseEditBlocks(lf));
    expect(parseEditBlocks(padded)).toEqual(parseEditBlocks(lf));
    expect(parseEditBlocks(lf)).toMatchObject([{ old: "  a\n", new: "  b\n" }]);
  });

  it("takes a block whose END marker ends the text without a newline", () => {
    expect(parseEditBlocks("x/y.ts\n««« EDIT\na\n═══════ REPL\nb\n»»» EDIT END")).toHaveLength(1);
  });

  it("counts complete blocks for code actions", () => {
    expect(countEditBlocks(RESPONSE)).toBe(3);
    expect(countEditBlocks("no blocks here\n")).toBe(0);
    expect(countEditBlocks(RESPONSE + text("src/late.ts", "««« EDIT", "a"))).toBe(3);
  });
});

describe("EditBlockParser", () => {
  it("returns a block from the push that completes its END line", () => {
    const parser = new EditBlockParser();
    expect(parser.push("src/a.ts\n««« EDIT\nold\n═══════ REPL\nnew\n»»» EDIT")).toEqual([]);
    expect(parser.push(" END")).toEqual([]); // the line might still go on
    expect(parser.push("\nmore prose")).toMatchObject([
      { file_path: "src/a.ts", old: "old\n", new: "new\n" },
    ]);
    expect(parser.finish()).toEqual({ blocks: [], unterminated: 0, malformed: 0 });
  });

  it.each([
    { state: "in the EDIT section", tail: text("src/late.ts", "««« EDIT", "half") },
    { state: "in the REPL section", tail: text("src/late.ts", "««« EDIT", "a", "═══════ REPL", "b") },
    { state: "without a final newline", tail: "src/late.ts\n««« EDIT\na\n═══════ REPL\nb\n»»» EDIT EN" },
  ])("does not emit a block cut off $state", ({ tail }) => {
    const parser = new EditBlockParser();
    const blocks = [...parser.push(RESPONSE + tail)];
    const end = parser.finish();
    blocks.push(...end.blocks);
    expect(blocks.map((b) => b.file_path)).toEqual(["src/math.py", "src/hello.py", "README.md"]);
    expect(end.unterminated).toBe(1);
  });

  it("recovers the next block when one lost its END marker", () => {
    const source = text(
      "src/a.ts",
      "««« EDIT",
      "a",
      "═══════ REPL",
      "b",
      "src/b.ts",
      "««« EDIT",
      "c",
      "═══════ REPL",
      "d",
      "»»» EDIT END",
    );
    const { blocks, unterminated } = parseInPieces(source, []);
    expect(blocks).toEqual([
      { index: 0, file_path: "src/b.ts", old: "c\n", new: "d\n", line: lineOf(source, "src/b.ts") },
    ]);
    expect(unterminated).toBe(1);
  });

  it("drops a block closed before its REPL marker and counts it as malformed", () => {
    const parser = new EditBlockParser();
    const blocks = parser.push(
      text(
        "src/a.ts",
        "««« EDIT",
        "a",
        "»»» EDIT END",
        "src/b.ts",
        "««« EDIT",
        "═══════ REPL",
        "b",
        "»»» EDIT END",
      ),
    );
    expect(blocks).toMatchObject([{ index: 0, file_path: "src/b.ts" }]);
    expect(parser.finish()).toMatchObject({ unterminated: 0, malformed: 1 });
  });

  it("can be reused after finish", () => {
    const parser = new EditBlockParser();
    parser.push(text("src/a.ts", "««« EDIT", "a"));
    expect(parser.finish().unterminated).toBe(1);
    const again = [...parser.push(RESPONSE), ...parser.finish().blocks];
    expect(again).toEqual(parseEditBlocks(RESPONSE));
  });

  const crlfResponse = RESPONSE.replace(/\n/g, "\r\n");
  it.each([
    { name: "LF", source: RESPONSE },
    { name: "CRLF", source: crlfResponse },
  ])("gives the whole-text blocks for $name chunks of every size", ({ source }) => {
    const whole = parseEditBlocks(source);
    expect(whole).toHaveLength(3);
    for (let size = 1; size <= source.length; size++) {
      const cuts: number[] = [];
      for (let at = size; at < source.length; at += size) cuts.push(at);
      expect(parseInPieces(source, cuts), `chunk size ${size}`).toEqual({ blocks: whole, unterminated: 0 });
    }
  });

  it("gives the whole-text blocks for random split points (property)", () => {
    const fragment = fc.constantFrom(
      "src/a.ts",
      "README.md",
      "# not/a/path.py",
      "// src/x.ts",
      "prose with words",
      "",
      "««« EDIT",
      "═══════ REPL",
      "»»» EDIT END",
      "```",
      "  indented 🎉 line",
      "tab\tline\r",
      "世界",
      text("src/b.py", "««« EDIT", "x = 1", "═══════ REPL", "x = 2 # 🎉", "»»» EDIT END"),
      text("**main.go**", "««« EDIT", "═══════ REPL", "package main", "»»» EDIT END").replace(/\n/g, "\r\n"),
    );
    const source = fc.array(fragment, { maxLength: 40 }).map((lines) => lines.join("\n"));
    const sourceAndCuts = source.chain((s) =>
      fc.tuple(fc.constant(s), fc.array(fc.integer({ min: 0, max: s.length }), { maxLength: 30 })),
    );
    fc.assert(
      fc.property(sourceAndCuts, ([s, cuts]) => {
        const parser = new EditBlockParser();
        const wholeBlocks = [...parser.push(s)];
        const whole = parser.finish();
        wholeBlocks.push(...whole.blocks);
        expect(parseInPieces(s, cuts)).toEqual({ blocks: wholeBlocks, unterminated: whole.unterminated });
      }),
      { numRuns: 500 },
    );
  });
});

describe("aider's SEARCH/REPLACE form", () => {
  const aider = [
    "Here is the fix:",
    "",
    "src/app.py",
    "```python",
    "<<<<<<< SEARCH",
    "def area(w, h):",
    "    return w * h",
    "=======",
    "def area(w, h):",
    "    return h * w",
    ">>>>>>> REPLACE",
    "```",
  ].join("\n");

  it("gives the same block the ««« EDIT form gives, a fence between path and marker allowed", () => {
    const edit = [
      "src/app.py",
      "««« EDIT",
      "def area(w, h):",
      "    return w * h",
      "═══════ REPL",
      "def area(w, h):",
      "    return h * w",
      "»»» EDIT END",
    ].join("\n");
    const [a] = parseEditBlocks(aider);
    const [e] = parseEditBlocks(edit);
    expect(a).toMatchObject({ file_path: "src/app.py", old: e!.old, new: e!.new });
  });

  it("reads a ======= line in the REPLACE part as text, and both forms in one answer, in order", () => {
    const text = [
      "a.md",
      "<<<<<<< SEARCH",
      "Title",
      "=======",
      "Title",
      "=======",
      ">>>>>>> REPLACE",
      "b.txt",
      "««« EDIT",
      "x",
      "═══════ REPL",
      "y",
      "»»» EDIT END",
    ].join("\n");
    const blocks = parseEditBlocks(text);
    expect(blocks.map((b) => [b.file_path, b.old, b.new])).toEqual([
      ["a.md", "Title\n", "Title\n=======\n"],
      ["b.txt", "x\n", "y\n"],
    ]);
  });

  it("streams: any chunking gives the same blocks", () => {
    const whole = parseEditBlocks(aider);
    for (const size of [1, 3, 7, 50]) {
      const parser = new EditBlockParser();
      const got = [];
      for (let i = 0; i < aider.length; i += size) got.push(...parser.push(aider.slice(i, i + size)));
      got.push(...parser.finish().blocks);
      expect(got).toEqual(whole);
    }
  });
});
