// search_files and find_files on a real tree beside ripgrep and git grep, in
// the same run: a copy of the project's own node_modules (its nested
// node_modules left out, which lockstep skips and rg would not), no ignore
// files, committed to a git repository so `git grep` searches its index as it
// would in a project. Each search as an LSP round trip against `rg` spawned, and
// as whole processes (`lockstep search` against `rg`), with the peak memory of
// both; read_file's wait while a search runs.
import { execFile, spawnSync } from "node:child_process";
import { existsSync, promises as fs, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { startServer, type TestClient } from "../test/support/lsp-client.js";
import { median, timingRow, type TimingRow } from "./report.js";

const run = promisify(execFile);
const RUNS = 7;
const CLI_RUNS = 5;
const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const CLI = path.join(REPO, "bin", "lockstep.js");

interface Case {
  what: string;
  pattern: string;
}

const CASES: Case[] = [
  { what: "literal createConnection", pattern: "createConnection" },
  { what: "regex create\\w*Connection\\(", pattern: "create\\w*Connection\\(" },
  { what: "smart-case createconnection", pattern: "createconnection" },
  { what: "no match", pattern: "zqxjkvbwpz" },
];

function has(command: string): boolean {
  return spawnSync(command, ["--version"], { stdio: "ignore" }).error === undefined;
}

async function time(fn: () => Promise<unknown>): Promise<number> {
  const began = performance.now();
  await fn();
  return performance.now() - began;
}

/** The project's node_modules copied, without nested node_modules; its file count and size. */
async function buildTree(): Promise<{ root: string; files: number; bytes: number }> {
  const source = await fs.realpath(path.join(REPO, "node_modules"));
  const root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "lockstep-bench-real-")));
  await fs.cp(source, root, {
    recursive: true,
    verbatimSymlinks: true,
    filter: (src) => src === source || !path.relative(source, src).split(path.sep).includes("node_modules"),
  });
  await fs.writeFile(path.join(root, "bench-small.txt"), "read while a search runs\n");
  if (has("git")) {
    const git = (...args: string[]) =>
      run("git", ["-c", "user.name=bench", "-c", "user.email=bench@localhost", ...args], {
        cwd: root,
        maxBuffer: 64 * 1024 * 1024,
      });
    await git("init", "-q");
    await git("add", "-A", "-f");
    await git("commit", "-q", "-m", "tree", "--no-verify");
  }
  let files = 0;
  let bytes = 0;
  for (const entry of await fs.readdir(root, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || path.relative(root, entry.parentPath).split(path.sep)[0] === ".git") continue;
    files++;
    bytes += (await fs.stat(path.join(entry.parentPath, entry.name))).size;
  }
  return { root, files, bytes };
}

/** Peak resident memory of a process so far (Linux), in MB. */
function peakMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = /VmHWM:\s+(\d+)/.exec(status)?.[1];
  return kb === undefined ? NaN : Number(kb) / 1024;
}

/** A whole process's wall time and peak memory, through /usr/bin/time. */
async function wholeProcess(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ ms: number; mb: number }> {
  const began = performance.now();
  const r = await run("/usr/bin/time", ["-f", "%M", command, ...args], {
    maxBuffer: 256 * 1024 * 1024,
    env,
  }).catch((e: { stderr?: string }) => ({ stderr: e.stderr ?? "" }));
  const ms = performance.now() - began;
  const kb = Number(/(\d+)\s*$/.exec(r.stderr)?.[1]);
  return { ms, mb: kb / 1024 };
}

const ratio = (a: number[], b: number[]): string => `${(median(a) / median(b)).toFixed(2)}×`;

async function lspRows(
  client: TestClient,
  root: string,
  rg: boolean,
  gitGrep: boolean,
  engine: string,
): Promise<TimingRow[]> {
  const rows: TimingRow[] = [];
  for (const c of CASES) {
    const lockstep: number[] = [];
    const rgMs: number[] = [];
    const gitMs: number[] = [];
    let matches = 0;
    for (let i = 0; i < RUNS; i++) {
      lockstep.push(
        await time(async () => {
          const r = await client.command("search_files", { pattern: c.pattern, max_results: 1000 });
          if (!r.ok) throw new Error(`search_files failed: ${JSON.stringify(r.error)}`);
          matches = (r.data["matches"] as unknown[]).length;
        }),
      );
      // Exit status 1 is "no match".
      if (rg)
        rgMs.push(
          await time(() =>
            run("rg", ["-n", "--hidden", "-g", "!.git/", "-S", c.pattern, root], {
              maxBuffer: 256 * 1024 * 1024,
            }).catch(() => undefined),
          ),
        );
      if (gitGrep)
        gitMs.push(
          await time(() =>
            run("git", ["grep", "-n", "-I", "-E", ...(/[A-Z]/.test(c.pattern) ? [] : ["-i"]), c.pattern], {
              cwd: root,
              maxBuffer: 256 * 1024 * 1024,
            }).catch(() => undefined),
          ),
        );
    }
    const vs = [
      rg ? `${ratio(lockstep, rgMs)} rg (target ≤ 1.5×)` : "rg not on PATH: not compared",
      gitGrep ? `${ratio(lockstep, gitMs)} git grep` : "",
    ]
      .filter(Boolean)
      .join(", ");
    rows.push(
      timingRow(`search_files ${c.what} (LSP round trip, ${engine})`, lockstep, `${matches} matches; ${vs}`),
    );
    if (rg) rows.push(timingRow(`rg -n --hidden -S, same pattern`, rgMs, "spawn included"));
    if (gitGrep)
      rows.push(timingRow(`git grep -n -I -E (committed copy), same pattern`, gitMs, "spawn included"));
  }
  rows.push(await readsDuringSearch(client));
  const find: number[] = [];
  const files: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    find.push(await time(() => client.command("find_files", { pattern: "**/*.zzz" })));
    if (rg)
      files.push(
        await time(() =>
          run("rg", ["--files", "--hidden", "-g", "!.git/", root], { maxBuffer: 256 * 1024 * 1024 }),
        ),
      );
  }
  rows.push(
    timingRow(
      "find_files **/*.zzz (the walk alone, LSP round trip)",
      find,
      rg ? `${ratio(find, files)} rg --files (target ≤ 2×)` : "rg not on PATH: not compared",
    ),
  );
  if (rg) rows.push(timingRow("rg --files --hidden", files, "spawn included"));
  return rows;
}

