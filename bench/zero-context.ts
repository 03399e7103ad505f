// Section "ctx0": the corpus's edits as `diff -U0` writes them (no context lines),
// where an insertion is a hunk of added lines only and its header's number is all
// that says where it goes. Each diff is given bare and with git's `index OLD..NEW`
// line (the only proof of the numbers the engine accepts), then the inputs that
// would make the numbers lie, each of which must be refused. The file is always the
// diff's base ("base matched"): the rule once accepted that, with every other hunk
// at its header line, as evidence, and the shifted-insertion row is where it lied.
import { extname } from "node:path";
import { applyModelPatch } from "../server/src/edit/patch/patch.js";
import { gitBlobHash } from "../server/src/edit/patch/numbered.js";
import { GnuPatch, runApplyPatch, type Attempt } from "./peers.js";
import type { Rng } from "./prng.js";
import { fixed, section, table } from "./report.js";
import { trueDiff, type Subject } from "./variants.js";

interface Case {
  row: string;
  content: string;
  diff: string;
  /** undefined: must refuse. */
  expected: string | undefined;
  /**
   * For a lie: the text its author meant. A lie that changed nothing (an insertion shifted within a run of
   * equal lines names the same result) may land on it byte for byte; that is right, not wrong.
   */
  intended?: string;
}

type Verdict = "correct" | "refused" | "wrong";
const TOOLS = ["lockstep", "applyPatch fuzz 0", "GNU patch"] as const;
type Tool = (typeof TOOLS)[number];

function lockstep(c: Case, path: string): Attempt {
  try {
    const r = applyModelPatch(c.content, c.diff, { filePath: path });
    return r.ok ? { kind: "applied", content: r.value.content } : { kind: "refused", why: r.error.code };
  } catch (e) {
    return { kind: "threw", why: String(e) };
  }
}

function verdict(c: Case, a: Attempt | undefined): Verdict | undefined {
  if (!a) return undefined;
  if (a.kind !== "applied") return "refused";
  const right = c.expected ?? c.intended;
  return right !== undefined && a.content === right ? "correct" : "wrong";
}

/** Rewrites hunk `n`'s header numbers (0-based hunk). */
function reheader(
  diff: string,
  n: number,
  edit: (a: number, o: number, b: number, c: number) => [number, number, number, number],
): string {
  let k = -1;
  return diff.replace(
    /^@@ -(\d+),(\d+) \+(\d+),(\d+) @@/gm,
    (whole, a: string, o: string, b: string, c: string) => {
      if (++k !== n) return whole;
      const [a2, o2, b2, c2] = edit(Number(a), Number(o), Number(b), Number(c));
      return `@@ -${Math.max(0, a2)},${o2} +${Math.max(0, b2)},${c2} @@`;
    },
  );
}

function withIndex(diff: string, pre: string, post: string, path: string): string {
  return `diff --git a/${path} b/${path}\nindex ${gitBlobHash(pre).slice(0, 7)}..${gitBlobHash(post).slice(0, 7)} 100644\n${diff}`;
}

export const CTX0_ROWS = [
  "ctx0 bare",
  "ctx0 index",
  "lie: insertion's old number off 1-3",
  "lie: other hunk's numbers off 1-3",
  "lie: counted on another text",
  "lie: index NEW wrong",
  "lie: insertion shifted, both sides (index)",
  "lie: insertion shifted, both sides, base matched",
] as const;

