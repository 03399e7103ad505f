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
    readonly lines: readonly string[],
    private readonly vocabulary: readonly string[],
  ) {}

  /** Every line folded; computed on first use. */
  get folded(): readonly string[] {
    this.foldedLines ??= this.lines.map(foldWhitespace);
    return this.foldedLines;
  }

  /** Every 0-based line number whose text is exactly `text` (a vocabulary word). */
  exact(text: string): readonly number[] {
    this.exactMap ??= positions(this.lines, new Set(this.vocabulary));
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
      cur[j] = s.charCodeAt(i - 1) === t.charCodeAt(j - 1) ? prev[j - 1]! + 1 : Math.max(prev[j]!, cur[j - 1]!);
    }
    [prev, cur] = [cur, prev];
  }
  return (2 * prev[t.length]!) / (s.length + t.length);
}

/** Two lines close enough in content that one reads as a rewrite of the other. */
export function alike(a: string, b: string): boolean {
  return lineSimilarity(a, b) >= 0.6;
}
