// A didChange of many ranges applied in one pass gives exactly what applying its
// changes one by one gives, for the lists an editor sends for one edit (last
// position first) and for any other list (applied one by one).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { TextDocumentContentChangeEvent } from "vscode-languageserver";
import { TextDocument } from "vscode-languageserver-textdocument";
import { updateDocument } from "../../server/src/lsp/document-update.js";

const sequential = (text: string, changes: TextDocumentContentChangeEvent[]): TextDocument => TextDocument.update(TextDocument.create("file:///a", "ts", 1, text), changes, 2);

function check(text: string, changes: TextDocumentContentChangeEvent[]): void {
  const doc = TextDocument.create("file:///a", "ts", 1, text);
  const updated = updateDocument(doc, changes, 2);
  const expected = sequential(text, changes);
  // The same document, changed in place.
  expect(updated).toBe(doc);
  expect({ text: updated.getText(), version: updated.version, lines: updated.lineCount }).toEqual({ text: expected.getText(), version: 2, lines: expected.lineCount });
}

const range = (sl: number, sc: number, el: number, ec: number): TextDocumentContentChangeEvent => ({ range: { start: { line: sl, character: sc }, end: { line: el, character: ec } }, text: "" });
const at = (change: TextDocumentContentChangeEvent, text: string): TextDocumentContentChangeEvent => ({ ...change, text });

describe("updateDocument", () => {
  it("applies an editor's many ranges, last first, as one by one would", () => {
    const lines = Array.from({ length: 400 }, (_, i) => `const v${i} = ${i};`);
    const changes = Array.from({ length: 130 }, (_, j) => {
      const line = 1 + (129 - j) * 3;
      return at(range(line, 0, line, lines[line]!.length), `const v${line} = ${line} + 1;`);
    });
    check(lines.join("\n") + "\n", changes);
  });

  it.each([
    ["two insertions at one place", "a\nb\n", [at(range(1, 0, 1, 0), "Y\n"), at(range(1, 0, 1, 0), "X\n")]],
    ["a range past the end of its line", "ab\ncd\n", [at(range(1, 0, 1, 1), "C"), at(range(0, 1, 0, 9), "!")]],
    ["a range past the last line", "ab\ncd", [at(range(5, 0, 5, 0), "tail"), at(range(0, 0, 0, 1), "A")]],
    ["a range inside a CRLF line end", "ab\r\ncd\r\n", [at(range(1, 0, 1, 2), "CD"), at(range(0, 2, 0, 3), "?")]],
    ["a range whose end comes first", "abc\ndef\n", [at(range(1, 2, 1, 0), "x"), at(range(0, 0, 0, 1), "y")]],
    ["ranges in ascending order", "abc\ndef\n", [at(range(0, 0, 0, 1), "A"), at(range(1, 0, 1, 1), "D")]],
    ["a whole text among ranges", "abc\n", [at(range(0, 2, 0, 3), "C"), { text: "new\n" }, at(range(0, 0, 0, 1), "N")]],
  ])("%s", (_what, text, changes) => check(text, changes));

  it("property: one pass or one by one, the text is what the changes applied in turn give", () => {
    const line = fc.constantFrom("", "a", "bc", "def", "\t  x", "😀z");
    const text = fc.tuple(fc.array(line, { maxLength: 12 }), fc.constantFrom("\n", "\r\n")).map(([ls, eol]) => ls.join(eol) + (ls.length > 0 ? eol : ""));
    const inserted = fc.constantFrom("", "Q", "q\n", "\r\nr", "ss\nt");
    // As editors send one edit's ranges: places in the text, sorted, paired from the end (last position first).
    const editorList = text.chain((t) =>
      fc.tuple(fc.constant(t), fc.array(fc.tuple(fc.nat(t.length), fc.nat(t.length), inserted), { maxLength: 8 })).map(([t2, cs]) => {
        const doc = TextDocument.create("file:///a", "ts", 1, t2);
        const places = cs.flatMap(([a, b]) => [a, b]).sort((a, b) => b - a);
        return { text: t2, changes: cs.map(([, , t3], i) => ({ range: { start: doc.positionAt(places[2 * i + 1]!), end: doc.positionAt(places[2 * i]!) }, text: t3 })) };
      }),
    );
    // Any list at all, positions out of range and ranges reversed included.
    const position = fc.record({ line: fc.nat(13), character: fc.nat(6) });
    const anyList = fc.tuple(text, fc.array(fc.record({ range: fc.record({ start: position, end: position }), text: inserted }), { maxLength: 8 })).map(([t, changes]) => ({ text: t, changes }));
    fc.assert(
      fc.property(fc.oneof(editorList, anyList), ({ text: t, changes }) => check(t, changes)),
      { numRuns: 3000 },
    );
  });
});
