// Places each hunk of a diff in the current text by its context and removed
// lines. The header's line number is only a hint. Uniqueness is the invariant:
// a hunk lands where it fits and nowhere else, or it does not land at all.
import type { ParsedHunk } from "./diff-parse.js";
import { foldWhitespace, type LineIndex } from "../shared/line-index.js";

/**
 * How closely the hunk's old lines match the file where it was placed; `numbered`: a hunk with no
 * old lines at all (an insertion without context), placed at its header's line because the caller
 * showed the diff's numbers exact (see numbered.ts).
 */
export type MatchTier = "exact" | "whitespace" | "fuzzy" | "numbered";

export interface Placement {
  /** 0-based first file line the hunk's old side covers. */
  start: number;
  tier: MatchTier;
  /** Indices (into the hunk's old-side lines) of context lines that did not match. */
  mismatched: number[];
}

export type LocateError =
  | { kind: "not_found"; hunk: number; nearest?: NearMiss }
  | { kind: "ambiguous"; hunk: number; candidates: number[] }
  | { kind: "no_context"; hunk: number }
  | { kind: "order"; hunk: number; other: number };

/** The best partial fit of a hunk that did not match: where, and which lines differed. */
export interface NearMiss {
  start: number;
  matched: number;
  total: number;
  /** Old-side line index and the file line number (0-based) of each difference. */
  differences: { oldIndex: number; fileLine: number }[];
}

/** An old-side line; its whitespace-folded form is worked out only when a looser tier asks for it. */
class OldLine {
  #folded: string | undefined;

  constructor(
    readonly text: string,
    readonly removed: boolean,
  ) {}

  get folded(): string {
    return (this.#folded ??= foldWhitespace(this.text));
  }
}

const MAX_REPORTED_CANDIDATES = 10;

function oldSide(hunk: ParsedHunk): OldLine[] {
  const out: OldLine[] = [];
  for (const l of hunk.lines) if (l.op !== "+") out.push(new OldLine(l.text, l.op === "-"));
  return out;
}

/** Fuzzy matching allows this many differing context lines, given enough lines that agree. */
function fuzzAllowance(old: OldLine[]): number {
  const solid = old.filter((l) => l.text.trim() !== "").length;
  if (solid >= 8) return 2;
  if (solid >= 4) return 1;
  return 0;
}

class HunkMatcher {
  readonly old: OldLine[];
  readonly fuzz: number;

  constructor(
    private readonly index: LineIndex,
    hunk: ParsedHunk,
  ) {
    this.old = oldSide(hunk);
    this.fuzz = fuzzAllowance(this.old);
  }

  /** Start positions in [lo, hi] where the hunk fits at `tier`; stops early past `limit`. */
  candidates(tier: MatchTier, lo: number, hi: number, limit = Infinity): number[] {
    const m = this.old.length;
    const maxStart = Math.min(hi, this.index.count - m);
    if (m === 0 || maxStart < lo) return [];
    const found: number[] = [];
    const seen = new Set<number>();
    for (const [offset, positions] of this.generators(tier)) {
      for (const pos of positions) {
        const start = pos - offset;
        if (start < lo || start > maxStart || seen.has(start)) continue;
        seen.add(start);
        if (this.fits(start, tier) !== undefined) {
          found.push(start);
          if (found.length > limit) return found.sort((a, b) => a - b);
        }
      }
    }
    return found.sort((a, b) => a - b);
  }

  /** Context lines that differ at `start`, or undefined when the hunk does not fit there. */
  fits(start: number, tier: MatchTier): number[] | undefined {
    const mismatched: number[] = [];
    if (tier === "exact") {
      // Exact: compared line by line on the table, no line cut or folded beyond these.
      for (let i = 0; i < this.old.length; i++)
        if (this.index.line(start + i) !== this.old[i]!.text) return undefined;
      return mismatched;
    }
    // Folding every line costs more than an exact match: only the looser tiers pay for it.
    const folded = this.index.folded;
    let agreeing = 0;
    for (let i = 0; i < this.old.length; i++) {
      const want = this.old[i]!;
      if (folded[start + i] === want.folded) {
        if (want.folded !== "") agreeing++;
        continue;
      }
      if (tier === "whitespace" || want.removed) return undefined;
      mismatched.push(i);
      if (mismatched.length > this.fuzz) return undefined;
    }
    if (tier === "fuzzy" && (mismatched.length === 0 || agreeing < 3 * mismatched.length)) return undefined;
    return mismatched;
  }

