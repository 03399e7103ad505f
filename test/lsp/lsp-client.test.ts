// The test client's own text engine: if it applied edits wrongly, every stdio
// test would judge the server by a broken editor.
import { describe, expect, it } from "vitest";
import type { TextEdit } from "vscode-languageserver-protocol";
import { applyTextEdits, offsetAt, positionAt, rangeOf } from "../support/lsp-client.js";

const at = (line: number, character: number) => ({ line, character });
const edit = (sl: number, sc: number, el: number, ec: number, newText: string): TextEdit => ({
  range: { start: at(sl, sc), end: at(el, ec) },
  newText,
});

describe("applyTextEdits", () => {
  it.each<[name: string, text: string, edits: TextEdit[], expected: string]>([
    ["replaces within a line", "abc\ndef\n", [edit(1, 1, 1, 2, "X")], "abc\ndXf\n"],
    ["replaces a whole line", "a\nb\nc\n", [edit(1, 0, 2, 0, "B\n")], "a\nB\nc\n"],
    [
      "applies several edits against the original text",
      "one two three\n",
      [edit(0, 8, 0, 13, "3"), edit(0, 0, 0, 3, "1")],
      "1 two 3\n",
    ],
    [
      "keeps the given order for inserts at one position",
      "x",
      [edit(0, 0, 0, 0, "a"), edit(0, 0, 0, 0, "b")],
      "abx",
    ],
    [
      "clamps a character past the line end to the line end (before \\r\\n)",
      "ab\r\ncd\r\n",
      [edit(0, 99, 0, 99, "!")],
      "ab!\r\ncd\r\n",
    ],
    ["treats a lone \\r as a line end", "ab\rcd\ref", [edit(1, 0, 1, 2, "CD")], "ab\rCD\ref"],
    ["clamps a line past the end to the end", "ab\n", [edit(5, 0, 6, 0, "tail\n")], "ab\ntail\n"],
    ["counts UTF-16 code units (a surrogate pair is two)", "😀x\n", [edit(0, 2, 0, 3, "y")], "😀y\n"],
    ["deletes across lines with CRLF", "a\r\nb\r\nc\r\n", [edit(0, 1, 2, 0, "\r\n")], "a\r\nc\r\n"],
  ])("%s", (_name, text, edits, expected) => {
    expect(applyTextEdits(text, edits)).toBe(expected);
  });

  it("refuses overlapping edits, as the protocol forbids them", () => {
    expect(() => applyTextEdits("abcdef", [edit(0, 0, 0, 3, "x"), edit(0, 2, 0, 4, "y")])).toThrow(
      /overlapping/,
    );
  });
});

describe("positions", () => {
  it("round-trips every offset of a text with mixed line endings and astral characters", () => {
    const text = "a😀\r\nb\rc\n\n😀";
    for (let offset = 0; offset <= text.length; offset++) {
      if (text.slice(offset - 1, offset + 1) === "\r\n") continue; // inside a line break: no position names it
      expect(offsetAt(text, positionAt(text, offset))).toBe(offset);
    }
    expect(positionAt(text, text.length)).toEqual(at(4, 2));
  });

  it("finds ranges by text", () => {
    expect(rangeOf("x = 1\nx = 2\n", "x", 1)).toEqual({ start: at(1, 0), end: at(1, 1) });
    expect(() => rangeOf("abc", "z")).toThrow(/does not occur/);
  });
});
