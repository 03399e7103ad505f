// Plain-text tables for stdout.

/** Columns padded to their widest cell; the first column left-aligned, the rest right-aligned. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const all = [header, ...rows];
  const widths = header.map((_, c) => Math.max(...all.map((r) => (r[c] ?? "").length)));
  const line = (r: readonly string[]): string =>
    r
      .map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!)))
      .join("  ")
      .trimEnd();
  const rule = widths.map((w) => "-".repeat(w)).join("  ");
  return [line(header), rule, ...rows.map(line)].join("\n");
}

export function section(title: string): string {
  return `\n${title}\n${"=".repeat(title.length)}`;
}

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}

/** One row of the server bench's table: a measure's median and p90 over its runs. */
export interface TimingRow {
  what: string;
  runs: number;
  median: string;
  p90: string;
  note: string;
}

export function timingRow(what: string, samples: readonly number[], note = ""): TimingRow {
  const sorted = [...samples].sort((a, b) => a - b);
  const ms = (p: number): string => `${percentile(sorted, p).toFixed(1)} ms`;
  return { what, runs: sorted.length, median: ms(50), p90: ms(90), note };
}

export function median(values: readonly number[]): number {
  return percentile(
    [...values].sort((a, b) => a - b),
    50,
  );
}

export function fixed(n: number, digits = 1): string {
  return Number.isFinite(n) ? n.toFixed(digits) : "-";
}