function casesFor(s: Subject, rng: Rng): Case[] {
  const path = s.file.path;
  const diff = trueDiff(path, s.pre, s.post, 0);
  const counts = [...diff.matchAll(/^@@ -\d+,(\d+) /gm)].map((m) => Number(m[1]));
  const insertion = counts.findIndex((o) => o === 0);
  const other = counts.findIndex((o) => o > 0);
  const out: Case[] = [
    { row: "ctx0 bare", content: s.pre, diff, expected: s.post },
    { row: "ctx0 index", content: s.pre, diff: withIndex(diff, s.pre, s.post, path), expected: s.post },
  ];
  const d = rng.int(1, 3) * (rng.chance(0.5) ? 1 : -1);
  if (insertion >= 0) {
    out.push({
      row: "lie: insertion's old number off 1-3",
      content: s.pre,
      diff: reheader(diff, insertion, (a, o, b, c) => [a + d, o, b, c]),
      expected: undefined,
      intended: s.post,
    });
    if (other >= 0)
      out.push({
        row: "lie: other hunk's numbers off 1-3",
        content: s.pre,
        diff: reheader(diff, other, (a, o, b, c) => [a + d, o, b + d, c]),
        expected: undefined,
        intended: s.post,
      });
    // The author counted on a text with one more line at the top.
    const eol = s.crlf ? "\r\n" : "\n";
    const extra = `// one more line${eol}`;
    out.push({
      row: "lie: counted on another text",
      content: s.pre,
      diff: trueDiff(path, extra + s.pre, extra + s.post, 0),
      expected: undefined,
      intended: s.post,
    });
    out.push({
      row: "lie: index NEW wrong",
      content: s.pre,
      diff: withIndex(diff, s.pre, s.pre + "x", path),
      expected: undefined,
    });
    const shifted = reheader(diff, insertion, (a, o, b, c) => [a + d, o, b + d, c]);
    out.push({
      row: "lie: insertion shifted, both sides (index)",
      content: s.pre,
      diff: withIndex(shifted, s.pre, s.post, path),
      expected: undefined,
      intended: s.post,
    });
    // Read alone, a true diff of another change: the rule that took a matched base as evidence wrote 17 of 32 of these wrong.
    out.push({
      row: "lie: insertion shifted, both sides, base matched",
      content: s.pre,
      diff: shifted,
      expected: undefined,
      intended: s.post,
    });
  }
  return out;
}

export async function runZeroContext(
  subjects: readonly Subject[],
  rng: Rng,
  log: (s: string) => void,
): Promise<{ text: string; wrong: number }> {
  const cases = subjects.flatMap((s) => casesFor(s, rng.fork(`ctx0:${s.file.path}`)).map((c) => ({ c, s })));
  const results = new Map<Tool, (Attempt | undefined)[]>([
    ["lockstep", cases.map(({ c, s }) => lockstep(c, s.file.path))],
    ["applyPatch fuzz 0", cases.map(({ c }) => runApplyPatch(c.content, c.diff, 0))],
  ]);
  const gnu = new GnuPatch();
  try {
    const t0 = performance.now();
    results.set(
      "GNU patch",
      await Promise.all(cases.map(({ c, s }) => gnu.run(c.content, c.diff, extname(s.file.path)))),
    );
    log(`ctx0: GNU patch ${fixed((performance.now() - t0) / 1000)} s`);
  } finally {
    gnu.dispose();
  }
  const tally = new Map<string, Map<Tool, Record<Verdict, number>>>();
  cases.forEach(({ c }, i) => {
    for (const tool of TOOLS) {
      const v = verdict(c, results.get(tool)![i]);
      if (!v) continue;
      const byTool = tally.get(c.row) ?? new Map<Tool, Record<Verdict, number>>();
      tally.set(c.row, byTool);
      const t = byTool.get(tool) ?? { correct: 0, refused: 0, wrong: 0 };
      byTool.set(tool, t);
      t[v]++;
    }
  });
  const cell = (t: Record<Verdict, number> | undefined): string =>
    t ? `${t.correct} / ${t.refused} / ${t.wrong}` : "-";
  const rows = CTX0_ROWS.map((row) => {
    const byTool = tally.get(row);
    const n = byTool?.get("lockstep");
    return [row, String(n ? n.correct + n.refused + n.wrong : 0), ...TOOLS.map((t) => cell(byTool?.get(t)))];
  });
  const withInsertion = subjects.filter((s) =>
    /^@@ -\d+,0 /m.test(trueDiff(s.file.path, s.pre, s.post, 0)),
  ).length;
  const lines = [
    section("ctx0: diffs without context (diff -U0), correct / refused / wrong"),
    `${subjects.length} diffs, ${withInsertion} with an insertion hunk (added lines only). Lies: built only where a diff has an insertion; must refuse, unless the lie named the same result (then landing on the intended text byte for byte is correct).`,
    "bare: no index line (the file is the diff's base, as a matching base sha256 says); index: git's index line.",
    table(["variant", "n", ...TOOLS], rows),
  ];
  // A lie row has no right text to write: anything applied there counts as wrong.
  let wrong = 0;
  for (const row of CTX0_ROWS) wrong += tally.get(row)?.get("lockstep")?.wrong ?? 0;
  lines.push(`lockstep wrong (a lie applied included): ${wrong} (target 0)`);
  return { text: lines.join("\n"), wrong };
}
