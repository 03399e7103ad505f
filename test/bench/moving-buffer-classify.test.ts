// The moving-buffer benchmark's judge: hand-made writes, each with the outcome it
// must get, and the touching-lines merge the reference falls back to.
import { describe, expect, it } from "vitest";
import {
  classify,
  lostUserLines,
  type Attempt,
  type Judged,
  type Outcome,
} from "../../bench/moving-buffer/classify.js";
import { parseHeadline } from "../../bench/moving-buffer/headline.js";
import { mergeTouching } from "../../bench/moving-buffer/merge.js";

const lines = (...items: string[]): string => items.map((l) => l + "\n").join("");

// The agent read BASE and meant AGENT (b() returns 2); the user inserted a comment far from it.
const BASE = lines("function a() {", "  return 1;", "}", "", "function b() {", "  return 1;", "}");
const USER = lines(
  "// user's note",
  "function a() {",
  "  return 1;",
  "}",
  "",
  "function b() {",
  "  return 1;",
  "}",
);
const EXPECTED = lines(
  "// user's note",
  "function a() {",
  "  return 1;",
  "}",
  "",
  "function b() {",
  "  return 2;",
  "}",
);
const AGENT = lines("function a() {", "  return 1;", "}", "", "function b() {", "  return 2;", "}");
const judged: Judged = { base: BASE, agent: AGENT, user: USER, expected: EXPECTED };
const applied = (content: string): Attempt => ({ kind: "applied", content });

const CASES: { name: string; judged: Judged; attempt: Attempt; outcome: Outcome }[] = [
  { name: "the merge, exactly", judged, attempt: applied(EXPECTED), outcome: "correct" },
  { name: "a refusal", judged, attempt: { kind: "refused", why: "state_mismatch" }, outcome: "refused" },
  {
    name: "the agent's change on the agent's old text: the user's note gone",
    judged,
    attempt: applied(AGENT),
    outcome: "lost_user_edit",
  },
  {
    name: "the agent's exact change made in the copy the user pasted above",
    judged: {
      base: lines("x();", "f(1);"),
      agent: lines("x();", "f(2);"),
      user: lines("f(1);", "x();", "f(1);"),
      expected: lines("f(1);", "x();", "f(2);"),
    },
    attempt: applied(lines("f(2);", "x();", "f(1);")),
    outcome: "wrong_write",
  },
  {
    name: "the change landed in the neighbouring function",
    judged,
    attempt: applied(
      lines("// user's note", "function a() {", "  return 2;", "}", "", "function b() {", "  return 1;", "}"),
    ),
    outcome: "wrong_write",
  },
  { name: "success reported, nothing changed", judged, attempt: applied(USER), outcome: "silent_noop" },
  {
    name: "one of two hunks written",
    judged: {
      ...judged,
      partials: [
        lines(
          "// user's note",
          "function a() {",
          "  return 3;",
          "}",
          "",
          "function b() {",
          "  return 1;",
          "}",
        ),
      ],
    },
    attempt: applied(
      lines("// user's note", "function a() {", "  return 3;", "}", "", "function b() {", "  return 1;", "}"),
    ),
    outcome: "partial_write",
  },
  {
    name: "a write where the merge conflicts is never correct",
    judged: { ...judged, expected: null },
    attempt: applied(EXPECTED),
    outcome: "wrong_write",
  },
  {
    name: "trailing spaces the user typed, dropped by the write",
    judged: {
      base: lines("x = 1;", "y = 2;"),
      agent: lines("x = 1;", "y = 3;"),
      user: lines("x = 1;  ", "y = 2;"),
      expected: lines("x = 1;  ", "y = 3;"),
    },
    attempt: applied(lines("x = 1;", "y = 3;")),
    outcome: "lost_user_edit",
  },
];

describe("the moving-buffer outcome classifier", () => {
  it.each(CASES)("$name → $outcome", ({ judged: j, attempt, outcome }) => {
    expect(classify(j, attempt)).toBe(outcome);
  });

  it("counts a user's line as lost only when the write removed it", () => {
    expect(lostUserLines(BASE, USER, EXPECTED)).toBe(false);
    expect(lostUserLines(BASE, USER, BASE)).toBe(true);
    // A base line the agent removes is not the user's.
    expect(lostUserLines(BASE, USER, USER.replace("}\n\n", "}\n"))).toBe(false);
  });
});

describe("the reference merge for changes on touching lines", () => {
  const base = lines("a", "b", "c", "d");
  it("keeps both when the user changed the line above the agent's", () => {
    expect(mergeTouching(base, lines("a", "b", "C", "d"), lines("a", "B", "c", "d"))).toBe(
      lines("a", "B", "C", "d"),
    );
  });
  it("has no answer when both changed the same line, or the user inserted right at the agent's change", () => {
    expect(mergeTouching(base, lines("a", "b", "C", "d"), lines("a", "b", "X", "d"))).toBeNull();
    expect(mergeTouching(base, lines("a", "b", "C", "d"), lines("a", "b", "new", "c", "d"))).toBeNull();
  });
});

describe("headline fixtures", () => {
  it("read as base, agent and user texts, each ending in one newline", () => {
    const c = parseHeadline(
      "x",
      ["# a case", "=== base", "a", "b", "", "=== agent", "a", "B", "=== user", "z", "a", "b", ""].join("\n"),
    );
    expect(c.edit.base).toBe(lines("a", "b"));
    expect(c.edit.after).toBe(lines("a", "B"));
    expect(c.atCall).toBe(lines("z", "a", "b"));
    expect(c.edit.oldString).toBe(lines("a", "b"));
    expect(c.edit.newString).toBe(lines("a", "B"));
  });
});
