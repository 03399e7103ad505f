// The worst inputs an outsider can hand the server: a glob of many stars (how
// long find_files takes, and how long a read_file sent meanwhile waits), and a
// review of thousands of hunks decided whole and hunk by hunk (how long, and
// the longest stretch the main thread was busy meanwhile, which is how long any
// other request would have waited). Globs go to the real process over stdio;
// the review drives the desk in this process on a real workspace on disk.
// Staging (the proposal's diff and the editor's edits for that change) is timed in this process too.
// Run: `npm run build && node dist/bench/worst-inputs.js [glob|review|staging]...` (all by default).
import { performance } from "node:perf_hooks";
import path from "node:path";
import {
  createWorkspace,
  removeWorkspace,
  startServer,
  type TestClient,
} from "../test/support/lsp-client.js";
import { table, section } from "./report.js";
import { Journal } from "../server/src/review/journal.js";
import { ReviewDesk } from "../server/src/review/review-desk.js";
import { Sandbox } from "../server/src/workspace/sandbox.js";
import { Workspace } from "../server/src/workspace/workspace.js";
import { changeSummary } from "../server/src/tools/modify.js";
import { applyTextEdits, computeTextEdits } from "../server/src/edit/text-edits.js";

/** A find_files still running after this long is given up (the server is killed). */
const GLOB_DEADLINE_MS = 30_000;

function log(message: string): void {
  process.stderr.write(`[bench:worst] ${message}\n`);
}

function ms(n: number): string {
  return n >= 10_000 ? `${(n / 1000).toFixed(1)} s` : `${n.toFixed(1)} ms`;
}

/** Files whose names are as long as real ones, none ending in x (so a `…x` pattern fails on all of them, the slow way). */
function globFiles(): Record<string, string> {
  const files: Record<string, string> = {};
  for (let i = 0; i < 40; i++)
    files[`src/components/widget-panel-${i}.component.ts`] = `export const w${i} = ${i};\n`;
  files["src/big.ts"] = "export const big = 1;\n";
  return files;
}

interface GlobRow {
  pattern: string;
  find: string;
  read: string;
}

function label(pattern: string): string {
  return pattern.length > 24 ? `${pattern.slice(0, 2)}… (${pattern.length} chars)` : pattern;
}

/** find_files with `pattern`, and a read_file sent 20 ms later: the time of each. */
async function globRun(root: string, pattern: string): Promise<GlobRow> {
  const client: TestClient = await startServer({ root, style: "helix" });
  try {
    await client.command("read_file", { file_path: "src/big.ts" });
    const start = performance.now();
    let found = NaN;
    const find = client.command("find_files", { pattern }).then((e) => {
      found = performance.now() - start;
      if (!e.ok && e.error?.code !== "invalid_argument")
        log(`find_files ${label(pattern)}: ${e.error?.message}`);
    });
    await new Promise((r) => setTimeout(r, 20));
    const sent = performance.now();
    const read = await Promise.race([
      client.command("read_file", { file_path: "src/big.ts" }).then(() => performance.now() - sent),
      new Promise<number>((r) => setTimeout(() => r(Infinity), GLOB_DEADLINE_MS)),
    ]);
    await Promise.race([
      find,
      new Promise((r) => setTimeout(r, Math.max(0, GLOB_DEADLINE_MS - (performance.now() - start)))),
    ]);
    return {
      pattern: label(pattern),
      find: Number.isNaN(found) ? `> ${ms(GLOB_DEADLINE_MS)}` : ms(found),
      read: Number.isFinite(read) ? ms(read) : `> ${ms(GLOB_DEADLINE_MS)}`,
    };
  } finally {
    await client.kill();
  }
}

export async function globRows(patterns: readonly string[]): Promise<GlobRow[]> {
  const root = await createWorkspace(globFiles(), "lockstep-bench-glob-");
  try {
    const rows: GlobRow[] = [];
    for (const p of patterns) {
      log(`find_files ${label(p)}`);
      rows.push(await globRun(root, p));
    }
    return rows;
  } finally {
    await removeWorkspace(root);
  }
}

/** A file of `hunks * 10` lines and a change to every tenth line: `hunks` hunks at 3 lines of context. */
export function manyHunks(hunks: number): { before: string; after: string } {
  const lines = Array.from(
    { length: hunks * 10 },
    (_, i) => `  const value${i} = compute(${i}); // line ${i + 1}\n`,
  );
  const after = lines.map((l, i) => (i % 10 === 5 ? l.replace("compute(", "recompute(") : l));
  return { before: lines.join(""), after: after.join("") };
}

interface ReviewRow {
  hunks: number;
  whole: string;
  wholeBusy: string;
  each: string;
  eachBusy: string;
}

/** The longest the event loop went without a turn while `work` ran: how long another request would have waited. */
async function busiest<T>(work: () => Promise<T>): Promise<{ took: number; busy: number; value: T }> {
  let last = performance.now();
  let busy = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    busy = Math.max(busy, now - last);
    last = now;
  }, 5);
  const start = performance.now();
  try {
    const value = await work();
    return { took: performance.now() - start, busy: Math.max(busy, performance.now() - last), value };
  } finally {
    clearInterval(timer);
  }
}

