// The one control-character class both the terminal (cli/terminal-text.ts) and the editor's save
// messages (lsp/editor-link.ts) strip: checked against a character-by-character reading of it.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { withoutControls, type ControlOptions } from "../../server/src/shared/control-characters.js";

/** C0, DEL, C1; newline and tab unless kept. Runs become one `replaceWith`. */
function byHand(text: string, { keepLineBreaks = false, replaceWith = "" }: ControlOptions): string {
  let out = "";
  let inRun = false;
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    const control = code <= 0x1f || (code >= 0x7f && code <= 0x9f);
    if (control && !(keepLineBreaks && (ch === "\n" || ch === "\t"))) {
      if (!inRun) out += replaceWith;
      inRun = true;
    } else {
      out += ch;
      inRun = false;
    }
  }
  return out;
}

const char = (from: number, to: number): fc.Arbitrary<string> =>
  fc.integer({ min: from, max: to }).map((c) => String.fromCodePoint(c));
/** Mostly the edges of the class: C0, DEL and C1 with their neighbours, bidi controls, astral text. */
const text = fc.string({
  unit: fc.oneof(
    char(0x00, 0x21),
    char(0x7e, 0xa1),
    fc.constantFrom("a", "é", "\u202e", "\u2066", "\u200b", "\u{1f600}", "\u2028"),
  ),
  maxLength: 40,
});
const options = fc.record(
  { keepLineBreaks: fc.boolean(), replaceWith: fc.constantFrom("", " ") },
  { requiredKeys: [] },
);

describe("withoutControls", () => {
  it("takes out exactly C0, DEL and C1 (newline and tab as asked), a run at a time", () => {
    fc.assert(
      fc.property(text, options, (t, o) => {
        expect(withoutControls(t, o)).toBe(byHand(t, o));
      }),
      { seed: 4021, numRuns: 2000 },
    );
  });

  it.each<[string, ControlOptions, string]>([
    ["a\nb\tc\rd", { keepLineBreaks: true }, "a\nb\tcd"],
    ["a\nb\tc\rd", {}, "abcd"],
    ["E45: readonly\u001b[2J\r\n\u0085x", { replaceWith: " " }, "E45: readonly [2J x"],
    ["\u001b]0;title\u0007", {}, "]0;title"],
    ["\u007f\u0080\u009f\u00a0", {}, "\u00a0"],
    // Not controls in this class (what neither caller took out before): bidi and line separators.
    ["a\u202eb\u2066c\u2028d", {}, "a\u202eb\u2066c\u2028d"],
  ])("%j with %j is %j", (input, o, expected) => {
    expect(withoutControls(input, o)).toBe(expected);
  });
});
