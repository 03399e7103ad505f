// What a replacement never gets wrong: line endings and the final newline, every byte outside the match (a property), a 50k-line file, indentation and shape.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  replaceInText,
  type ReplaceRequest,
  type ReplaceStrategy,
} from "../../../server/src/edit/replace/replace.js";
import { apply, block, failure, file } from "./replace-cases.js";

describe("line endings and the final newline", () => {
  it.each([
    {
      name: "CRLF file, LF strings",
      before: "a\r\nb\r\nc\r\n",
      old: "b\nc",
      new: "B\nC\nD",
      after: "a\r\nB\r\nC\r\nD\r\n",
    },
    { name: "LF file, CRLF strings", before: "a\nb\nc\n", old: "a\r\nb", new: "A\r\nB", after: "A\nB\nc\n" },
    {
      name: "mixed file: untouched lines keep their own endings, new lines take the dominant one",
      before: "one\r\ntwo\nthree\r\nfour\r\n",
      old: "three\n",
      new: "3\n3b\n",
      after: "one\r\ntwo\n3\r\n3b\r\nfour\r\n",
    },
    {
      name: "a lone CR is text, not a line ending",
      before: "a\rb\nc\n",
      old: "b\nc",
      new: "B\nC",
      after: "a\rB\nC\n",
    },
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
            rows
              .slice(0, from)
              .map(([text, eol]) => text + eol)
              .join("") +
            replacement.map((l) => l + dominant).join("") +
            rows
              .slice(to)
              .map(([text, eol]) => text + eol)
              .join("");

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
  const big =
    Array.from({ length: 50_000 }, (_, i) => `    const value${i} = compute(${i}, "label ${i}");`).join(
      "\n",
    ) + "\n";

  it.each([
    {
      tier: "exact",
      request: { old_string: 'const value31337 = compute(31337, "label 31337");', new_string: "x" },
    },
    {
      tier: "flexible",
      request: {
        old_string: block(
          'const value31337 =  compute(31337, "label 31337");  ',
          'const value31338 = compute(31338, "label 31338");',
        ),
        new_string: "x",
      },
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
    const result = apply("def f(x):\n    return x + 1\n", {
      old_string: "def f(x):\nreturn x + 1",
      new_string: "def f(x):\nreturn x + 100",
    });
    expect(result.content).toBe("def f(x):\n    return x + 100\n");
  });

  it("stripped indentation with a line nothing places is refused, never written at column 0", () => {
    const error = failure(
      "def f(x):\n    return x + 1\n",
      { old_string: "def f(x):\nreturn x + 1", new_string: "def f(x):\ny = x + 1\nreturn y" },
      "invalid_argument",
    );
    expect(error.message).toContain("indentation");
    expect(error.message).toMatch(/"return y"/);
  });

  it.each([
    {
      name: "new_string inside another line",
      before: file("alpha", "beta", "gamma"),
      old: "betta",
      new: "b",
      nearest: "line 2",
    },
    {
      name: "new_string on whole lines far from where old_string would be",
      before: file("alpha = 1", "beta = 2", "gamma = 3", "", "result = 0"),
      old: "gamma = 4",
      new: "result = 0",
      nearest: "line 3",
    },
  ])(
    "no proof, no no_change: $name is not_found naming the nearest line",
    ({ before, old, new: replacement, nearest }) => {
      const error = failure(before, { old_string: old, new_string: replacement }, "not_found");
      expect(error.message).toContain(`closest line is ${nearest}`);
    },
  );

  it("proven: new_string once, on whole lines, where old_string's closest line is", () => {
    const error = failure(
      file("a = 1", "b = compute(2)", "c = 3"),
      { old_string: "b = compute(1)", new_string: "b = compute(2)" },
      "no_change",
    );
    expect(error.message).toContain("line 2");
  });

  it("keeps a byte order mark when the first line changes", () => {
    expect(apply("\uFEFFa = 1\nb = 2\n", { old_string: "a = 1", new_string: "a = 10" }).content).toBe(
      "\uFEFFa = 10\nb = 2\n",
    );
  });

  it("never starts an exact match inside a line's indentation when new_string brings its own", () => {
    const result = apply(file("def f():", "    log(1)", "    log(2)"), {
      old_string: "log(1)",
      new_string: "    log(10)",
    });
    expect(result.content).toBe(file("def f():", "    log(10)", "    log(2)"));
  });
});
