import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ErrorCode } from "../../../server/src/edit/shared/outcome.js";
import { replaceInText, type ReplaceRequest, type ReplaceStrategy } from "../../../server/src/edit/replace/replace.js";

/** A file: every line followed by `\n`. */
const file = (...lines: string[]): string => lines.map((line) => `${line}\n`).join("");
/** A snippet: lines joined by `\n`, no final line break. */
const block = (...lines: string[]): string => lines.join("\n");

interface Case {
  name: string;
  before: string;
  old: string;
  new: string;
  after: string;
  expected_replacements?: number;
}

function apply(before: string, request: ReplaceRequest) {
  const outcome = replaceInText(before, request);
  if (!outcome.ok) throw new Error(`expected success, got ${outcome.error.code}: ${outcome.error.message}`);
  return outcome.value;
}

function failure(before: string, request: ReplaceRequest, code: ErrorCode) {
  const outcome = replaceInText(before, request);
  if (outcome.ok) throw new Error(`expected ${code}, got success: ${JSON.stringify(outcome.value.content)}`);
  expect(outcome.error.code).toBe(code);
  return outcome.error;
}

function checkTier(strategy: ReplaceStrategy, cases: Case[]): void {
  it.each(cases)("$name", (c) => {
    const result = apply(c.before, { old_string: c.old, new_string: c.new, expected_replacements: c.expected_replacements });
    expect(result.content).toBe(c.after);
    expect(result.strategy).toBe(strategy);
    expect(result.unescaped).toBe(false);
  });
}

describe("exact tier", () => {
  checkTier("exact", [
    { name: "a word inside a line", before: file("let x = 1;"), old: "1", new: "2", after: file("let x = 2;") },
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
    { name: "$& inserted literally", before: file("price"), old: "price", new: "$&.00", after: file("$&.00") },
    { name: "$1 and $$ inserted literally", before: file("a(b)"), old: "a(b)", new: "$1 + $$ + $'", after: file("$1 + $$ + $'") },
    {
      name: "a match after the indentation is literal: new_string's next lines keep their own indentation",
      before: file("  a", "  b", "  c"),
      old: "b\n",
      new: "B\n  B2\n",
      after: file("  a", "  B", "  B2", "  c"),
    },
    { name: "regex characters in old_string", before: file("if (x > 10) { y(); }"), old: "(x > 10)", new: "(x > 11)", after: file("if (x > 11) { y(); }") },
  ]);
});

