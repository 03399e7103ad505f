// How lockstep's time grows with file size and hunk count, beside applyPatch
// where it can apply the same diff at all.
import { runApplyPatch, runLockstep, type Attempt } from "./peers.js";
import type { Rng } from "./prng.js";
import { bareHeaders } from "./perturb.js";
import { fixed, median, section, table } from "./report.js";
import { codeLines, repeatedLines, spreadEdits } from "./synthetic.js";
import { trueDiff } from "./variants.js";

const RUNS = 7;

interface Case {
  name: string;
  /** The file name the diff's headers carry; lockstep is told the same. */
  path: string;
  lines: number;
  hunks: number;
  content: string;
  diff: string;
  expected: string;
}

function timeMs(fn: () => Attempt): { ms: number; result: Attempt } {
  const t0 = process.hrtime.bigint();
  const result = fn();
  return { ms: Number(process.hrtime.bigint() - t0) / 1e6, result };
}

/**
 * Median of timed calls after a warm-up, and what the calls returned. Small
 * inputs warm up and repeat until some milliseconds have passed, so both tools
 * are measured with their code compiled, not interpreted.
 */
function measure(fn: () => Attempt, expected: string): { ms: number; outcome: string } {
  const first = fn();
  for (let i = 0, t0 = performance.now(); i < 200 && performance.now() - t0 < 50; i++) fn();
  const times: number[] = [];
  for (let i = 0, t0 = performance.now(); i < RUNS || (i < 500 && performance.now() - t0 < 100); i++)
    times.push(timeMs(fn).ms);
  const outcome =
    first.kind === "applied"
      ? first.content === expected
        ? "correct"
        : "WRONG"
      : `refused${first.kind === "refused" ? ` (${first.why.slice(0, 24)})` : ""}`;
  return { ms: median(times), outcome };
}

function codeCase(lines: number, hunks: number, bare: boolean, rng: Rng): Case {
  const pre = codeLines(lines);
  const post = spreadEdits(
    pre,
    hunks,
    12,
    rng,
    (l, k) => l.replace("options.offset", `options.offset + ${k + 1}`),
    (l) => l.includes("options.offset"),
  );
  const content = pre.join("\n") + "\n";
  const expected = post.join("\n") + "\n";
  const diff = trueDiff("big.js", content, expected, 3);
  const name = `${lines / 1000}k lines, ${hunks} hunk${hunks > 1 ? "s" : ""}, ${bare ? "bare @@ @@" : "exact headers"}`;
  return { name, path: "big.js", lines, hunks, content, diff: bare ? bareHeaders(diff) : diff, expected };
}

function repeatedCase(rng: Rng): Case {
  const pre = repeatedLines(20_000);
  const post = spreadEdits(
    pre,
    10,
    12,
    rng,
    (l, k) => l.replace("limit;", `limit - ${k + 1};`),
    (l) => l.includes("value = limit;"),
  );
  const content = pre.join("\n") + "\n";
  const expected = post.join("\n") + "\n";
  return {
    name: "20k repeated 5-line block, 10 hunks, line numbers",
    path: "repeated.js",
    lines: 20_000,
    hunks: 10,
    content,
    diff: trueDiff("repeated.js", content, expected, 3),
    expected,
  };
}

function oneLineCase(rng: Rng): Case {
  let line = "";
  for (let i = 0; line.length < 1_000_000; i++) line += `v${i}=${(i * 7919) % 1000};`;
  const at = rng.int(400_000, 600_000);
  const changed = line.slice(0, at) + "CHANGED" + line.slice(at + 7);
  const content = line + "\n";
  const expected = changed + "\n";
  return {
    name: "1 MB single-line file, 1 hunk",
    path: "min.js",
    lines: 1,
    hunks: 1,
    content,
    diff: trueDiff("min.js", content, expected, 3),
    expected,
  };
}

/** One decimal for small numbers, none once they are large. */
function big(n: number): string {
  return fixed(n, n >= 1000 ? 0 : 1);
}

/**
 * Exact diffs on a grid of file sizes and hunk counts, each beside applyPatch
 * on the same diff: the cost of proving every hunk unique should grow with the
 * file plus the hunks, not their product.
 */
function exactGrid(rng: Rng): { text: string; ratios: number[] } {
  const rows: string[][] = [];
  const ratios: number[] = [];
  for (const lines of [100, 2_000, 20_000, 200_000]) {
    for (const wanted of [1, 10, 100]) {
      const hunks = Math.min(wanted, Math.floor(lines / 14));
      const c = codeCase(lines, hunks, false, rng.fork(`grid:${lines}:${hunks}`));
      const ls = measure(() => runLockstep(c.content, c.diff, c.path), c.expected);
      const ap = measure(() => runApplyPatch(c.content, c.diff, 0), c.expected);
      const ratio = ls.ms / ap.ms;
      ratios.push(ratio);
      rows.push([
        `${lines}`,
        `${hunks}${hunks < wanted ? ` (of ${wanted}: the file holds no more)` : ""}`,
        fixed(ls.ms, 3),
        ls.outcome,
        fixed(ap.ms, 3),
        ap.outcome,
        `${fixed(ratio, 2)}x`,
      ]);
    }
  }
  const sorted = [...ratios].sort((a, b) => a - b);
  const text = [
    section(
      `4a. Exact diffs: lockstep beside applyPatch (ms, median of at least ${RUNS} runs after a warm-up; target: no cell above 2x, median at most 1.5x)`,
    ),
    table(["lines", "hunks", "lockstep ms", "lockstep", "applyPatch ms", "applyPatch", "ratio"], rows),
    `median ratio ${fixed(median(sorted), 2)}x, highest ${fixed(sorted[sorted.length - 1]!, 2)}x`,
  ].join("\n");
  return { text, ratios };
}

export function runScale(rng: Rng): string {
  const grid = exactGrid(rng.fork("grid"));
  const cases: Case[] = [];
  for (const bare of [false, true])
    for (const lines of [10_000, 50_000])
      for (const hunks of [1, 100]) cases.push(codeCase(lines, hunks, bare, rng.fork(`${lines}:${hunks}`)));
  const target = codeCase(20_000, 100, true, rng.fork("20k"));
  target.name += " (target < 50 ms)";
  cases.push(target, repeatedCase(rng.fork("repeated")), oneLineCase(rng.fork("one-line")));

  const rows = cases.map((c) => {
    const ls = measure(() => runLockstep(c.content, c.diff, c.path), c.expected);
    const ap = measure(() => runApplyPatch(c.content, c.diff, 0), c.expected);
    const apCell = ap.outcome.startsWith("refused") ? "refuses" : `${fixed(ap.ms, 2)} ${ap.outcome}`;
    return [
      c.name,
      fixed(ls.ms, 2),
      ls.outcome,
      apCell,
      big((ls.ms * 1000) / (c.lines / 1000)),
      big((ls.ms * 1e6) / (c.lines * c.hunks)),
    ];
  });
  return [
    grid.text,
    section(`4b. Scale (lockstep ms, median of at least ${RUNS} runs after a warm-up)`),
    table(
      [
        "case",
        "lockstep ms",
        "lockstep result",
        "applyPatch fuzz 0 ms",
        "us / 1k lines",
        "ns / (line x hunk)",
      ],
      rows,
    ),
  ].join("\n");
}
