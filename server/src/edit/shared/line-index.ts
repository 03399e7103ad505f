import type { LineTable } from "./text.js";

// Line lookups for the locator: where does a line (exactly, or modulo
// whitespace) occur in a file. Built once per file and only for the lines the
// hunks mention, so placing many hunks in a large file costs one pass over the
// file plus the hunks' own work, and a diff that matches exactly never pays for
// whitespace folding.

/** Leading/trailing whitespace dropped and inner runs folded to one space. */
export function foldWhitespace(line: string): string {
  return line.trim().replace(/\s+/g, " ");
}

export class LineIndex {
  private foldedLines: string[] | undefined;
  private exactMap: Map<string, number[]> | undefined;
  private foldedMap: Map<string, number[]> | undefined;

  /** `vocabulary`: the texts that will be looked up (every old-side line of every hunk). */
  constructor(
    private readonly table: LineTable,
    private readonly vocabulary: readonly string[],
  ) {}

  get count(): number {
    return this.table.count;
  }

  /** Line `i` without its ending. */
  line(i: number): string {
    return this.table.line(i);
  }

  /** Every line, cut on first use. */
  get lines(): readonly string[] {
    return this.table.all();
  }

  /** Every line folded; computed on first use. */
  get folded(): readonly string[] {
    this.foldedLines ??= this.lines.map(foldWhitespace);
    return this.foldedLines;
  }

  /** Every 0-based line number whose text is exactly `text` (a vocabulary word). */
  exact(text: string): readonly number[] {
    this.exactMap ??= exactPositions(this.table, this.vocabulary);
    return this.exactMap.get(text) ?? [];
  }

  /** Every 0-based line number equal to `foldedText` (a folded vocabulary word) modulo whitespace. */
  loose(foldedText: string): readonly number[] {
    this.foldedMap ??= positions(this.folded, new Set(this.vocabulary.map(foldWhitespace)));
    return this.foldedMap.get(foldedText) ?? [];
  }
}

function positions(lines: readonly string[], wanted: ReadonlySet<string>): Map<string, number[]> {
  const map = new Map<string, number[]>();
  for (let i = 0; i < lines.length; i++) {
    const key = lines[i]!;
    if (!wanted.has(key)) continue;
    const list = map.get(key);
    if (list) list.push(i);
    else map.set(key, [i]);
  }
  return map;
}

/**
 * Where each vocabulary word occurs as a whole line, in one pass: a line is cut
 * and hashed only when its length and its first, middle and last characters are
 * those of some word, so a large file with a small diff is not hashed line by line.
 */
export function exactPositions(table: LineTable, vocabulary: readonly string[]): Map<string, number[]> {
  const text = table.text;
  // Length and three characters (9 bits each) in one number; an empty line is all zeros.
  const keyOf = (s: string, start: number, length: number): number =>
    length === 0
      ? 0
      : length * 0x8000000 +
        (s.charCodeAt(start) & 0x1ff) * 0x40000 +
        (s.charCodeAt(start + (length >> 1)) & 0x1ff) * 0x200 +
        (s.charCodeAt(start + length - 1) & 0x1ff);
  const wanted = new Set(vocabulary);
  const keys = new Set<number>();
  for (const word of wanted) keys.add(keyOf(word, 0, word.length));
  const map = new Map<string, number[]>();
  const starts = table.starts;
  for (let i = 0; i < starts.length; i++) {
    const start = starts[i]!;
    let end = i + 1 < starts.length ? starts[i + 1]! : text.length;
    if (end > start && text.charCodeAt(end - 1) === 10) end--;
    if (end > start && text.charCodeAt(end - 1) === 13 && end < text.length && text.charCodeAt(end) === 10)
      end--;
    const length = end - start;
    if (!keys.has(keyOf(text, start, length))) continue;
    const line = text.slice(start, end);
    if (!wanted.has(line)) continue;
    const list = map.get(line);
    if (list) list.push(i);
    else map.set(line, [i]);
  }
  return map;
}

/** Similarity in [0, 1] of two lines, by their longest common subsequence of characters. */
export function lineSimilarity(a: string, b: string): number {
  const x = foldWhitespace(a);
  const y = foldWhitespace(b);
  if (x === y) return 1;
  if (x.length === 0 || y.length === 0) return 0;
  // Long lines are compared on a prefix: enough to name a nearest line, bounded in cost.
  const s = x.slice(0, 300);
  const t = y.slice(0, 300);
  let prev = new Uint16Array(t.length + 1);
  let cur = new Uint16Array(t.length + 1);
  for (let i = 1; i <= s.length; i++) {
    for (let j = 1; j <= t.length; j++) {
      cur[j] =
        s.charCodeAt(i - 1) === t.charCodeAt(j - 1) ? prev[j - 1]! + 1 : Math.max(prev[j]!, cur[j - 1]!);
    }
    [prev, cur] = [cur, prev];
  }
  return (2 * prev[t.length]!) / (s.length + t.length);
}

/** Two lines close enough in content that one reads as a rewrite of the other. */
export function alike(a: string, b: string): boolean {
  return lineSimilarity(a, b) >= 0.6;
}
