// The one place offsets become LSP positions. Offsets are counted in UTF-16
// code units, as LSP's default position encoding is.
import { TextDocument } from "vscode-languageserver-textdocument";
import type { TextEdit as LspTextEdit } from "vscode-languageserver";
import type { TextEdit } from "../edit/text-edits.js";

/** Converts offset edits into LSP text edits against `text` (the text the edits were computed on). */
export function toLspEdits(text: string, edits: readonly TextEdit[]): LspTextEdit[] {
  const doc = TextDocument.create("lockstep:base", "plaintext", 0, text);
  return edits.map((e) => ({ range: { start: doc.positionAt(e.start), end: doc.positionAt(e.end) }, newText: e.newText }));
}
