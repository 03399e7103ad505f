// Time per call on the `exact` variants, in process: lockstep's engine against
// the `diff` package's strict applyPatch on the same diffs and files.
import { runApplyPatch, runLockstep } from "./peers.js";
import { fixed, median, percentile, section, table } from "./report.js";
import type { Variant } from "./variants.js";

const WARMUP_ROUNDS = 20;
const ROUNDS = 40;

function timeOnce(fn: () => unknown): number {
  const t0 = process.hrtime.bigint();
  fn();
  return Number(process.hrtime.bigint() - t0) / 1000;
}

export function runSpeed(variants: readonly Variant[]): string {
  const tools: [string, (v: Variant) => unknown][] = [
    ["lockstep", (v) => runLockstep(v.content, v.diff, v.path)],
    ["applyPatch fuzz 0", (v) => runApplyPatch(v.content, v.diff, 0)],
  ];
  for (let r = 0; r < WARMUP_ROUNDS; r++) for (const v of variants) for (const [, fn] of tools) fn(v);
  // Rounds interleave tools and diffs so drift and GC land on both alike.
  const samples = tools.map(() => [] as number[]);
  const perDiff = tools.map(() => variants.map(() => [] as number[]));
  for (let r = 0; r < ROUNDS; r++) {
    variants.forEach((v, d) => {
      tools.forEach(([, fn], t) => {
        const us = timeOnce(() => fn(v));
        samples[t]!.push(us);
        perDiff[t]![d]!.push(us);
      });
    });
  }
  const rows = tools.map(([name], t) => {
    const s = samples[t]!.sort((a, b) => a - b);
    return [
      name,
      fixed(percentile(s, 50)),
      fixed(percentile(s, 90)),
      fixed(percentile(s, 99)),
      fixed(s[s.length - 1]!),
    ];
  });
  const p50 = (t: number): number => percentile(samples[t]!, 50);
  const ratios = variants
    .map((_, d) => median(perDiff[0]![d]!) / median(perDiff[1]![d]!))
    .sort((a, b) => a - b);
  const lines = [
    section("3. Speed on exact variants (microseconds per call)"),
    `${variants.length} diffs (context 3 and 10) x ${ROUNDS} rounds per tool after ${WARMUP_ROUNDS} warm-up rounds; samples pooled`,
    table(["tool", "p50", "p90", "p99", "max"], rows),
    `lockstep / applyPatch at p50: ${fixed(p50(0) / p50(1), 2)}x (target <= 3x); ` +
      `per-diff median ratio: p50 ${fixed(percentile(ratios, 50), 2)}x, p90 ${fixed(percentile(ratios, 90), 2)}x, max ${fixed(ratios[ratios.length - 1]!, 2)}x`,
  ];
  return lines.join("\n");
}
