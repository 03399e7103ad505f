import { TextDocument } from "vscode-languageserver-textdocument";
import { describe, expect, it } from "vitest";
import { computeTextEdits } from "../../server/src/edit/text-edits.js";
import { toLspEdits } from "../../server/src/lsp/positions.js";

// Whatever the line endings, the edits must apply in an editor to give exactly the new text.
describe("toLspEdits", () => {
  it.each([
    ["LF", "a\nb\nc\n", "a\nB\nc\nd\n"],
    ["CRLF", "a\r\nb\r\nc\r\n", "a\r\nB\r\nc\r\n"],
    ["a lone CR", "a\rb\nc\n", "a\rB\nc\n"],
    ["no final newline", "a\nb", "a\nb\nc"],
    ["surrogate pairs", "😀 a\n😀 b\n", "😀 a\n😀 B\n"],
    ["from empty", "", "new\n"],
    ["to empty", "old\nlines\n", ""],
  ])("%s", (_name, before, after) => {
    const edits = toLspEdits(before, computeTextEdits(before, after));
    expect(TextDocument.applyEdits(TextDocument.create("x", "plaintext", 0, before), edits)).toBe(after);
  });
});
