// Runs every tool on every variant and counts, per family, the outcomes:
// correct (the expected text), refused, or wrong (applied, anything else).
import { mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { extname, join } from "node:path";
import { GnuPatch, runApplyPatch, runLockstep, TOOLS, type Attempt, type Tool } from "./peers.js";
import type { Rng } from "./prng.js";
import { fixed, section, table } from "./report.js";
import { DETERMINABLE_FAMILIES, MUST_REFUSE_FAMILIES, type Variant } from "./variants.js";

type Verdict = "correct" | "refused" | "wrong";

interface Tally {
  correct: number;
  refused: number;
  wrong: number;
  /** Refusals that were exceptions (lockstep only: a bug). */
  threw: number;
}

function verdict(v: Variant, a: Attempt): Verdict {
  if (a.kind !== "applied") return "refused";
  return v.expected !== undefined && a.content === v.expected ? "correct" : "wrong";
}

export interface RobustnessResult {
  text: string;
  lockstepWrong: number;
  lockstepCorrectPct: number;
}

/** GNU patch runs on every variant when the estimate fits this budget, else on a seeded subset. */
const GNU_BUDGET_MS = 90_000;
const GNU_CONCURRENCY = 3;

export async function runRobustness(
  variants: readonly Variant[],
  rng: Rng,
  log: (s: string) => void,
): Promise<RobustnessResult> {
  const results = new Map<Tool, (Attempt | undefined)[]>(TOOLS.map((t) => [t, []]));
  const started = performance.now();
  for (const v of variants) {
    results.get("lockstep")!.push(runLockstep(v.content, v.diff, v.path));
    results.get("applyPatch fuzz 0")!.push(runApplyPatch(v.content, v.diff, 0));
    results.get("applyPatch fuzz 2")!.push(runApplyPatch(v.content, v.diff, 2));
  }
  log(`in-process tools on ${variants.length} variants: ${fixed((performance.now() - started) / 1000)} s`);

  // GNU patch: calibrate, then all variants or a fixed random subset.
  const gnu = new GnuPatch();
  const gnuResults: (Attempt | undefined)[] = variants.map(() => undefined);
  let gnuNote: string;
  try {
    const t0 = performance.now();
    const calib = Math.min(12, variants.length);
    await Promise.all(
      variants
        .slice(0, calib)
        .map(async (v, i) => (gnuResults[i] = await gnu.run(v.content, v.diff, extname(v.path)))),
    );
    const perRun = (performance.now() - t0) / Math.max(1, calib);
    const estimate = (perRun * variants.length) / GNU_CONCURRENCY;
    let chosen = variants.map((_, i) => i);
    if (estimate > GNU_BUDGET_MS) {
      const keep = Math.max(calib, Math.floor((GNU_BUDGET_MS / estimate) * variants.length));
      chosen = rng
        .shuffle(chosen.slice(calib))
        .slice(0, keep - calib)
        .concat(chosen.slice(0, calib))
        .sort((a, b) => a - b);
      gnuNote = `GNU patch ran on a fixed random subset of ${chosen.length}/${variants.length} variants (spawning is slow); its columns count that subset only.`;
    } else {
      gnuNote = `GNU patch ran on all ${variants.length} variants (${GNU_CONCURRENCY} at a time).`;
    }
    const queue = chosen.filter((i) => gnuResults[i] === undefined);
    const worker = async (): Promise<void> => {
      for (let i = queue.shift(); i !== undefined; i = queue.shift()) {
        const v = variants[i]!;
        gnuResults[i] = await gnu.run(v.content, v.diff, extname(v.path));
      }
    };
    await Promise.all(Array.from({ length: GNU_CONCURRENCY }, worker));
    log(`GNU patch: ${fixed((performance.now() - t0) / 1000)} s`);
  } finally {
    gnu.dispose();
  }
  results.set("GNU patch", gnuResults);

  const tallies = new Map<string, Map<Tool, Tally>>();
  const count = (row: string, tool: Tool, v: Variant, a: Attempt | undefined): void => {
    if (!a) return;
    const byTool = tallies.get(row) ?? new Map<Tool, Tally>();
    tallies.set(row, byTool);
    const t = byTool.get(tool) ?? { correct: 0, refused: 0, wrong: 0, threw: 0 };
    byTool.set(tool, t);
    t[verdict(v, a)]++;
    if (a.kind === "threw") t.threw++;
  };
  variants.forEach((v, i) => {
    for (const tool of TOOLS) {
      const a = results.get(tool)![i];
      count(v.family, tool, v, a);
      const total = v.expected === undefined ? "must-refuse" : "determinable";
      count(`${total} total`, tool, v, a);
      count(`${total} total, context ${v.context}`, tool, v, a);
    }
  });

  const lines: string[] = [];
  lines.push(section("1. Robustness: determinable variants (correct / refused / wrong)"));
  lines.push(
    `${gnuNote} GNU patch command: patch --batch --forward --silent --no-backup-if-mismatch -r - -o OUT FILE < DIFF (default fuzz 2).`,
  );
  const cell = (t: Tally | undefined): string => (t ? `${t.correct} / ${t.refused} / ${t.wrong}` : "-");
  const rows = (families: readonly string[]): string[][] =>
    families.map((f) => {
      const byTool = tallies.get(f);
      const n = byTool?.get("lockstep");
      const size = n ? n.correct + n.refused + n.wrong : 0;
      return [f, String(size), ...TOOLS.map((t) => cell(byTool?.get(t)))];
    });
  const totals = ["determinable total, context 3", "determinable total, context 10", "determinable total"];
  lines.push(table(["family", "n", ...TOOLS], [...rows(DETERMINABLE_FAMILIES), ...rows(totals)]));
  const lsTotal = tallies.get("determinable total")?.get("lockstep") ?? {
    correct: 0,
    refused: 0,
    wrong: 0,
    threw: 0,
  };
  const determinable = lsTotal.correct + lsTotal.refused + lsTotal.wrong;
  const pct = determinable === 0 ? 0 : (100 * lsTotal.correct) / determinable;
  lines.push(
    `lockstep correct over determinable variants: ${lsTotal.correct}/${determinable} = ${fixed(pct, 2)}% (target >= 97%), wrong: ${lsTotal.wrong} (target 0)`,
  );
  for (const tool of TOOLS.slice(1)) {
    const t = tallies.get("determinable total")?.get(tool);
    if (t)
      lines.push(
        `${tool}: ${fixed((100 * t.correct) / Math.max(1, t.correct + t.refused + t.wrong), 2)}% correct, ${t.wrong} wrong`,
      );
  }

  lines.push(section("2. Must refuse (refused = right / applied = wrong)"));
  const refuseCell = (t: Tally | undefined): string => (t ? `${t.refused} / ${t.correct + t.wrong}` : "-");
  const refuseRows = [...MUST_REFUSE_FAMILIES, "must-refuse total"].map((f) => {
    const byTool = tallies.get(f);
    const n = byTool?.get("lockstep");
    return [
      f,
      String(n ? n.correct + n.refused + n.wrong : 0),
      ...TOOLS.map((t) => refuseCell(byTool?.get(t))),
    ];
  });
  lines.push(table(["family", "n", ...TOOLS], refuseRows));

  // What lockstep missed, and every wrong answer with a reproducer on disk.
  const ls = results.get("lockstep")!;
  const threw =
    (tallies.get("determinable total")?.get("lockstep")?.threw ?? 0) +
    (tallies.get("must-refuse total")?.get("lockstep")?.threw ?? 0);
  const misses = variants
    .map((v, i) => ({ v, a: ls[i]! }))
    .filter(({ v, a }) => v.expected !== undefined && a.kind !== "applied");
  const byReason = new Map<string, number>();
  for (const { v, a } of misses) {
    const key = `${v.family} -> ${a.kind === "applied" ? "" : a.why}`;
    byReason.set(key, (byReason.get(key) ?? 0) + 1);
  }
  if (misses.length > 0) {
    lines.push("\nlockstep refusals on determinable variants, by family and code:");
    for (const [k, n] of [...byReason].sort((a, b) => b[1] - a[1]))
      lines.push(`  ${n.toString().padStart(4)}  ${k}`);
  }
  if (threw > 0)
    lines.push(
      `lockstep THREW on ${threw} variants (counted as refused; the engine should return failures as values).`,
    );
  const wrongs = variants
    .map((v, i) => ({ v, a: ls[i]!, i }))
    .filter(({ v, a }) => verdict(v, a) === "wrong");
  if (wrongs.length > 0) {
    const dir = join(tmpdir(), "lockstep-bench-wrong");
    mkdirSync(dir, { recursive: true });
    lines.push(`\nlockstep WRONG on ${wrongs.length} variants; reproducers in ${dir}:`);
    for (const { v, a, i } of wrongs) {
      const base = join(dir, `v${i}-${v.family}-c${v.context}`);
      writeFileSync(`${base}.file`, v.content);
      writeFileSync(`${base}.diff`, v.diff);
      writeFileSync(`${base}.expected`, v.expected ?? "(refusal)\n");
      writeFileSync(`${base}.actual`, a.kind === "applied" ? a.content : "");
      lines.push(
        `  ${v.family} context ${v.context} ${v.path}${v.note ? ` (${v.note})` : ""}: ${firstDifference(v.expected, a)} -> ${base}.*`,
      );
    }
  }
  return { text: lines.join("\n"), lockstepWrong: wrongs.length, lockstepCorrectPct: pct };
}

function firstDifference(expected: string | undefined, a: Attempt): string {
  if (a.kind !== "applied") return "refused";
  if (expected === undefined) return "applied where it must refuse";
  const e = expected.split("\n");
  const g = a.content.split("\n");
  for (let i = 0; i < Math.max(e.length, g.length); i++) {
    if (e[i] !== g[i])
      return `line ${i + 1}: expected ${JSON.stringify(e[i]?.slice(0, 80))}, got ${JSON.stringify(g[i]?.slice(0, 80))}`;
  }
  return "differs";
}