  /**
   * Lines whose occurrences generate every possible start: at the exact and
   * whitespace tiers one rare line suffices; with up to k differing context
   * lines, one of any k+1 lines must agree (and every removed line must).
   */
  private generators(tier: MatchTier): [number, readonly number[]][] {
    const look = (i: number): readonly number[] =>
      tier === "exact" ? this.index.exact(this.old[i]!.text) : this.index.loose(this.old[i]!.folded);
    const ranked = this.old
      .map((l, i) => ({ i, removed: l.removed, n: look(i).length }))
      .sort((a, b) => a.n - b.n);
    if (tier !== "fuzzy") return [[ranked[0]!.i, look(ranked[0]!.i)]];
    const removed = ranked.find((r) => r.removed);
    if (removed) return [[removed.i, look(removed.i)]];
    return ranked.slice(0, this.fuzz + 1).map((r) => [r.i, look(r.i)]);
  }

  /** Where the hunk comes closest, for the error message. */
  nearMiss(): NearMiss | undefined {
    const votes = new Map<number, number>();
    for (let i = 0; i < this.old.length; i++) {
      const l = this.old[i]!;
      if (l.folded === "") continue;
      const positions = this.index.loose(l.folded);
      if (positions.length > 200) continue; // too common to say anything
      for (const p of positions) votes.set(p - i, (votes.get(p - i) ?? 0) + 1);
    }
    let best: [number, number] | undefined;
    for (const [start, n] of votes)
      if (!best || n > best[1] || (n === best[1] && start < best[0])) best = [start, n];
    if (!best) return undefined;
    const differences: NearMiss["differences"] = [];
    for (let i = 0; i < this.old.length; i++) {
      const fileLine = best[0] + i;
      if (this.index.folded[fileLine] !== this.old[i]!.folded) differences.push({ oldIndex: i, fileLine });
    }
    return {
      start: best[0],
      matched: this.old.length - differences.length,
      total: this.old.length,
      differences,
    };
  }
}

const TIERS: MatchTier[] = ["exact", "whitespace", "fuzzy"];

export interface LocateOptions {
  /** 0-based starts for hunks with no old lines, from their headers, where the numbers are shown exact. */
  insertAt?: ReadonlyMap<number, number>;
}

/**
 * Places every hunk or reports the first that cannot be placed. First, each
 * hunk that fits exactly one place in the whole file is fixed; then the others
 * are searched between their fixed neighbours (diff order is file order), and
 * as a last resort a header line number that names one candidate exactly picks it.
 */
export function locateHunks(
  index: LineIndex,
  hunks: readonly ParsedHunk[],
  options: LocateOptions = {},
): { ok: true; placements: Placement[] } | { ok: false; error: LocateError } {
  const matchers = hunks.map((h) => new HunkMatcher(index, h));
  const placed: (Placement | undefined)[] = hunks.map(() => undefined);
  const fileEnd = index.count;
  /** Insertions placed by their numbers once the others are placed by content (they steer no search). */
  const numbered = new Map<number, number>();

  for (let h = 0; h < hunks.length; h++) {
    if (matchers[h]!.old.length === 0) {
      if (fileEnd === 0) placed[h] = { start: 0, tier: "exact", mismatched: [] };
      else if (options.insertAt?.has(h)) numbered.set(h, options.insertAt.get(h)!);
      else return { ok: false, error: { kind: "no_context", hunk: h } };
    }
  }
  const pending = (h: number): boolean => placed[h] === undefined && !numbered.has(h);

  // Pass 1: hunks unique in the whole file at their best tier.
  for (let h = 0; h < hunks.length; h++) {
    if (!pending(h)) continue;
    const m = matchers[h]!;
    for (const tier of TIERS) {
      const c = m.candidates(tier, 0, fileEnd, 1);
      if (c.length === 0) continue;
      if (c.length === 1) placed[h] = { start: c[0]!, tier, mismatched: m.fits(c[0]!, tier)! };
      break;
    }
  }
  const orderError = checkOrder(placed);
  if (orderError) return { ok: false, error: orderError };

  /** The hunk's fit between its placed neighbours at its best tier: one place, several, or none. */
  const search = (h: number): { pick: Placement } | { ambiguous: number[] } | undefined => {
    const { lo, hi } = windowFor(placed, h, fileEnd);
    const m = matchers[h]!;
    for (const tier of TIERS) {
      const c = m.candidates(tier, lo, hi, MAX_REPORTED_CANDIDATES);
      if (c.length === 0) continue;
      const pick =
        c.length === 1
          ? c[0]
          : byHint(hunks, placed, h, (p) => p >= lo && p <= hi && m.fits(p, tier) !== undefined);
      return pick === undefined
        ? { ambiguous: c.slice(0, MAX_REPORTED_CANDIDATES) }
        : { pick: { start: pick, tier, mismatched: m.fits(pick, tier)! } };
    }
    return undefined;
  };

  // Pass 2: the rest, between their placed neighbours, until nothing changes.
  for (let progress = true; progress; ) {
    progress = false;
    for (let h = 0; h < hunks.length; h++) {
      if (!pending(h)) continue;
      const found = search(h);
      if (found && "pick" in found) {
        placed[h] = found.pick;
        progress = true;
      }
    }
  }

  const first = placed.findIndex((_, h) => pending(h));
  if (first !== -1) {
    const found = search(first);
    if (found && "ambiguous" in found)
      return { ok: false, error: { kind: "ambiguous", hunk: first, candidates: found.ambiguous } };
    const nearest = matchers[first]!.nearMiss();
    return {
      ok: false,
      error: nearest ? { kind: "not_found", hunk: first, nearest } : { kind: "not_found", hunk: first },
    };
  }
  for (const [h, start] of numbered) placed[h] = { start, tier: "numbered", mismatched: [] };
  const finalOrder = checkOrder(placed);
  if (finalOrder) return { ok: false, error: finalOrder };
  return { ok: true, placements: placed as Placement[] };
}

function checkOrder(placed: (Placement | undefined)[]): LocateError | undefined {
  let prev: number | undefined;
  for (let h = 0; h < placed.length; h++) {
    const p = placed[h];
    if (!p) continue;
    if (prev !== undefined && p.start <= placed[prev]!.start) return { kind: "order", hunk: h, other: prev };
    prev = h;
  }
  return undefined;
}

/** Starts strictly between the placed neighbours, so hunks stay in file order. */
function windowFor(
  placed: (Placement | undefined)[],
  h: number,
  fileEnd: number,
): { lo: number; hi: number } {
  let lo = 0;
  let hi = fileEnd;
  for (let j = h - 1; j >= 0; j--) {
    const p = placed[j];
    if (p) {
      lo = p.start + 1;
      break;
    }
  }
  for (let j = h + 1; j < placed.length; j++) {
    const p = placed[j];
    if (p) {
      hi = p.start - 1;
      break;
    }
  }
  return { lo, hi };
}

/**
 * Among several fits, the one the header names exactly: either its own line
 * number, or that number shifted by how far off the nearest placed earlier
 * hunk's was. Checked directly, so a repeat far down a file is found too.
 */
function byHint(
  hunks: readonly ParsedHunk[],
  placed: (Placement | undefined)[],
  h: number,
  fitsAt: (start: number) => boolean,
): number | undefined {
  const own = hunks[h]!.oldStart;
  if (own === undefined) return undefined;
  const expected = new Set<number>([Math.max(0, own - 1)]);
  for (let j = h - 1; j >= 0; j--) {
    const p = placed[j];
    const hint = hunks[j]!.oldStart;
    if (p && hint !== undefined) {
      expected.add(Math.max(0, own - 1 + (p.start - Math.max(0, hint - 1))));
      break;
    }
  }
  const hits = [...expected].filter(fitsAt);
  return hits.length === 1 ? hits[0] : undefined;
}
