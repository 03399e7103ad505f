// A didChange of many content changes is applied in one pass per ordered run;
// whatever the changes (ordered either way, overlapping, out of range, reversed,
// with "\r" anywhere), the buffer ends exactly as the library's one-at-a-time
// update leaves it.
import fc from "fast-check";
import { TextDocument, type TextDocumentContentChangeEvent } from "vscode-languageserver-textdocument";
import { describe, expect, it } from "vitest";
import { firstFirstChanges, lastFirstChanges } from "../../bench/did-change.js";
import { updateDocument } from "../../server/src/lsp/document-update.js";

type Where = "after" | "before" | "anywhere" | "out-of-range" | "reversed" | "whole";
interface Step {
  where: Where;
  a: number;
  b: number;
  text: string;
}

/** The changes an editor could send, each placed relative to the buffer as it is by then (the library's result). */
function changesFor(base: string, steps: readonly Step[]): TextDocumentContentChangeEvent[] {
  const doc = TextDocument.create("file:///x", "plaintext", 1, base);
  const changes: TextDocumentContentChangeEvent[] = [];
  let lastStart = 0;
  let lastEnd = 0;
  for (const step of steps) {
    const n = doc.getText().length;
    const pick = (lo: number, hi: number, r: number): number => (hi <= lo ? lo : lo + (r % (hi - lo + 1)));
    let s: number;
    if (step.where === "after") s = pick(lastEnd, n, step.a);
    else if (step.where === "before") s = pick(0, lastStart, step.a);
    else s = pick(0, n, step.a);
    const e = step.where === "before" ? pick(s, lastStart, step.b) : pick(s, n, step.b);
    let range = { start: doc.positionAt(s), end: doc.positionAt(e) };
    if (step.where === "out-of-range")
      range = {
        start: range.start,
        end: { line: range.end.line + (step.b % 3), character: range.end.character + 1 + (step.b % 5) },
      };
    if (step.where === "reversed") range = { start: range.end, end: range.start };
    const change: TextDocumentContentChangeEvent =
      step.where === "whole" ? { text: step.text } : { range, text: step.text };
    changes.push(change);
    TextDocument.update(doc, [change], 2);
    lastStart = s;
    lastEnd = s + step.text.length;
  }
  return changes;
}

const libraryResult = (base: string, changes: TextDocumentContentChangeEvent[]): string =>
  TextDocument.update(TextDocument.create("file:///x", "plaintext", 1, base), changes, 2).getText();

describe("updateDocument", () => {
  const line = fc.constantFrom("", "a", "bc", "déf", "😀g", "  h");
  const breakChars = fc.constantFrom("\n", "\n", "\n", "\r\n", "\r");
  const base = fc
    .array(fc.tuple(line, breakChars), { maxLength: 12 })
    .map((ls) => ls.map(([l, b]) => l + b).join(""));
  const piece = fc.constantFrom("", "x", "\n", "yz\n", "\nw", "\r\n", "\r", "😀");
  const step = fc.record({
    where: fc.constantFrom<Where>(
      "after",
      "after",
      "before",
      "before",
      "anywhere",
      "out-of-range",
      "reversed",
      "whole",
    ),
    a: fc.nat(),
    b: fc.nat(),
    text: fc.array(piece, { maxLength: 3 }).map((p) => p.join("")),
  });

  it("ends every buffer as the library's update does", () => {
    fc.assert(
      fc.property(base, fc.array(step, { maxLength: 12 }), fc.boolean(), (text, steps, noCr) => {
        const clean = noCr ? text.replace(/\r/g, "") : text;
        const used = noCr ? steps.map((s) => ({ ...s, text: s.text.replace(/\r/g, "") })) : steps;
        const changes = changesFor(clean, used);
        const doc = updateDocument(TextDocument.create("file:///x", "plaintext", 1, clean), changes, 2);
        expect(doc.getText()).toBe(libraryResult(clean, changes));
        expect(doc.version).toBe(2);
      }),
      { numRuns: 3000 },
    );
  });

  it("applies many changes sent last first, or first first, exactly", () => {
    const lines = Array.from({ length: 4_000 }, (_, i) => `const v${i} = ${i};`);
    const text = lines.join("\n") + "\n";
    const lastFirst = lastFirstChanges(lines, 1_300);
    const firstFirst = firstFirstChanges(1_300);
    for (const changes of [lastFirst, firstFirst]) {
      expect(
        updateDocument(TextDocument.create("file:///x", "typescript", 1, text), changes, 2).getText(),
      ).toBe(libraryResult(text, changes));
    }
  });
});