/** read_file of a small file, one after another, while literal searches run. */
async function readsDuringSearch(client: TestClient): Promise<TimingRow> {
  const waits: number[] = [];
  for (let i = 0; i < 3; i++) {
    let done = false;
    const search = client
      .command("search_files", { pattern: "createConnection", max_results: 1000 })
      .finally(() => (done = true));
    do {
      waits.push(await time(() => client.command("read_file", { file_path: "bench-small.txt" })));
    } while (!done);
    await search;
  }
  return timingRow(
    "read_file while search_files runs (LSP round trip)",
    waits,
    `slowest ${Math.max(...waits).toFixed(0)} ms (target < 50 ms)`,
  );
}

async function cliRows(root: string, rg: boolean, engine: string): Promise<TimingRow[]> {
  if (!existsSync("/usr/bin/time"))
    return [
      {
        what: "lockstep search as a whole process",
        runs: 0,
        median: "-",
        p90: "-",
        note: "/usr/bin/time not found: not measured",
      },
    ];
  const rows: TimingRow[] = [];
  // NODE_EXTRA_CA_CERTS makes Node parse a certificate bundle as it starts, before any of
  // lockstep runs (the start-up rows measure it); lockstep search makes no connection, so the
  // rows run without it, and one row with it says what it costs.
  const { NODE_EXTRA_CA_CERTS: extraCerts, ...plain } = process.env;
  const args = (pattern: string): string[] => [
    CLI,
    "search",
    pattern,
    "--root",
    root,
    "--max-results",
    "1000",
    "--json",
  ];
  if (extraCerts !== undefined) {
    const withCerts: number[] = [];
    for (let i = 0; i < CLI_RUNS; i++)
      withCerts.push((await wholeProcess(process.execPath, args(CASES[0]!.pattern))).ms);
    rows.push(
      timingRow(
        `lockstep search ${CASES[0]!.what} (whole process, ${engine}), NODE_EXTRA_CA_CERTS set`,
        withCerts,
        "as this machine's environment has it; the rows below run without it",
      ),
    );
  }
  for (const c of CASES) {
    const lockstep: { ms: number; mb: number }[] = [];
    const rgRuns: { ms: number; mb: number }[] = [];
    for (let i = 0; i < CLI_RUNS; i++) {
      lockstep.push(await wholeProcess(process.execPath, args(c.pattern), plain));
      if (rg)
        rgRuns.push(await wholeProcess("rg", ["-n", "--hidden", "-g", "!.git/", "-S", c.pattern, root]));
    }
    const peak = (xs: { mb: number }[]): string => `${Math.max(...xs.map((x) => x.mb)).toFixed(0)} MB`;
    const ms = (xs: { ms: number }[]): number[] => xs.map((x) => x.ms);
    rows.push(
      timingRow(
        `lockstep search ${c.what} (whole process, ${engine})`,
        ms(lockstep),
        `peak ${peak(lockstep)}; ${rg ? `${ratio(ms(lockstep), ms(rgRuns))} rg (target ≤ 2.5×)` : "rg not on PATH: not compared"}`,
      ),
    );
    if (rg) rows.push(timingRow(`rg, same pattern (whole process)`, ms(rgRuns), `peak ${peak(rgRuns)}`));
  }
  return rows;
}

export async function realTreeRows(): Promise<TimingRow[]> {
  if (!existsSync(path.join(REPO, "node_modules")))
    return [
      {
        what: "search on a real tree",
        runs: 0,
        median: "-",
        p90: "-",
        note: "no node_modules to copy: run npm ci",
      },
    ];
  const rg = has("rg");
  const gitGrep = has("git");
  const tree = await buildTree();
  const rows: TimingRow[] = [];
  // Both searches, each chosen by LOCKSTEP_SEARCH ("js": never rg; anything else, rg where it can).
  try {
    for (const engine of rg ? ["rg", "js"] : ["js"]) {
      const client = await startServer({ root: tree.root, style: "helix", env: { LOCKSTEP_SEARCH: engine } });
      try {
        await client.command("search_files", { pattern: "warm-up" });
        rows.push(...(await lspRows(client, tree.root, rg, gitGrep, engine)));
        rows.push({
          what: `server's peak memory after these searches (${engine})`,
          runs: 1,
          median: `${peakMb(client.pid).toFixed(0)} MB`,
          p90: "",
          note: `tree: ${tree.files} files, ${(tree.bytes / 1e6).toFixed(0)} MB, a copy of node_modules`,
        });
      } finally {
        await client.shutdown();
      }
      const before = process.env["LOCKSTEP_SEARCH"];
      process.env["LOCKSTEP_SEARCH"] = engine;
      try {
        rows.push(...(await cliRows(tree.root, rg, engine)));
      } finally {
        if (before === undefined) delete process.env["LOCKSTEP_SEARCH"];
        else process.env["LOCKSTEP_SEARCH"] = before;
      }
    }
  } finally {
    await fs.rm(tree.root, { recursive: true, force: true });
  }
  return rows;
}
