// Globs come from outside (find_files, read_many_files, @-mentions, the
// companion's and `lockstep mcp`'s tools, `lockstep find`, search_files'
// include), so matching one must never take time exponential in its stars: the
// matcher runs in time linear in pattern × name, and answers exactly as the
// regular expression the walker compiled before did (kept below as the oracle).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  checkPattern,
  compileGlob,
  includeFilter,
  MAX_GLOB_LENGTH,
} from "../../server/src/workspace/walk/glob.js";
import { globMatcher } from "../../server/src/workspace/walk/glob-matcher.js";

/** The walker's former compilation of a glob to a regular expression: right, but exponential on `*****x`. */
function oracleSource(glob: string): string {
  let out = "";
  let braces = 0;
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === "*") {
      if (glob[i + 1] === "*") {
        const atStart = i === 0 || glob[i - 1] === "/";
        i++;
        if (atStart && glob[i + 1] === "/") {
          out += "(?:[^/]*/)*";
          i++;
        } else out += ".*";
      } else out += "[^/]*";
    } else if (c === "?") out += "[^/]";
    else if (c === "[") {
      const close = glob.indexOf("]", i + 2);
      if (close === -1) out += "\\[";
      else {
        let body = glob.slice(i + 1, close);
        const negate = body.startsWith("!") || body.startsWith("^");
        if (negate) body = body.slice(1);
        const cls = `[${negate ? "^" : ""}${body.replace(/[\\\]^]/g, "\\$&")}]`;
        let valid = true;
        try {
          new RegExp(cls);
        } catch {
          valid = false;
        }
        if (valid) {
          out += `(?!/)${cls}`;
          i = close;
        } else out += "\\[";
      }
    } else if (c === "{" && glob.indexOf("}", i) !== -1) {
      braces++;
      out += "(?:";
    } else if (c === "}" && braces > 0) {
      braces--;
      out += ")";
    } else if (c === "," && braces > 0) out += "|";
    else out += c.replace(/[.+^$()|\\{}\]]/g, "\\$&");
  }
  return out + ")".repeat(braces);
}

/** 300 names as long as real ones, none ending in x. */
const NAMES = Array.from({ length: 300 }, (_, i) =>
  i % 2 ? `src/components/widget-panel-${i}.component.ts` : `widget-panel-settings-dialog-${i}.test.ts`,
);

function timed(run: () => void): number {
  const start = performance.now();
  run();
  return performance.now() - start;
}

describe("glob matching is linear in pattern × name", () => {
  it("property: the matcher answers as the former regular expression did, on any pattern and name", () => {
    const unit = fc.constantFrom(
      "*",
      "**",
      "?",
      "[",
      "]",
      "{",
      "}",
      ",",
      "!",
      "^",
      "-",
      "a",
      "b",
      "/",
      ".",
      "\\",
      "(",
      "|",
      "$",
    );
    const nameUnit = fc.constantFrom(
      "a",
      "b",
      "/",
      ".",
      "-",
      "[",
      "]",
      "{",
      "}",
      ",",
      "\\",
      "(",
      "|",
      "$",
      "^",
      "!",
    );
    fc.assert(
      fc.property(
        fc.array(unit, { maxLength: 9 }).map((u) => u.join("")),
        fc.array(
          fc.array(nameUnit, { maxLength: 8 }).map((u) => u.join("")),
          { minLength: 1, maxLength: 5 },
        ),
        (pattern, names) => {
          // One matcher for several names: what it caches for one must not change its answer for the next.
          const matcher = globMatcher(pattern);
          const filter = includeFilter(pattern);
          const oracle = new RegExp(`^${oracleSource(pattern)}$`);
          const include = new RegExp(
            `^${oracleSource(pattern.replace(/\\/g, "/").replace(/^(\.\/)+/, ""))}$`,
          );
          const byName = !pattern.includes("/");
          for (const name of names) {
            expect({ pattern, name, match: matcher(name) }).toEqual({
              pattern,
              name,
              match: oracle.test(name),
            });
            const expected = include.test(byName ? name.slice(name.lastIndexOf("/") + 1) : name);
            expect({ pattern, name, include: filter(name) }).toEqual({ pattern, name, include: expected });
          }
        },
      ),
      { numRuns: 5000 },
    );
  });

  it("a pattern whose sets of live states outnumber the cache still answers right for every name", () => {
    // The 13th character from the end is an a: 4,096 sets of live states, twice what one matcher keeps.
    const pattern = `*a${"?".repeat(12)}`;
    const matcher = globMatcher(pattern);
    const oracle = new RegExp(`^${oracleSource(pattern)}$`);
    let seed = 7;
    for (let n = 0; n < 3000; n++) {
      let name = "";
      for (let i = 0; i < 24; i++) name += (seed = (seed * 1103515245 + 12345) % 2147483648) % 2 ? "a" : "b";
      expect({ name, match: matcher(name) }).toEqual({ name, match: oracle.test(name) });
    }
  });

  it.each<[what: string, pattern: string, matches: number]>([
    ["18 stars and an x", `${"*".repeat(18)}x`, 0],
    ["?* eighteen times", "?*".repeat(18), 150],
    ["?* eighteen times and an x", `${"?*".repeat(18)}x`, 0],
    ["5,000 stars and an x", `${"*".repeat(5000)}x`, 0],
    ["stars across directories", `${"**/".repeat(12)}${"*a".repeat(12)}x`, 0],
    ["stars in nested braces", `{${"*{a,*".repeat(10)}x${"}".repeat(10)},*x}`, 0],
  ])("%s: 300 names of realistic length in well under a second", (_what, pattern, matches) => {
    const { match } = compileGlob(pattern);
    const include = includeFilter(pattern);
    // The former matcher took 8 s per name on 18 stars; linear work is well under a millisecond per name.
    let found = 0;
    const took = timed(() => {
      for (const name of NAMES) {
        if (match(name)) found++;
        include(name);
      }
    });
    expect(found).toBe(matches);
    expect(took).toBeLessThan(2000);
  });

  it("a run of stars still matches what one star matches", () => {
    expect(NAMES.filter(compileGlob(`${"*".repeat(5000)}.ts`).match).length).toBe(300); // ** spans directories
    expect(NAMES.filter(compileGlob("*.ts").match).length).toBe(150); // * does not: only the names without a directory
    expect(compileGlob(`src/components/${"*".repeat(5000)}.ts`).match("widget-panel-1.component.ts")).toBe(
      true,
    );
    expect(compileGlob(`${"?*".repeat(18)}`).match("abcdefghijklmnopqrstuvwxyz")).toBe(true);
    expect(compileGlob(`${"?*".repeat(18)}`).match("abcdefghijklmnopq")).toBe(false);
  });

  it("refuses a pattern longer than the bound (runs of stars counted as one), naming the bound", () => {
    const long = "a?".repeat(MAX_GLOB_LENGTH);
    const refused = checkPattern(long);
    expect(refused.ok).toBe(false);
    expect(!refused.ok && refused.error).toMatchObject({ code: "invalid_argument" });
    expect(!refused.ok && refused.error.message).toContain(`longer than ${MAX_GLOB_LENGTH}`);
    expect(checkPattern(`${"*".repeat(5000)}x`).ok).toBe(true);
  });
});
