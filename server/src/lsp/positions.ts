// The one place offsets become LSP positions. Offsets are counted in UTF-16
// code units, as LSP's default position encoding is.
import { TextDocument } from "vscode-languageserver-textdocument";
import type { Position, TextEdit as LspTextEdit } from "vscode-languageserver";
import type { TextEdit } from "../edit/text-edits.js";

/** Positions of ascending offsets, counting `\n` with the native search (no per-character loop). */
function positionsByNewline(text: string, offsets: readonly number[]): Position[] {
  const out: Position[] = [];
  let line = 0;
  let lineStart = 0;
  for (const offset of offsets) {
    for (
      let nl = text.indexOf("\n", lineStart);
      nl !== -1 && nl < offset;
      nl = text.indexOf("\n", lineStart)
    ) {
      line++;
      lineStart = nl + 1;
    }
    out.push({ line, character: offset - lineStart });
  }
  return out;
}

/** Converts offset edits into LSP text edits against `text` (the text the edits were computed on). */
export function toLspEdits(text: string, edits: readonly TextEdit[]): LspTextEdit[] {
  // LSP also breaks lines at a lone \r; such rare texts take the library's full line table.
  if (text.includes("\r") && /\r(?!\n)/.test(text)) {
    const doc = TextDocument.create("lockstep:base", "plaintext", 0, text);
    return edits.map((e) => ({
      range: { start: doc.positionAt(e.start), end: doc.positionAt(e.end) },
      newText: e.newText,
    }));
  }
  const sorted = [...edits].sort((a, b) => a.start - b.start);
  const positions = positionsByNewline(
    text,
    sorted.flatMap((e) => [e.start, e.end]),
  );
  return sorted.map((e, i) => ({
    range: { start: positions[2 * i]!, end: positions[2 * i + 1]! },
    newText: e.newText,
  }));
}
