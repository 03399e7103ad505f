// Generated files for the scale and CLI runs: code-shaped lines, unique by
// construction (or repeated on purpose), and edits whose post-image is known.
import type { Rng } from "./prng.js";

/** `n` lines of small functions, each line unique except braces and blanks. */
export function codeLines(n: number): string[] {
  const out: string[] = [];
  for (let i = 0; out.length < n; i++) {
    out.push(
      `export function step${i}(input, options) {`,
      `  const scaled = input * ${i} + options.offset;`,
      `  if (scaled > options.limit) return options.limit - ${i};`,
      `  return normalize(scaled, "s${i}");`,
      `}`,
      ``,
    );
  }
  return out.slice(0, n);
}

const BLOCK = ["  if (value > limit) {", "    value = limit;", "  }", "  total += value;", "  count++;"];

/** `n` lines of one 5-line block repeated: only line numbers can say where a hunk goes. */
export function repeatedLines(n: number): string[] {
  const out: string[] = [];
  while (out.length < n) out.push(...BLOCK);
  return out.slice(0, n);
}

/**
 * The lines with `count` single-line changes at distinct places at least
 * `spacing` lines apart, each line `i` replaced by `change(line, k)`.
 */
export function spreadEdits(
  lines: readonly string[],
  count: number,
  spacing: number,
  rng: Rng,
  change: (line: string, k: number) => string,
  pickable: (line: string) => boolean,
): string[] {
  const out = lines.slice();
  const slot = Math.floor(lines.length / count);
  if (slot < spacing) throw new Error(`${count} edits do not fit ${lines.length} lines ${spacing} apart`);
  for (let k = 0; k < count; k++) {
    // One change per slot, away from the slot's edges so neighbours stay `spacing` apart.
    const lo = k * slot + Math.floor(spacing / 2);
    const hi = (k + 1) * slot - Math.ceil(spacing / 2);
    const candidates: number[] = [];
    for (let i = lo; i <= hi; i++) if (pickable(lines[i]!)) candidates.push(i);
    const at = candidates.length > 0 ? rng.pick(candidates) : lo;
    out[at] = change(lines[at]!, k);
  }
  return out;
}
