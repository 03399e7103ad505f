// The replacement tiers (exact, whitespace-flexible, token-tolerant) and how matches are counted: ambiguity and expected_replacements.
import { describe, expect, it } from "vitest";
import type { ReplaceStrategy } from "../../../server/src/edit/replace/replace.js";
import { apply, block, failure, file } from "./replace-cases.js";

interface Case {
  name: string;
  before: string;
  old: string;
  new: string;
  after: string;
  expected_replacements?: number;
}

function checkTier(strategy: ReplaceStrategy, cases: Case[]): void {
  it.each(cases)("$name", (c) => {
    const result = apply(c.before, {
      old_string: c.old,
      new_string: c.new,
      expected_replacements: c.expected_replacements,
    });
    expect(result.content).toBe(c.after);
    expect(result.strategy).toBe(strategy);
    expect(result.unescaped).toBe(false);
  });
}

describe("exact tier", () => {
  checkTier("exact", [
    {
      name: "a word inside a line",
      before: file("let x = 1;"),
      old: "1",
      new: "2",
      after: file("let x = 2;"),
    },
    {
      name: "a block of lines",
      before: file("a", "b", "c", "d"),
      old: block("b", "c"),
      new: block("B", "C", "C2"),
      after: file("a", "B", "C", "C2", "d"),
    },
    {
      name: "deleting lines with their line breaks",
      before: file("keep", "drop", "keep too"),
      old: "drop\n",
      new: "",
      after: file("keep", "keep too"),
    },
    {
      name: "$& inserted literally",
      before: file("price"),
      old: "price",
      new: "$&.00",
      after: file("$&.00"),
    },
    {
      name: "$1 and $$ inserted literally",
      before: file("a(b)"),
      old: "a(b)",
      new: "$1 + $$ + $'",
      after: file("$1 + $$ + $'"),
    },
    {
      name: "a match after the indentation is literal: new_string's next lines keep their own indentation",
      before: file("  a", "  b", "  c"),
      old: "b\n",
      new: "B\n  B2\n",
      after: file("  a", "  B", "  B2", "  c"),
    },
    {
      name: "regex characters in old_string",
      before: file("if (x > 10) { y(); }"),
      old: "(x > 10)",
      new: "(x > 11)",
      after: file("if (x > 11) { y(); }"),
    },
  ]);
});

describe("whitespace-flexible tier", () => {
  checkTier("flexible", [
    {
      name: "file indented deeper: the replacement moves right, keeping its own nesting",
      before: file("class A {", "    run() {", "        go();", "    }", "}"),
      old: block("run() {", "    go();", "}"),
      new: block("run() {", "    go();", "    if (done) {", "        stop();", "    }", "}"),
      after: file(
        "class A {",
        "    run() {",
        "        go();",
        "        if (done) {",
        "            stop();",
        "        }",
        "    }",
        "}",
      ),
    },
    {
      name: "file indented shallower: the replacement moves left",
      before: file("def f():", "    return 1"),
      old: block("        def f():", "            return 1"),
      new: block("        def f():", "            x = 1", "            return x"),
      after: file("def f():", "    x = 1", "    return x"),
    },
    {
      name: "trailing whitespace and inner runs of spaces ignored",
      before: file("x  =   1;   ", "y = 2;"),
      old: block("x = 1;", "y = 2;"),
      new: block("x = 10;", "y = 20;"),
      after: file("x = 10;", "y = 20;"),
    },
    {
      name: "file uses tabs, old_string 4 spaces: the replacement is written with tabs",
      before: file("\tif (x) {", "\t\ty();", "\t}"),
      old: block("    if (x) {", "        y();", "    }"),
      new: block("    if (x) {", "        y();", "        z();", "    }"),
      after: file("\tif (x) {", "\t\ty();", "\t\tz();", "\t}"),
    },
    {
      name: "file uses tabs, old_string 2 spaces",
      before: file("\tif (x) {", "\t\ty();", "\t}"),
      old: block("  if (x) {", "    y();", "  }"),
      new: block("  if (x) {", "    y();", "  }", "  done();"),
      after: file("\tif (x) {", "\t\ty();", "\t}", "\tdone();"),
    },
    {
      name: "file uses 2 spaces, old_string tabs",
      before: file("function f() {", "  if (x) {", "    y();", "  }", "}"),
      old: block("\tif (x) {", "\t\ty();", "\t}"),
      new: block("\tif (x) {", "\t\tz();", "\t}"),
      after: file("function f() {", "  if (x) {", "    z();", "  }", "}"),
    },
    {
      name: "old_string ending with a line break replaces whole lines",
      before: file("  a", "  b", "  c"),
      old: "    b\n",
      new: "    B\n    B2\n",
      after: file("  a", "  B", "  B2", "  c"),
    },
    {
      name: "blank lines in the replacement stay empty",
      before: file("    one();", "    two();"),
      old: block("one();", "two();"),
      new: block("one();", "", "two();"),
      after: file("    one();", "", "    two();"),
    },
  ]);
});

