// The agent's repository tools beside their peers, measured in the same run:
// search_files and find_files on a real tree against rg and git grep
// (search-real-tree.ts); search_files over LSP against `git grep -n -i -E` (spawn
// included) and against reading every file naively in JavaScript, on a generated
// tree of 5,000 small files, where the cost per file shows;
// read_file's latency while a search of 50,000 files runs; read_many_files over
// 500 files of 2 KB against `cat` (spawn included) and an in-process read +
// sha256; and the bytes of history sent per request over a 10-patch session,
// with and without one copy of each file (agent/history-compaction.ts).
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { promises as fs, readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { compactFileStates } from "../server/src/agent/history-compaction.js";
import type { Message } from "../server/src/agent/model.js";
import { invokeTool } from "../server/src/tools/registry.js";
import { Sandbox } from "../server/src/workspace/sandbox.js";
import { Workspace } from "../server/src/workspace/workspace.js";
import {
  createWorkspace,
  removeWorkspace,
  startServer,
  type TestClient,
} from "../test/support/lsp-client.js";
import { median, timingRow, type TimingRow } from "./report.js";
import { realTreeRows } from "./search-real-tree.js";

const run = promisify(execFile);
const RUNS = 15;
const SEARCH_FILES = 5000;
const BIG_TREE_FILES = 50_000;
const PATTERN = "computeTotal\\w*\\(";

function line(file: number, n: number): string {
  return `    const value_${file}_${n} = compute(${n}, "item-${(file * 7919 + n) % 10007}"); // line ${n}`;
}

/** `files` files of about 2 KB in directories of 50; one in 100 defines or calls computeTotal. */
function tree(files: number, lines = 24): Record<string, string> {
  const out: Record<string, string> = {};
  for (let f = 0; f < files; f++) {
    const body = Array.from({ length: lines }, (_, n) => line(f, n + 1));
    if (f % 100 === 0)
      body.splice(lines / 2, 0, `export function computeTotal${f}(items) { return items.length; }`);
    out[`pkg/d${String(Math.floor(f / 50)).padStart(4, "0")}/f${String(f).padStart(5, "0")}.ts`] =
      body.join("\n") + "\n";
  }
  return out;
}

async function time(fn: () => Promise<unknown>): Promise<number> {
  const began = performance.now();
  await fn();
  return performance.now() - began;
}

function ratio(a: number[], b: number[]): string {
  return `${(median(a) / median(b)).toFixed(2)}×`;
}

/** Every file below `dir`, read and matched line by line on this thread: what a plain script would do. */
function naiveSearch(dir: string, regex: RegExp): number {
  let hits = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const abs = path.join(entry.parentPath, entry.name);
    if (abs.includes(`${path.sep}.git${path.sep}`)) continue;
    for (const l of readFileSync(abs, "utf8").split("\n")) if (regex.test(l)) hits++;
  }
  return hits;
}

async function searchRowsFor(client: TestClient, root: string): Promise<TimingRow[]> {
  await run("git", ["init", "-q"], { cwd: root });
  await run("git", ["add", "-A"], { cwd: root });
  const lockstep: number[] = [];
  const grep: number[] = [];
  const naive: number[] = [];
  let matches = 0;
  for (let i = 0; i < RUNS; i++) {
    lockstep.push(
      await time(async () => {
        const r = await client.command("search_files", { pattern: PATTERN, max_results: 1000 });
        if (!r.ok) throw new Error(`search_files failed: ${JSON.stringify(r.error)}`);
        matches = (r.data["matches"] as unknown[]).length;
      }),
    );
    grep.push(
      await time(() => run("git", ["grep", "-n", "-i", "-E", "computeTotal[a-z0-9_]*\\("], { cwd: root })),
    );
    naive.push(await time(async () => naiveSearch(root, new RegExp(PATTERN, "i"))));
  }
  if (matches !== SEARCH_FILES / 100)
    throw new Error(`search_files found ${matches} matches, not ${SEARCH_FILES / 100}`);
  return [
    timingRow(
      `search_files, ${SEARCH_FILES} files (LSP round trip)`,
      lockstep,
      `${matches} matches; ${ratio(lockstep, grep)} git grep, ${ratio(lockstep, naive)} naive JS (the real tree's rows carry the targets)`,
    ),
    timingRow(`git grep -n -i -E, same tree`, grep, "spawn included"),
    timingRow(`naive JS: readdir + readFileSync + split + test`, naive, "in the bench process, blocking it"),
  ];
}

async function findRow(client: TestClient): Promise<TimingRow> {
  const samples: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    samples.push(
      await time(async () => {
        const r = await client.command("find_files", { pattern: "pkg/**/f*0.ts" });
        if (!r.ok || (r.data["files"] as unknown[]).length !== SEARCH_FILES / 10)
          throw new Error(`find_files: ${JSON.stringify(r).slice(0, 200)}`);
      }),
    );
  }
  return timingRow(`find_files pkg/**/f*0.ts, ${SEARCH_FILES} files`, samples, `${SEARCH_FILES / 10} names`);
}

/** read_file of a small file, sent again and again while one search of a large tree runs. */
async function responsiveRow(): Promise<TimingRow> {
  const root = await createWorkspace(
    { ...tree(BIG_TREE_FILES, 8), "small.ts": "export const small = 1;\n" },
    "lockstep-bench-search-big-",
  );
  const client = await startServer({ root, style: "helix" });
  try {
    const during: number[] = [];
    let done = false;
    const began = performance.now();
    const search = client.command("search_files", { pattern: "no such text anywhere" }).then((r) => {
      done = true;
      if (!r.ok) throw new Error(`search failed: ${JSON.stringify(r.error)}`);
      return { ms: performance.now() - began, searched: Number(r.data["files_searched"]) };
    });
    while (!done) {
      during.push(await time(() => client.command("read_file", { file_path: "small.ts" })));
      await new Promise((r) => setTimeout(r, 5));
    }
    const { ms, searched } = await search;
    return timingRow(
      `read_file while search_files walks ${BIG_TREE_FILES} files`,
      during,
      `the search took ${ms.toFixed(0)} ms over ${searched} files; target < 50 ms`,
    );
  } finally {
    await client.shutdown();
    await removeWorkspace(root);
  }
}

