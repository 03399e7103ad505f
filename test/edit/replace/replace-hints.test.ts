// What the engine makes of a model's usual slips: no_change, placeholders, over-escaped strings, an empty old_string and the not-found hints.
import { describe, expect, it } from "vitest";
import { replaceInText } from "../../../server/src/edit/replace/replace.js";
import { apply, block, failure, file } from "./replace-cases.js";

describe("no_change", () => {
  it.each([
    { name: "old_string equals new_string", before: file("a"), old: "a", new: "a" },
    {
      name: "old_string gone, new_string already there once",
      before: file("const rate = 0.075;"),
      old: "const rate = 0.05;",
      new: "const rate = 0.075;",
    },
    {
      name: "the replacement only re-creates the same text",
      before: file("    x();"),
      old: "x();  ",
      new: "x();",
    },
  ])("$name", ({ before, old, new: replacement }) => {
    const error = failure(before, { old_string: old, new_string: replacement }, "no_change");
    expect(error.message).toMatch(/already/);
  });
});

describe("placeholders", () => {
  it.each([
    "// rest of code",
    "// ... existing code ...",
    "# ...",
    "/* ... */",
    "...",
    "// remaining methods unchanged",
    "    // Rest of the function remains the same",
    "<!-- ... -->",
    "// existing code here",
  ])("refuses %j in new_string", (placeholder) => {
    const before = file("function f() {", "  a();", "}");
    const error = failure(
      before,
      {
        old_string: block("function f() {", "  a();"),
        new_string: block("function f() {", "  b();", placeholder),
      },
      "invalid_argument",
    );
    expect(error.message).toContain(placeholder.trim());
    expect(error.message).toMatch(/written out/);
  });

  it.each([
    {
      name: "the placeholder is in old_string",
      before: file("x", "// ...", "y"),
      old: block("x", "// ..."),
      new: block("z", "// ..."),
    },
    {
      name: "the placeholder is in the file",
      before: file("def f():", "    ...", "g = 1"),
      old: "g = 1",
      new: block("g = 2", "    ..."),
    },
    {
      name: "an ordinary comment",
      before: file("x"),
      old: "x",
      new: block("// restore the previous value", "x"),
    },
    { name: "a section comment", before: file("x"), old: "x", new: block("// Methods", "x") },
    { name: "a spread", before: file("f(a)"), old: "f(a)", new: "f(...a)" },
  ])("allows it when $name", ({ before, old, new: replacement }) => {
    expect(replaceInText(before, { old_string: old, new_string: replacement }).ok).toBe(true);
  });
});

describe("over-escaped strings", () => {
  it("unescapes old_string and new_string when the literal form matches nothing", () => {
    const before = file("function hi() {", '  say("hi");', "}");
    const result = apply(before, {
      old_string: '  say(\\"hi\\");\\n}',
      new_string: '  say(\\"hello\\");\\n}',
    });
    expect(result.content).toBe(file("function hi() {", '  say("hello");', "}"));
    expect(result.unescaped).toBe(true);
  });

  it("does not unescape when the literal form is ambiguous", () => {
    // Unescaped, old_string would match lines 3-4 only; the literal form decides.
    const before = file('a = "\\n";', 'b = "\\n";', 'c = "', '";');
    const error = failure(before, { old_string: '"\\n";', new_string: '"\\t";' }, "ambiguous");
    expect(error.message).toContain("lines 1 and 2");
  });

  it("names the nearest line for the unescaped lines when those were clearly meant", () => {
    const before = file("if (ok) {", "  run();", "}");
    const error = failure(before, { old_string: "if (ok) {\\n  walk();\\n}", new_string: "x" }, "not_found");
    expect(error.message).toContain('old_string line 2 "  walk();" does not match file line 2 "  run();"');
  });

  it("keeps the literal form when it matches", () => {
    const before = file('const nl = "\\n";', "const tab = '\\t';");
    const result = apply(before, { old_string: 'const nl = "\\n";', new_string: 'const nl = "\\r\\n";' });
    expect(result.content).toBe(file('const nl = "\\r\\n";', "const tab = '\\t';"));
    expect(result.unescaped).toBe(false);
  });

  it("reads an escaped backslash before n as a backslash and an n", () => {
    const before = file('path = "C:\\new"');
    const result = apply(before, {
      old_string: 'path = \\"C:\\\\new\\"',
      new_string: 'path = \\"D:\\\\new\\"',
    });
    expect(result.content).toBe(file('path = "D:\\new"'));
    expect(result.unescaped).toBe(true);
  });
});

describe("empty old_string", () => {
  it("is refused on a file with content, pointing at write_file", () => {
    const error = failure(file("a"), { old_string: "", new_string: "b" }, "invalid_argument");
    expect(error.message).toContain("write_file");
  });

  it("fills an empty file with new_string", () => {
    expect(apply("", { old_string: "", new_string: "hello\n" }).content).toBe("hello\n");
  });
});

describe("not found", () => {
  const before = file(
    "function total(items) {",
    "  const taxRate = 0.05;",
    "  return sum(items) * (1 + taxRate);",
    "}",
  );

  it.each([
    {
      name: "names the most similar line and says its text differs",
      old: "const tax_rate = 0.05;",
      want: 'line 2: "  const taxRate = 0.05;"; its text differs',
    },
    {
      name: "says where a block stops matching",
      old: block("const taxRate = 0.05;", "return sum(items) * 1.05;"),
      want: `matches old_string's first line, but old_string line 2 "return sum(items) * 1.05;" does not match file line 3`,
    },
  ])("$name", ({ old, want }) => {
    const error = failure(before, { old_string: old, new_string: "x" }, "not_found");
    expect(error.message).toMatch(/^Edit Failed: old_string was not found/);
    expect(error.message).toContain(want);
    expect(error.suggestions.join(" ")).toMatch(/re-read|copy/i);
  });

  it("says so when the file is empty", () => {
    expect(failure("", { old_string: "x", new_string: "y" }, "not_found").message).toMatch(/empty/);
  });
});
