// A didChange of many content changes, as an editor sends one after a large edit
// (Neovim and Eglot last first, Helix first first): lockstep's update against
// vscode-languageserver-textdocument's, on the same 40,000-line buffer.
// Run: `npm run build && node dist/bench/server.js didchange`.
import { TextDocument, type TextDocumentContentChangeEvent } from "vscode-languageserver-textdocument";
import { updateDocument } from "../server/src/lsp/document-update.js";
import { timingRow, type TimingRow } from "./report.js";

const LINES = Array.from({ length: 40_000 }, (_, i) => `const v${i} = ${i};`);
const TEXT = LINES.join("\n") + "\n";
const CHANGES = 13_000;
const RUNS = 3;

/** One insertion at the end of every third line of `lines`, last first (as Neovim and Eglot send an edit). */
export function lastFirstChanges(lines: readonly string[], count: number): TextDocumentContentChangeEvent[] {
  return Array.from({ length: count }, (_, k) => {
    const line = 1 + (count - 1 - k) * 3;
    const at = { line, character: lines[line]!.length };
    return { range: { start: at, end: at }, text: " + 1" };
  });
}

/** A line inserted above every third line, first first (as Helix sends): each change's line counts the lines inserted before it. */
export function firstFirstChanges(count: number): TextDocumentContentChangeEvent[] {
  return Array.from({ length: count }, (_, k) => {
    const at = { line: k * 3 + k, character: 0 };
    return { range: { start: at, end: at }, text: `// ${k}\n` };
  });
}

function time(
  update: (doc: TextDocument, changes: TextDocumentContentChangeEvent[]) => TextDocument,
  changes: TextDocumentContentChangeEvent[],
): { samples: number[]; text: string } {
  const samples: number[] = [];
  let text = "";
  for (let r = 0; r < RUNS; r++) {
    const doc = TextDocument.create("file:///bench.ts", "typescript", 1, TEXT);
    const started = performance.now();
    text = update(doc, changes).getText();
    samples.push(performance.now() - started);
  }
  return { samples, text };
}

export function didChangeRows(): TimingRow[] {
  const rows: TimingRow[] = [];
  for (const [order, changes] of [
    ["last first", lastFirstChanges(LINES, CHANGES)],
    ["first first", firstFirstChanges(CHANGES)],
  ] as const) {
    const ours = time((doc, c) => updateDocument(doc, c, 2), changes);
    const library = time((doc, c) => TextDocument.update(doc, c, 2), changes);
    const same = ours.text === library.text ? "same text" : "DIFFERENT TEXT";
    rows.push(timingRow(`didChange, ${CHANGES} changes ${order}: lockstep`, ours.samples, same));
    rows.push(
      timingRow(
        `didChange, ${CHANGES} changes ${order}: vscode-languageserver-textdocument`,
        library.samples,
        "the peer",
      ),
    );
  }
  return rows;
}
