// What the sandbox costs a command: `true` run through lockstep's runner directly and inside
// bubblewrap (spawn → result), and the delay to the first output line of `echo first; sleep
// 0.3` both ways. The variants take turns, so a busy machine slows them alike. Run alone:
// `npm run build && node dist/bench/commands.js`.
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import {
  probeBubblewrap,
  runCommand,
  type RunRequest,
  type SandboxBackend,
} from "../server/src/commands/index.js";
import { section, table, timingRow, type TimingRow } from "./report.js";

const RUNS = 21;

function request(
  command: string,
  root: string,
  backend: SandboxBackend | undefined,
  onOutput?: (text: string) => void,
): RunRequest {
  return {
    command,
    cwd: root,
    timeoutMs: 30_000,
    signal: new AbortController().signal,
    env: process.env,
    remove: [],
    secrets: [],
    ...(backend ? { sandbox: { backend, policy: { root, readOnly: [], network: false } } } : {}),
    ...(onOutput ? { onOutput } : {}),
  };
}

async function wholeRun(root: string, backend: SandboxBackend | undefined): Promise<number> {
  const started = performance.now();
  await runCommand(request("true", root, backend));
  return performance.now() - started;
}

async function firstLine(root: string, backend: SandboxBackend | undefined): Promise<number> {
  const started = performance.now();
  let at = NaN;
  await runCommand(
    request(
      "echo first; sleep 0.3",
      root,
      backend,
      () => (at = Number.isNaN(at) ? performance.now() - started : at),
    ),
  );
  return at;
}

export async function commandRows(): Promise<string> {
  const probe = await probeBubblewrap();
  const backend = probe.kind === "available" ? probe.backend : undefined;
  const root = realpathSync(mkdtempSync(path.join(tmpdir(), "lockstep-bench-commands-")));
  const samples = {
    direct: [] as number[],
    sandboxed: [] as number[],
    firstDirect: [] as number[],
    firstSandboxed: [] as number[],
  };
  try {
    for (let i = 0; i < RUNS; i++) {
      samples.direct.push(await wholeRun(root, undefined));
      if (backend) samples.sandboxed.push(await wholeRun(root, backend));
      samples.firstDirect.push(await firstLine(root, undefined));
      if (backend) samples.firstSandboxed.push(await firstLine(root, backend));
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  const rows: TimingRow[] = [
    timingRow("`true`, unsandboxed (spawn → result)", samples.direct),
    timingRow("first output line, unsandboxed", samples.firstDirect),
  ];
  if (backend) rows.splice(1, 0, timingRow("`true` in bubblewrap (spawn → result)", samples.sandboxed));
  if (backend) rows.push(timingRow("first output line in bubblewrap", samples.firstSandboxed));
  const note = backend ? "" : `\n(no sandbox measured: ${probe.kind === "none" ? probe.reason : ""})`;
  return [
    section(`run_command: the sandbox's cost (median / p90 of ${RUNS} runs)`),
    table(
      ["what", "median", "p90"],
      rows.map((r) => [r.what, r.median, r.p90]),
    ),
    note,
  ].join("\n");
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(await commandRows());
