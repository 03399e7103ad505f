// The text of a diff's added lines: as the model wrote them, or moved into the file's
// indentation frame when all of the evidence (shared/indentation.ts) says the model typed the
// diff in another; split or silent evidence where the readings differ is a refusal naming the
// line. Knows nothing of where hunks go (they come placed) or of how the diff is rebuilt.
import type { ParsedHunk } from "./diff-parse.js";
import { alike } from "../shared/line-index.js";
import type { Placement } from "./locate.js";
import { fail, succeed, type Outcome } from "../../shared/outcome.js";
import {
  describeIndent,
  detectIndentation,
  frameOf,
  lead,
  readAddedLines,
  showsIndentation,
  type AddedLine,
  type FramePair,
  type IndentConflict,
  type Indentation,
  type LineOp,
} from "../shared/indentation.js";
import type { LineTable } from "../shared/text.js";

/**
 * The text of every hunk's added lines: as written, or in the file's frame when
 * all of the evidence says the model typed the diff in another (see
 * shared/indentation.ts). A hunk whose old lines show no drift is read alone;
 * the drifting ones are weighed together, since a model's drift runs through
 * its whole diff.
 */
export function addedLineTexts(
  file: LineTable,
  hunks: readonly ParsedHunk[],
  placements: readonly Placement[],
): Outcome<string[][]> {
  let indentation: Indentation | undefined;
  const fileIndentation = (): Indentation => (indentation ??= detectIndentation(file.all()));
  const out = hunks.map((h) => h.lines.filter((l) => l.op === "+").map((l) => l.text));
  // Exact placements of indented lines show the file's frame: nothing to weigh.
  const unindented = (l: { op: string; text: string }): boolean => l.op === "+" || !showsIndentation(l.text);
  if (
    placements.every((p) => p.tier === "exact" || p.tier === "numbered") &&
    !hunks.every((h) => h.lines.every(unindented))
  )
    return succeed(out);

  const parts = hunks.map((hunk, h) => {
    const place = placements[h]!;
    const mismatched = new Set(place.mismatched);
    let oldIndex = 0;
    const ops: LineOp[] = [];
    for (const l of hunk.lines) {
      if (l.op === "+") {
        ops.push({ op: "+", text: l.text });
        continue;
      }
      const i = oldIndex++;
      // A context line that did not match says nothing about indentation: it stands as blank.
      ops.push({
        op: l.op,
        text: mismatched.has(i) ? "" : l.text,
        fileText: mismatched.has(i) ? "" : file.line(place.start + i),
      });
    }
    return frameOf(ops, "diff", alike);
  });
  const ask = (members: number[]): Outcome<void> => {
    const pairs: FramePair[] = [];
    const added: AddedLine[] = [];
    for (const h of members) {
      const base = pairs.length;
      const shift = (i: number | undefined): number | undefined => (i === undefined ? undefined : i + base);
      pairs.push(...parts[h]!.pairs);
      for (const a of parts[h]!.added)
        added.push({ ...a, anchor: shift(a.anchor), partner: shift(a.partner) });
    }
    const answer = readAddedLines({ pairs, added, fileIndentation });
    if (!answer.ok) return indentRefusal(answer.conflict, hunks, members);
    let k = 0;
    for (const h of members) out[h] = out[h]!.map(() => answer.lines[k++]!);
    return succeed(undefined);
  };
  // A hunk whose old lines are indented and show no drift was written in the file's frame: alone.
  // One whose old lines are all unindented says nothing: it is weighed with the drifting ones.
  const solid = (pair: FramePair): boolean => pair.model.trim() !== "";
  const drifts = parts.map((p) =>
    p.pairs.some((pair) => solid(pair) && lead(pair.model) !== lead(pair.file)),
  );
  const silent = parts.map((p) => p.pairs.every((pair) => !showsIndentation(pair.model)));
  const drifting = hunks.map((_, h) => h).filter((h) => drifts[h]);
  for (let h = 0; h < hunks.length; h++) {
    if (drifts[h] || (silent[h] && drifting.length > 0)) continue;
    const asked = ask([h]);
    if (!asked.ok) return asked;
  }
  if (drifting.length > 0) {
    const asked = ask(hunks.map((_, h) => h).filter((h) => drifts[h] || silent[h]));
    if (!asked.ok) return asked;
  }
  return succeed(out);
}

function indentRefusal(
  c: IndentConflict,
  hunks: readonly ParsedHunk[],
  members: readonly number[],
): Outcome<never> {
  let k = c.added;
  let h = members[0]!;
  for (const m of members) {
    const n = hunks[m]!.lines.filter((l) => l.op === "+").length;
    h = m;
    if (k < n) break;
    k -= n;
  }
  const line = JSON.stringify(c.literal.trim().slice(0, 80));
  const why =
    c.reindented === undefined
      ? `its context lines are indented differently from the file, and no single rule maps its indentation (${describeIndent(c.literal)}) into the file's`
      : `as written it has ${describeIndent(c.literal)}; re-indented the way the diff's context and removed lines differ from the file, it would have ${describeIndent(c.reindented)}, and nothing in the diff says which is meant`;
  return fail(
    "invalid_diff",
    `Invalid Diff: the indentation of added line ${line} in hunk ${h + 1} is ambiguous: ${why}. The file was not changed.`,
    [
      "Copy the context and removed lines from the file with their exact indentation, write the added lines in the same indentation as the file, and send the diff again.",
    ],
  );
}
