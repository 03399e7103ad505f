// A buffer the user types into, line by line, that keeps track of regions the
// typing must not touch (the agent's target and its context, a pasted copy), so
// "far away" stays far while lines are inserted above.
//
// Typing pace and chunk sizes: the largest public keystroke study (Dhakal, Feit,
// Kristensson, Oulasvirta, "Observations on Typing from 136 Million Keystrokes",
// CHI 2018) reports about 52 words a minute on average, one key every ~240 ms,
// and backspace in a few percent of keystrokes. One user edit here is one burst
// between pauses: a word (1–8 letters and a space) typed into a line, a new short
// line, or a few characters backspaced; 20 edits is about half a minute of typing.
import type { Rng } from "../prng.js";

const WORDS = [
  "value",
  "count",
  "next",
  "item",
  "todo",
  "check",
  "user",
  "total",
  "index",
  "result",
  "ok",
  "tmp",
  "data",
  "fix",
];

export interface Span {
  lo: number;
  /** Exclusive. */
  hi: number;
}

export class TypedBuffer {
  private readonly spans: Span[] = [];

  constructor(readonly lines: string[]) {}

  /** A region typing must avoid (with `margin` lines around it); kept in place as lines move. */
  protect(span: Span, margin = 0): Span {
    const kept = { lo: Math.max(0, span.lo - margin), hi: Math.min(this.lines.length, span.hi + margin) };
    this.spans.push(kept);
    return kept;
  }

  /** Inserts lines before index `at`, moving every protected span at or below it. */
  insert(at: number, added: readonly string[]): void {
    this.lines.splice(at, 0, ...added);
    for (const s of this.spans) {
      if (s.lo >= at) s.lo += added.length;
      if (s.hi > at || (s.hi === at && s.lo >= at)) s.hi += added.length;
    }
  }

  isFree(index: number): boolean {
    return this.spans.every((s) => index < s.lo || index >= s.hi);
  }

  /** A free line index, or undefined if the seeded tries found none. */
  freeLine(rng: Rng, lo = 0, hi = this.lines.length): number | undefined {
    for (let tries = 0; tries < 50; tries++) {
      const i = rng.int(lo, Math.max(lo, hi - 1));
      if (i < this.lines.length && this.isFree(i)) return i;
    }
    return undefined;
  }

  text(): string {
    return this.lines.join("\n");
  }
}

export function word(rng: Rng): string {
  return rng.pick(WORDS);
}

/** A word typed into line `i`: at its end, or after one of its spaces. */
export function typeWord(buf: TypedBuffer, i: number, rng: Rng): void {
  const line = buf.lines[i]!;
  const spaces = [...line.matchAll(/ /g)].map((m) => m.index + 1);
  const at = spaces.length > 0 && rng.chance(0.6) ? rng.pick(spaces) : line.length;
  buf.lines[i] = `${line.slice(0, at)}${word(rng)}${at === line.length ? "" : " "}${line.slice(at)}`;
}

/** The indentation of line `i` (its leading spaces and tabs). */
export function indentOf(line: string): string {
  return /^[ \t]*/.exec(line)![0];
}

/** One burst of typing on a free line: a word (70%), a new line (15%) or a backspace run (15%). */
export function typeFar(buf: TypedBuffer, rng: Rng): void {
  const i = buf.freeLine(rng);
  if (i === undefined) return;
  const roll = rng.next();
  if (roll < 0.7 || buf.lines[i]!.length === 0) typeWord(buf, i, rng);
  else if (roll < 0.85) buf.insert(i + 1, [`${indentOf(buf.lines[i]!)}// ${word(rng)} ${word(rng)}`]);
  else {
    const line = buf.lines[i]!;
    const cut = Math.min(line.length, rng.int(1, 4));
    buf.lines[i] = line.slice(0, line.length - cut);
  }
}
