// A pattern's required text is read conservatively: every line a pattern
// matches holds one of its literals, and what the reading does not understand
// gives no prefilter rather than a wrong one.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { requiredLiterals } from "../../server/src/workspace/walk/required-literal.js";

describe("requiredLiterals", () => {
  it.each([
    ["createConnection", ["createConnection"]],
    ["function\\s+parseConfig", ["parseConfig"]],
    ["computeTotal\\w*\\(", ["computeTotal"]],
    ["TODO|FIXME", ["TODO", "FIXME"]],
    ["(ab)?cd", ["cd"]],
    ["colou?r", ["colo"]],
    ["a+bc", ["bc"]],
    ["x{2}yz", ["yz"]],
    ["\\.then\\(", [".then("]],
    ["[abc]+def", ["def"]],
    ["[]]xyz", undefined],
    ["foo|.*", undefined],
    ["\\x41bc", undefined],
    ["\\u0041bc", undefined],
    ["a{", undefined],
    [".*", undefined],
    ["", undefined],
  ] as const)("%s requires %j", (pattern, expected) => {
    expect(requiredLiterals(pattern, false)).toEqual(expected);
  });

  it("under case folding, only ASCII runs count", () => {
    expect(requiredLiterals("élan vital", true)).toEqual(["lan vital"]);
  });

  it("property: a line the pattern matches holds one of the literals (case folded under i)", () => {
    const token = fc.constantFrom(
      "a",
      "b",
      "c",
      "ab",
      "\\.",
      ".",
      "\\w",
      "\\d",
      "[ab]",
      "[^a]",
      "(a|b)",
      "(?:bc)",
      "^",
      "$",
      "\\b",
      "|",
      "*",
      "+",
      "?",
      "{2}",
      "{0,1}",
      "(?=a)",
      "(?!b)",
      "A",
      "é",
    );
    const line = fc
      .array(fc.constantFrom("a", "b", "c", "A", "B", ".", "1", " ", "é", "É"), { maxLength: 12 })
      .map((xs) => xs.join(""));
    fc.assert(
      fc.property(
        fc.array(token, { minLength: 1, maxLength: 8 }),
        fc.array(line, { maxLength: 20 }),
        fc.boolean(),
        (tokens, lines, ignoreCase) => {
          const pattern = tokens.join("");
          let regex: RegExp;
          try {
            regex = new RegExp(pattern, ignoreCase ? "imu" : "m");
          } catch {
            return;
          }
          const literals = requiredLiterals(pattern, ignoreCase);
          if (literals === undefined) return;
          const fold = (s: string): string => (ignoreCase ? s.toLowerCase() : s);
          for (const l of lines)
            if (regex.test(l)) expect(literals.some((lit) => fold(l).includes(fold(lit)))).toBe(true);
        },
      ),
      { seed: 36, numRuns: 3000 },
    );
  });
});