describe("whitespace-flexible tier", () => {
  checkTier("flexible", [
    {
      name: "file indented deeper: the replacement moves right, keeping its own nesting",
      before: file("class A {", "    run() {", "        go();", "    }", "}"),
      old: block("run() {", "    go();", "}"),
      new: block("run() {", "    go();", "    if (done) {", "        stop();", "    }", "}"),
      after: file("class A {", "    run() {", "        go();", "        if (done) {", "            stop();", "        }", "    }", "}"),
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
    { name: "overlapping exact matches (`aa` in `aaa`)", before: file("aaa"), old: "aa", count: 2, lines: "line 1 (2 matches)" },
    { name: "two exact matches on different lines", before: file("x();", "y();", "x();"), old: "x();", count: 2, lines: "lines 1 and 3" },
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
    const result = apply(file("x();", "y();", "x();"), { old_string: "x();", new_string: "w();", expected_replacements: 2 });
    expect(result.content).toBe(file("w();", "y();", "w();"));
    expect(result.occurrences).toBe(2);
  });

  it("re-indents each match on its own when replacing several", () => {
    const before = file("if (a) {", "  go();", "}", "    go();");
    const result = apply(before, { old_string: "go();  ", new_string: block("go();", "done();"), expected_replacements: 2 });
    expect(result.strategy).toBe("flexible");
    expect(result.content).toBe(file("if (a) {", "  go();", "  done();", "}", "    go();", "    done();"));
  });

  it("refuses overlapping matches even when their count is the one expected", () => {
    const error = failure(file("aaa"), { old_string: "aa", new_string: "b", expected_replacements: 2 }, "ambiguous");
    expect(error.message).toMatch(/overlap/);
  });

  it("reports fewer matches than expected", () => {
    const error = failure(file("x();", "y();"), { old_string: "x();", new_string: "w();", expected_replacements: 3 }, "ambiguous");
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

describe("line endings and the final newline", () => {
  it.each([
    { name: "CRLF file, LF strings", before: "a\r\nb\r\nc\r\n", old: "b\nc", new: "B\nC\nD", after: "a\r\nB\r\nC\r\nD\r\n" },
    { name: "LF file, CRLF strings", before: "a\nb\nc\n", old: "a\r\nb", new: "A\r\nB", after: "A\nB\nc\n" },
    {
      name: "mixed file: untouched lines keep their own endings, new lines take the dominant one",
      before: "one\r\ntwo\nthree\r\nfour\r\n",
      old: "three\n",
      new: "3\n3b\n",
      after: "one\r\ntwo\n3\r\n3b\r\nfour\r\n",
    },
    { name: "a lone CR is text, not a line ending", before: "a\rb\nc\n", old: "b\nc", new: "B\nC", after: "a\rB\nC\n" },
    {
      name: "final newline kept when the replacement drops it",
      before: "a\r\nb\r\n",
      old: "b\n",
      new: "c",
      after: "a\r\nc\r\n",
    },
    { name: "no final newline stays absent", before: "a\nb", old: "b", new: "c\n", after: "a\nc" },
    { name: "no final newline, flexible tier", before: "a\n  b", old: "b\n", new: "c\n", after: "a\n  c" },
  ])("$name", ({ before, old, new: replacement, after }) => {
    expect(apply(before, { old_string: old, new_string: replacement }).content).toBe(after);
  });

  it("keeps every byte outside the match, including odd endings and trailing spaces", () => {
    const before = "keep  \r\nx\n\r\nkeep\t\r";
    const result = apply(before, { old_string: "x", new_string: "y" });
    expect(result.content).toBe("keep  \r\ny\n\r\nkeep\t\r");
  });
});

describe("no_change", () => {
  it.each([
    { name: "old_string equals new_string", before: file("a"), old: "a", new: "a" },
    { name: "old_string gone, new_string already there once", before: file("const rate = 0.075;"), old: "const rate = 0.05;", new: "const rate = 0.075;" },
    { name: "the replacement only re-creates the same text", before: file("    x();"), old: "x();  ", new: "x();" },
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
      { old_string: block("function f() {", "  a();"), new_string: block("function f() {", "  b();", placeholder) },
      "invalid_argument",
    );
    expect(error.message).toContain(placeholder.trim());
    expect(error.message).toMatch(/written out/);
  });

  it.each([
    { name: "the placeholder is in old_string", before: file("x", "// ...", "y"), old: block("x", "// ..."), new: block("z", "// ...") },
    { name: "the placeholder is in the file", before: file("def f():", "    ...", "g = 1"), old: "g = 1", new: block("g = 2", "    ...") },
    { name: "an ordinary comment", before: file("x"), old: "x", new: block("// restore the previous value", "x") },
    { name: "a section comment", before: file("x"), old: "x", new: block("// Methods", "x") },
    { name: "a spread", before: file("f(a)"), old: "f(a)", new: "f(...a)" },
  ])("allows it when $name", ({ before, old, new: replacement }) => {
    expect(replaceInText(before, { old_string: old, new_string: replacement }).ok).toBe(true);
  });
});

describe("over-escaped strings", () => {
  it("unescapes old_string and new_string when the literal form matches nothing", () => {
    const before = file("function hi() {", '  say("hi");', "}");
    const result = apply(before, { old_string: '  say(\\"hi\\");\\n}', new_string: '  say(\\"hello\\");\\n}' });
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
    const result = apply(before, { old_string: 'path = \\"C:\\\\new\\"', new_string: 'path = \\"D:\\\\new\\"' });
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
  const before = file("function total(items) {", "  const taxRate = 0.05;", "  return sum(items) * (1 + taxRate);", "}");

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

describe("property: replacing a unique range of lines is a splice", () => {
  const line = fc.oneof(
    fc.constantFrom("", "{", "}", "x = 1;", "return x;"),
    fc.stringMatching(/^[ \t]{0,4}[a-z(),= ]{1,12}$/),
  );

  /** All occurrences, overlapping included, counted the slow and obvious way. */
  const countNaive = (text: string, needle: string): number => {
    let n = 0;
    for (let i = 0; i + needle.length <= text.length; i++) if (text.startsWith(needle, i)) n++;
    return n;
  };

  it("matches a manual splice, every other byte kept, new lines in the dominant ending", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(line, fc.constantFrom("\n", "\r\n")), { minLength: 1, maxLength: 30 }),
        fc.nat(),
        fc.nat(),
        fc.array(line, { maxLength: 5 }),
        (rows, a, b, replacement) => {
          const lines = rows.map(([text]) => text);
          const from = a % rows.length;
          const to = from + (b % (rows.length - from)) + 1;
          const old = lines.slice(from, to).join("\n") + "\n";
          fc.pre(lines.slice(from, to).some((l) => l.trim() !== ""));
          fc.pre(countNaive(lines.join("\n") + "\n", old) === 1);
          const newString = replacement.map((l) => l + "\n").join("");
          fc.pre(old !== newString);

          const content = rows.map(([text, eol]) => text + eol).join("");
          const crlf = rows.filter(([, eol]) => eol === "\r\n").length;
          const dominant = crlf > rows.length - crlf ? "\r\n" : "\n";
          const spliced =
            rows.slice(0, from).map(([text, eol]) => text + eol).join("") +
            replacement.map((l) => l + dominant).join("") +
            rows.slice(to).map(([text, eol]) => text + eol).join("");

          const outcome = replaceInText(content, { old_string: old, new_string: newString });
          if (spliced === content) {
            expect(outcome.ok).toBe(false);
            return;
          }
          expect(outcome.ok && outcome.value.content).toBe(spliced);
          expect(outcome.ok && outcome.value.strategy).toBe("exact");
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe("a 50k-line file", () => {
  // Speed is measured by `npm run bench`; here only that each tier still finds the one right place.
  const big = Array.from({ length: 50_000 }, (_, i) => `    const value${i} = compute(${i}, "label ${i}");`).join("\n") + "\n";

  it.each([
    { tier: "exact", request: { old_string: 'const value31337 = compute(31337, "label 31337");', new_string: "x" } },
    {
      tier: "flexible",
      request: { old_string: block("const value31337 =  compute(31337, \"label 31337\");  ", "const value31338 = compute(31338, \"label 31338\");"), new_string: "x" },
    },
    { tier: "token", request: { old_string: 'compute( 31337,"label 31337" )', new_string: "x" } },
  ])("finds the single match in the $tier tier", ({ tier, request }) => {
    const outcome = replaceInText(big, request as ReplaceRequest);
    if (!outcome.ok) throw new Error(outcome.error.message);
    expect(outcome.value.strategy).toBe(tier as ReplaceStrategy);
    expect(outcome.value.occurrences).toBe(1);
    expect(outcome.value.content).not.toContain('compute(31337, "label 31337")');
    expect(outcome.value.content).toContain('const value31336 = compute(31336, "label 31336");\n');
  });
});

describe("never wrong: indentation, no_change and shape", () => {
  it("stripped indentation: each new line takes the indentation of the line it replaces", () => {
    const result = apply("def f(x):\n    return x + 1\n", { old_string: "def f(x):\nreturn x + 1", new_string: "def f(x):\nreturn x + 100" });
    expect(result.content).toBe("def f(x):\n    return x + 100\n");
  });

  it("stripped indentation with a line nothing places is refused, never written at column 0", () => {
    const error = failure("def f(x):\n    return x + 1\n", { old_string: "def f(x):\nreturn x + 1", new_string: "def f(x):\ny = x + 1\nreturn y" }, "invalid_argument");
    expect(error.message).toContain("indentation");
    expect(error.message).toMatch(/"return y"/);
  });

  it.each([
    { name: "new_string inside another line", before: file("alpha", "beta", "gamma"), old: "betta", new: "b", nearest: "line 2" },
    { name: "new_string on whole lines far from where old_string would be", before: file("alpha = 1", "beta = 2", "gamma = 3", "", "result = 0"), old: "gamma = 4", new: "result = 0", nearest: "line 3" },
  ])("no proof, no no_change: $name is not_found naming the nearest line", ({ before, old, new: replacement, nearest }) => {
    const error = failure(before, { old_string: old, new_string: replacement }, "not_found");
    expect(error.message).toContain(`closest line is ${nearest}`);
  });

  it("proven: new_string once, on whole lines, where old_string's closest line is", () => {
    const error = failure(file("a = 1", "b = compute(2)", "c = 3"), { old_string: "b = compute(1)", new_string: "b = compute(2)" }, "no_change");
    expect(error.message).toContain("line 2");
  });

  it("keeps a byte order mark when the first line changes", () => {
    expect(apply("\uFEFFa = 1\nb = 2\n", { old_string: "a = 1", new_string: "a = 10" }).content).toBe("\uFEFFa = 10\nb = 2\n");
  });

  it("never starts an exact match inside a line's indentation when new_string brings its own", () => {
    const result = apply(file("def f():", "    log(1)", "    log(2)"), { old_string: "log(1)", new_string: "    log(10)" });
    expect(result.content).toBe(file("def f():", "    log(10)", "    log(2)"));
  });
});