async function reviewRun(hunks: number, whole: boolean): Promise<{ took: number; busy: number }> {
  const { before, after } = manyHunks(hunks);
  const root = await createWorkspace({ "big.ts": before }, "lockstep-bench-review-");
  try {
    const workspace = new Workspace(await Sandbox.create([root]));
    // Each change of the desk republishes the file's hunks, as the editor view does (one at a time).
    let publishing: Promise<unknown> = Promise.resolve();
    const desk: ReviewDesk = new ReviewDesk({
      workspace: () => workspace,
      journal: new Journal(),
      changed: (uri) => void (publishing = publishing.then(() => desk.located(uri))),
    });
    const resolved = await workspace.resolve("big.ts", "write");
    const read = resolved.ok ? await workspace.read(resolved.value) : undefined;
    if (!resolved.ok || !read?.ok) throw new Error("the bench file cannot be read");
    const signal = new AbortController().signal;
    const staged = desk.stage(
      {
        tool: "write_file",
        file_path: "big.ts",
        uri: resolved.value.uri,
        before: read.value,
        after,
        diff: "",
        added: hunks,
        removed: hunks,
      },
      signal,
    );
    const [pending] = await desk.pending();
    if (!pending || pending.hunks.length !== hunks)
      throw new Error(`expected ${hunks} hunks, staged ${pending?.hunks.length}`);
    const run = await busiest(async () => {
      if (whole) await desk.decide(pending.change_id, "apply", signal);
      else await Promise.all(pending.hunks.map((h) => desk.decide(h.hunk_id, "apply", signal)));
      await staged;
      await publishing;
    });
    const outcome = await staged;
    const applied =
      "reviewed" in outcome ? outcome.reviewed.hunks.filter((h) => h.status === "applied").length : 0;
    const disk = await workspace.read(resolved.value);
    if (applied !== hunks || !disk.ok || disk.value.content !== after)
      throw new Error(
        `${hunks} hunks decided ${whole ? "whole" : "one by one"}: ${applied} applied, file ${disk.ok && disk.value.content === after ? "as proposed" : "not as proposed"}`,
      );
    return run;
  } finally {
    await removeWorkspace(root);
  }
}

export async function reviewRows(sizes: readonly number[]): Promise<ReviewRow[]> {
  const rows: ReviewRow[] = [];
  for (const hunks of sizes) {
    log(`review of ${hunks} hunks`);
    const whole = await reviewRun(hunks, true);
    const each = await reviewRun(hunks, false);
    rows.push({
      hunks,
      whole: ms(whole.took),
      wholeBusy: ms(whole.busy),
      each: ms(each.took),
      eachBusy: ms(each.busy),
    });
  }
  return rows;
}

/** Staging a change: the proposal's unified diff (with its +/- counts) and the editor's edits for the whole change, each on the main thread. */
export function stagingRows(sizes: readonly number[]): { hunks: number; diff: string; edits: string }[] {
  return sizes.map((hunks) => {
    log(`staging of ${hunks} hunks`);
    const { before, after } = manyHunks(hunks);
    let start = performance.now();
    const summary = changeSummary("write_file", "big.ts", before, after);
    const counted = summary.added + summary.removed + summary.diff.length;
    const diff = performance.now() - start;
    start = performance.now();
    const edits = computeTextEdits(before, after);
    const took = performance.now() - start;
    if (counted === 0 || summary.added !== hunks || applyTextEdits(before, edits) !== after)
      throw new Error(
        `staging ${hunks} hunks: +${summary.added}, edits rebuild ${applyTextEdits(before, edits) === after ? "the new text" : "something else"}`,
      );
    return { hunks, diff: ms(diff), edits: ms(took) };
  });
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const all = args.length === 0;
  const sizes = (process.env["WORST_HUNKS"] ?? "250,500,2000").split(",").map(Number);
  const stars = (process.env["WORST_STARS"] ?? "12,14,16,18,5000").split(",").map(Number);
  console.log(section("Worst inputs (bench/worst-inputs.ts)"));
  if (all || args.includes("glob")) {
    const patterns = [
      ...stars.map((n) => `${"*".repeat(n)}x`),
      ...(process.env["WORST_QSTAR"] === "0" ? [] : ["?*".repeat(18)]),
    ];
    const rows = await globRows(patterns);
    console.log(
      `\nfind_files on ${Object.keys(globFiles()).length} files (names of 40-45 characters, none ending in x); read_file sent 20 ms after it:`,
    );
    console.log(
      table(
        ["pattern", "find_files", "read_file meanwhile"],
        rows.map((r) => [r.pattern, r.find, r.read]),
      ),
    );
  }
  if (all || args.includes("review")) {
    const rows = await reviewRows(sizes);
    console.log(
      "\nA change with one changed line in every ten, decided whole and hunk by hunk (every hunk decided at once); 'busy' is the longest the main thread went without a turn:",
    );
    console.log(
      table(
        ["hunks", "whole", "whole busy", "hunk by hunk", "hunk by hunk busy"],
        rows.map((r) => [String(r.hunks), r.whole, r.wholeBusy, r.each, r.eachBusy]),
      ),
    );
  }
  if (all || args.includes("staging")) {
    const rows = stagingRows(sizes);
    console.log(
      "\nStaging the same change: the proposal's unified diff with its counts, and the editor's edits for the whole change (both on the main thread):",
    );
    console.log(
      table(
        ["hunks", "proposal's diff", "editor's edits"],
        rows.map((r) => [String(r.hunks), r.diff, r.edits]),
      ),
    );
  }
}

if (process.argv[1] && path.basename(process.argv[1]).startsWith("worst-inputs")) {
  main().then(
    () => process.exit(0),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}
