// A didChange applied to an open document. An editor applying one large edit
// (a patch of thousands of hunks) sends thousands of ranges in one didChange,
// last position first. Applied one by one, each copies the whole text and
// shifts every later line offset: 13,000 changes to a 40,000-line file took
// over 10 s, longer than the wait for the editor's answer to that very edit.
import type { TextDocumentContentChangeEvent } from "vscode-languageserver";
import { TextDocument, type Position } from "vscode-languageserver-textdocument";

const before = (a: Position, b: Position): boolean => a.line < b.line || (a.line === b.line && a.character <= b.character);

/** The position as the document reads it: an out-of-range one is moved, and means another place after an edit. */
const inRange = (doc: TextDocument, p: Position): boolean => {
  const back = doc.positionAt(doc.offsetAt(p));
  return back.line === p.line && back.character === p.character;
};

/**
 * `TextDocument.update`, in one pass when every change ends at or before the start of the change sent before
 * it (all its positions in range): then each range means the same place in the text before the didChange,
 * and the changes are cut from it in order. Any other didChange is applied change by change.
 */
export function updateDocument(doc: TextDocument, changes: TextDocumentContentChangeEvent[], version: number): TextDocument {
  const ranges = changes.map((c) => ("range" in c ? c.range : undefined));
  const oneByOne = (): TextDocument => TextDocument.update(doc, changes, version);
  if (changes.length < 2) return oneByOne();
  for (let i = 0; i < ranges.length; i++) {
    const r = ranges[i];
    if (r === undefined || !before(r.start, r.end) || !inRange(doc, r.start) || !inRange(doc, r.end)) return oneByOne();
    if (i > 0 && !before(r.end, ranges[i - 1]!.start)) return oneByOne();
  }
  const text = doc.getText();
  const pieces: string[] = [];
  let at = 0;
  for (let i = changes.length - 1; i >= 0; i--) {
    const r = ranges[i]!;
    const start = doc.offsetAt(r.start);
    pieces.push(text.slice(at, start), changes[i]!.text);
    at = doc.offsetAt(r.end);
  }
  pieces.push(text.slice(at));
  // The same document, changed in place as change by change would: whoever holds it sees the new text.
  return TextDocument.update(doc, [{ text: pieces.join("") }], version);
}