async function readManyRows(): Promise<TimingRow[]> {
  const files = Object.fromEntries(
    Array.from({ length: 500 }, (_, f) => [
      `src/m${String(f).padStart(3, "0")}.ts`,
      Array.from({ length: 22 }, (_, n) => line(f, n + 1)).join("\n") + "\n",
    ]),
  );
  const root = await createWorkspace(files, "lockstep-bench-readmany-");
  const client = await startServer({ root, style: "helix" });
  const names = Object.keys(files);
  const abs = names.map((n) => path.join(root, n));
  try {
    const lockstep: number[] = [];
    const cat: number[] = [];
    const inProcess: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      lockstep.push(
        await time(async () => {
          const r = await client.command("read_many_files", { file_paths: ["src/*.ts"] });
          if (!r.ok || (r.data["files"] as unknown[]).length !== 500)
            throw new Error(`read_many_files: ${JSON.stringify(r).slice(0, 200)}`);
        }),
      );
      cat.push(await time(() => run("cat", abs, { maxBuffer: 64 * 1024 * 1024 })));
      inProcess.push(
        await time(() =>
          Promise.all(
            abs.map(async (a) =>
              createHash("sha256")
                .update(await fs.readFile(a, "utf8"))
                .digest("hex"),
            ),
          ),
        ),
      );
    }
    return [
      timingRow(
        "read_many_files, 500 files of 2 KB (LSP round trip)",
        lockstep,
        `${ratio(lockstep, cat)} cat, ${ratio(lockstep, inProcess)} in-process; targets ≤ 1.5× cat, ≤ 3× in-process`,
      ),
      timingRow("cat of the same 500 files", cat, "spawn included"),
      timingRow("in-process readFile + sha256 of the same files", inProcess, "Promise.all"),
    ];
  } finally {
    await client.shutdown();
    await removeWorkspace(root);
  }
}

/**
 * A 10-patch session on a 1,500-line file, as the turn loop records it: a read,
 * then ten safe_patch calls each answered with the file's new state. For each
 * request, the history's bytes as sent (compacted) and as they would be without.
 */
async function historyRows(): Promise<TimingRow[]> {
  const text = Array.from({ length: 1500 }, (_, n) => line(0, n + 1)).join("\n") + "\n";
  const root = await createWorkspace({ "src/big.ts": text }, "lockstep-bench-history-");
  try {
    const ctx = {
      workspace: new Workspace(await Sandbox.create([root])),
      signal: new AbortController().signal,
      approve: async () => "apply" as const,
    };
    const raw: Message[] = [{ role: "user", parts: [{ text: "Tidy every hundredth line of src/big.ts." }] }];
    const call = async (name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> => {
      const response = await invokeTool(name, args, ctx);
      raw.push(
        { role: "assistant", parts: [{ functionCall: { name, args } }] },
        { role: "user", parts: [{ functionResponse: { name, response } }] },
      );
      return response.ok ? response.data : {};
    };
    const before: number[] = [];
    const after: number[] = [];
    const measure = (): void => {
      before.push(Buffer.byteLength(JSON.stringify(raw)));
      const sent = [...raw];
      compactFileStates(sent);
      after.push(Buffer.byteLength(JSON.stringify(sent)));
    };
    measure();
    let state = await call("read_file", { file_path: "src/big.ts" });
    for (let p = 1; p <= 10; p++) {
      measure();
      const lines = String(state["content"]).split("\n");
      const at = p * 100;
      const diff =
        [
          "@@ @@",
          ...lines.slice(at - 10, at).map((l) => ` ${l}`),
          `-${lines[at]}`,
          `+${lines[at]} // tidied`,
          ...lines.slice(at + 1, at + 11).map((l) => ` ${l}`),
        ].join("\n") + "\n";
      state = (
        await call("safe_patch", {
          file_path: "src/big.ts",
          unified_diff: diff,
          base_content_sha256: state["sha256"],
        })
      )["latest_file_state"] as Record<string, unknown>;
    }
    measure();
    const kb = (b: number): string => `${(b / 1024).toFixed(0)} KB`;
    const total = (xs: number[]): number => xs.reduce((a, b) => a + b, 0);
    const row = (what: string, xs: number[]): TimingRow => ({
      what,
      runs: xs.length,
      median: kb(xs.at(-1)!),
      p90: "",
      note: `last request; ${kb(total(xs))} over the session's ${xs.length} requests (${kb(Buffer.byteLength(text))} file)`,
    });
    return [
      row("history bytes per request, 10-patch session, every copy", before),
      row("history bytes per request, one copy of each file", after),
    ];
  } finally {
    await removeWorkspace(root);
  }
}

export async function searchRows(): Promise<TimingRow[]> {
  const root = await createWorkspace(tree(SEARCH_FILES), "lockstep-bench-search-");
  const client = await startServer({ root, style: "helix" });
  const rows: TimingRow[] = [...(await realTreeRows())];
  try {
    await client.command("search_files", { pattern: "warm-up" });
    rows.push(...(await searchRowsFor(client, root)), await findRow(client));
  } finally {
    await client.shutdown();
    await removeWorkspace(root);
  }
  rows.push(await responsiveRow(), ...(await readManyRows()), ...(await historyRows()));
  return rows;
}
