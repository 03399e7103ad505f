// The fixtures the edit-block tests share: a model's answer holding several ««« EDIT blocks
// (prose, fences, a creation, a path outside a fence), its lines found by text, and a parser
// fed in pieces. Knows nothing of which test reads them.
import { EditBlockParser, type EditBlock } from "../../../server/src/edit/blocks/edit-blocks.js";

/** Lines of a fixture, each ended by `\n`. */
export const text = (...lines: string[]) => lines.map((l) => l + "\n").join("");

/** 1-based line of the first line equal to `wanted`. */
export function lineOf(source: string, wanted: string): number {
  const index = source.split("\n").indexOf(wanted);
  if (index < 0) throw new Error(`fixture has no line ${JSON.stringify(wanted)}`);
  return index + 1;
}

/** Feeds `source` in pieces cut at `cuts` and collects every block, in order. */
export function parseInPieces(source: string, cuts: number[]) {
  const parser = new EditBlockParser();
  const blocks: EditBlock[] = [];
  let from = 0;
  for (const cut of [...cuts].sort((a, b) => a - b)) {
    blocks.push(...parser.push(source.slice(from, cut)));
    from = cut;
  }
  blocks.push(...parser.push(source.slice(from)));
  const end = parser.finish();
  return { blocks: [...blocks, ...end.blocks], unterminated: end.unterminated };
}

export const RESPONSE = text(
  "Sure, here is the fix for `multiply`:",
  "",
  "src/math.py",
  "```python",
  "««« EDIT",
  "def multiply(a, b):",
  "    return a + b  # BUG",
  "═══════ REPL",
  "def multiply(a, b):",
  "    return a * b",
  "»»» EDIT END",
  "```",
  "",
  "And a new module — 🎉 with emoji:",
  "",
  "```",
  "src/hello.py",
  "««« EDIT",
  "═══════ REPL",
  "def hello():",
  '    print("Hello, 世界 🌍")',
  "»»» EDIT END",
  "```",
  "",
  "Finally drop an import from README.md",
  "README.md",
  "««« EDIT",
  "import os",
  "import deprecated_module",
  "import sys",
  "═══════ REPL",
  "import os",
  "import sys",
  "»»» EDIT END",
  "That's all.",
);