describe("token-tolerant tier", () => {
  checkTier("token", [
    {
      name: "spacing inside a call, matched within a line",
      before: file("  return foo(a, b) + 1;"),
      old: "foo( a,b )",
      new: "bar(a, b)",
      after: file("  return bar(a, b) + 1;"),
    },
    {
      name: "spacing around operators across several whole lines",
      before: file("    if (a == b) {", "        c = d + e;", "    }"),
      old: block("if(a==b){", "    c=d+e;", "}"),
      new: block("if (a === b) {", "    c = d - e;", "}"),
      after: file("    if (a === b) {", "        c = d - e;", "    }"),
    },
    {
      name: "first line a suffix and last line a prefix, as an exact match would",
      before: file("x = f(1,", "      2) + g;"),
      old: block("f(1 ,", "2)"),
      new: block("h(1,", "      2)"),
      after: file("x = h(1,", "      2) + g;"),
    },
  ]);

  it("lets a final line break of old_string meet the end of a file that has none", () => {
    const result = apply("a\nx = f(1,2)", { old_string: "x = f( 1, 2 )\n", new_string: "x = f(1, 3)\n" });
    expect(result.strategy).toBe("token");
    expect(result.content).toBe("a\nx = f(1, 3)");
  });

  it("never joins lines: a one-line old_string does not match a call split over two lines", () => {
    failure(file("foo(a,", "    b);"), { old_string: "foo(a, b);", new_string: "bar(a, b);" }, "not_found");
  });

  it("never splits a word: `a=1` does not match `data = 1` or `a = 10`", () => {
    failure(file("data = 1;", "a = 10;"), { old_string: "a=1", new_string: "a=2" }, "not_found");
  });

  it("keeps the number of lines: a two-line old_string does not match one file line", () => {
    failure(file("call(a, b);"), { old_string: block("call(a,", "b);"), new_string: "x" }, "not_found");
  });
});

describe("counting matches", () => {
  it.each([
    {
      name: "overlapping exact matches (`aa` in `aaa`)",
      before: file("aaa"),
      old: "aa",
      count: 2,
      lines: "line 1 (2 matches)",
    },
    {
      name: "two exact matches on different lines",
      before: file("x();", "y();", "x();"),
      old: "x();",
      count: 2,
      lines: "lines 1 and 3",
    },
    {
      name: "overlapping whole-line windows",
      before: file("  step();", "  step();", "  step();"),
      old: block("step();", "step();"),
      count: 2,
      lines: "lines 1 and 2",
    },
  ])("$name is ambiguous with the count and the lines", ({ before, old, count, lines }) => {
    const error = failure(before, { old_string: old, new_string: "z" }, "ambiguous");
    expect(error.message).toContain(`matches ${count} places`);
    expect(error.message).toContain(lines);
    expect(error.message).toMatch(/Add surrounding lines to old_string/);
    expect(error.message).toContain(`set expected_replacements to ${count}`);
    expect(error.suggestions.length).toBeGreaterThan(0);
  });

  it("replaces every match when expected_replacements equals the count", () => {
    const result = apply(file("x();", "y();", "x();"), {
      old_string: "x();",
      new_string: "w();",
      expected_replacements: 2,
    });
    expect(result.content).toBe(file("w();", "y();", "w();"));
    expect(result.occurrences).toBe(2);
  });

  it("re-indents each match on its own when replacing several", () => {
    const before = file("if (a) {", "  go();", "}", "    go();");
    const result = apply(before, {
      old_string: "go();  ",
      new_string: block("go();", "done();"),
      expected_replacements: 2,
    });
    expect(result.strategy).toBe("flexible");
    expect(result.content).toBe(file("if (a) {", "  go();", "  done();", "}", "    go();", "    done();"));
  });

  it("refuses overlapping matches even when their count is the one expected", () => {
    const error = failure(
      file("aaa"),
      { old_string: "aa", new_string: "b", expected_replacements: 2 },
      "ambiguous",
    );
    expect(error.message).toMatch(/overlap/);
  });

  it("reports fewer matches than expected", () => {
    const error = failure(
      file("x();", "y();"),
      { old_string: "x();", new_string: "w();", expected_replacements: 3 },
      "ambiguous",
    );
    expect(error.message).toContain("matches 1 place");
    expect(error.message).toContain("expected_replacements is 3");
  });

  it("takes a looser tier when it finds all the expected matches", () => {
    const before = file("f(a, b);", "f(a,b);");
    const result = apply(before, { old_string: "f(a, b);", new_string: "g();", expected_replacements: 2 });
    expect(result.strategy).toBe("token");
    expect(result.content).toBe(file("g();", "g();"));
  });

  it("stops at the first tier with too many matches", () => {
    const before = file("  go();", "go();", "  go();");
    const error = failure(before, { old_string: "  go();\n", new_string: "stop();\n" }, "ambiguous");
    expect(error.message).toMatch(/matches 2 places \(exact match, lines 1 and 3\)/);
  });

  it("rejects an expected_replacements below 1", () => {
    failure(file("x"), { old_string: "x", new_string: "y", expected_replacements: 0 }, "invalid_argument");
  });
});
