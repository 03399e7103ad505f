// The line-level changes that turn one text into another, as ranges of the old
// text's lines and the lines that replace them. Lines keep their terminators
// (edit/shared/text.ts linesWithEol), so joining them gives the text back byte for byte.
//
// Lines that occur once in each text are anchors (the longest chain of them in
// the same order on both sides), and only the gaps between anchors are diffed
// further, each on its own: a change of thousands of scattered hunks in a file of
// unique lines costs about its length, where a diff of the whole (Myers, the
// `diff` package) costs lines × edits. Where a gap has no anchor, Myers decides.
import { diffArrays } from "diff";

/** Old lines [start, end) are replaced by `lines` (start === end: an insertion before line `start`). */
export interface LineChange {
  start: number;
  end: number;
  lines: string[];
}

/** Beyond this many changed lines a gap's diff stops refining and reports the gap as one change. */
const MAX_EDIT_LENGTH = 4000;

/** Gaps within gaps this deep are left to Myers (no stack grows with the input). */
const MAX_DEPTH = 32;

/** `maxEditLength` bounds Myers in a gap without anchors (the editor's edits give up sooner: one edit is still correct). */
export function lineChanges(
  before: readonly string[],
  after: readonly string[],
  maxEditLength = MAX_EDIT_LENGTH,
): LineChange[] {
  const changes: LineChange[] = [];
  diffRange(before, after, { a0: 0, a1: before.length, b0: 0, b1: after.length }, changes, 0, maxEditLength);
  return changes;
}

interface Range {
  a0: number;
  a1: number;
  b0: number;
  b1: number;
}

/** Appends the changes of a[a0, a1) → b[b0, b1) to `out`, in order. */
function diffRange(
  a: readonly string[],
  b: readonly string[],
  r: Range,
  out: LineChange[],
  depth: number,
  bound: number,
): void {
  let { a0, a1, b0, b1 } = r;
  for (; a0 < a1 && b0 < b1 && a[a0] === b[b0]; b0++) a0++;
  for (; a0 < a1 && b0 < b1 && a[a1 - 1] === b[b1 - 1]; b1--) a1--;
  if (a0 === a1 && b0 === b1) return;
  if (a0 === a1 || b0 === b1) return void out.push({ start: a0, end: a1, lines: b.slice(b0, b1) });
  const anchors = depth < MAX_DEPTH ? uniqueAnchors(a, b, { a0, a1, b0, b1 }) : [];
  if (anchors.length === 0) return myers(a, b, { a0, a1, b0, b1 }, out, bound);
  let pa = a0;
  let pb = b0;
  for (const [ia, ib] of anchors) {
    diffRange(a, b, { a0: pa, a1: ia, b0: pb, b1: ib }, out, depth + 1, bound);
    pa = ia + 1;
    pb = ib + 1;
  }
  diffRange(a, b, { a0: pa, a1, b0: pb, b1 }, out, depth + 1, bound);
}

/** Lines once in each side of the range, paired, as the longest chain in the same order on both sides. */
function uniqueAnchors(a: readonly string[], b: readonly string[], r: Range): [number, number][] {
  const seen = new Map<string, { inA: number; inB: number; at: number; bt: number }>();
  for (let i = r.a0; i < r.a1; i++) {
    const s = seen.get(a[i]!);
    if (s) s.inA++;
    else seen.set(a[i]!, { inA: 1, inB: 0, at: i, bt: -1 });
  }
  for (let j = r.b0; j < r.b1; j++) {
    const s = seen.get(b[j]!);
    if (!s) continue;
    s.inB++;
    s.bt = j;
  }
  const pairs: [number, number][] = [];
  for (const s of seen.values()) if (s.inA === 1 && s.inB === 1) pairs.push([s.at, s.bt]);
  pairs.sort((x, y) => x[0] - y[0]);
  return longestIncreasing(pairs);
}

/** The longest chain of pairs increasing in their second member (patience sorting, n log n). */
function longestIncreasing(pairs: readonly [number, number][]): [number, number][] {
  const tails: number[] = []; // index into pairs of the smallest tail of a chain of each length
  const previous: number[] = new Array<number>(pairs.length);
  for (let k = 0; k < pairs.length; k++) {
    let lo = 0;
    let hi = tails.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (pairs[tails[mid]!]![1] < pairs[k]![1]) lo = mid + 1;
      else hi = mid;
    }
    previous[k] = lo > 0 ? tails[lo - 1]! : -1;
    tails[lo] = k;
  }
  const chain: [number, number][] = [];
  for (let k = tails.length > 0 ? tails[tails.length - 1]! : -1; k !== -1; k = previous[k]!)
    chain.push(pairs[k]!);
  return chain.reverse();
}

/** A gap without anchors, diffed by Myers; too different to refine, it is one change (more conflicts, never fewer). */
function myers(a: readonly string[], b: readonly string[], r: Range, out: LineChange[], bound: number): void {
  const parts = diffArrays(a.slice(r.a0, r.a1), b.slice(r.b0, r.b1), { maxEditLength: bound });
  if (!parts) return void out.push({ start: r.a0, end: r.a1, lines: b.slice(r.b0, r.b1) });
  let at = r.a0;
  let open: LineChange | undefined;
  for (const part of parts) {
    if (part.added) {
      open ??= { start: at, end: at, lines: [] };
      open.lines.push(...part.value);
    } else if (part.removed) {
      open ??= { start: at, end: at, lines: [] };
      at += part.value.length;
      open.end = at;
    } else {
      if (open) out.push(open);
      open = undefined;
      at += part.value.length;
    }
  }
  if (open) out.push(open);
}
