// parseEditBlocks on a whole answer: blocks among prose and fences, the path right before the
// marker, CRLF and loose whitespace, a last END without a newline, the count code actions show.
import { describe, expect, it } from "vitest";
import {
  countEditBlocks,
  isCreateBlock,
  parseEditBlocks,
  pathFromLine,
} from "../../../server/src/edit/blocks/edit-blocks.js";
import { lineOf, RESPONSE, text } from "./edit-block-fixtures.js";

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
