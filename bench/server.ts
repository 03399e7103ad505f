// The language server as an editor meets it: start-up, a safe_patch round trip
// on a big open buffer, read_many_files over many files, and the memory held
// for many open documents. Drives the real process with the test client
// (test/support/lsp-client.ts, compiled beside this file by tsconfig.build.json).
// Run: `npm run build && node dist/bench/server.js [start|patch|read|memory]...` (all by default).
import path from "node:path";
import {
  createWorkspace,
  removeWorkspace,
  sha256,
  startServer,
  stateOf,
  type Envelope,
  type TestClient,
} from "../test/support/lsp-client.js";
import { MinimalClient } from "./minimal-client.js";
import { cpuMs, rss } from "./proc.js";
import { timingRow, type TimingRow } from "./report.js";
import { projectRoot, startUpRows } from "./start-up.js";

const PATCHES = 200;
const READ_RUNS = 15;
const READ_FILES = 500;
const OPEN_DOCS = 1000;
const DOC_LINES = 1000;

type Row = TimingRow;

function mb(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

function log(message: string): void {
  process.stderr.write(`[bench:server] ${message}\n`);
}

/** A line of code-like text, a different one for each (file, line). */
function codeLine(file: number, line: number): string {
  return `    const value_${file}_${line} = compute(${line}, "item-${(file * 7919 + line) % 10007}"); // line ${line}`;
}

/** What the round trip needs of a client, whichever it is. */
interface PatchingClient {
  pid: number;
  /** The open buffer's text as the client holds it. */
  text(): string;
  safePatch(arg: Record<string, unknown>): Promise<Envelope>;
  close(): Promise<void>;
}

const BIG_FILE = "src/big.ts";

async function testClient(root: string): Promise<PatchingClient> {
  const client = await startServer({ root, style: "helix" });
  await client.open(BIG_FILE);
  return {
    pid: client.pid,
    text: () => client.buffer(BIG_FILE)!.text,
    safePatch: (arg) => client.command("safe_patch", arg),
    close: async () => {
      await client.shutdown();
    },
  };
}

async function minimalClient(root: string, text: string): Promise<PatchingClient> {
  const client = await MinimalClient.start(path.join(projectRoot(), "bin", "lockstep.js"), root);
  client.open(BIG_FILE, text);
  return {
    pid: client.pid,
    text: () => client.text,
    safePatch: async (arg) =>
      (await client.request("workspace/executeCommand", {
        command: "lockstep.safe_patch",
        arguments: [arg],
      })) as Envelope,
    close: () => client.close(),
  };
}

async function patchRoundTrip(kind: "test" | "minimal"): Promise<Row> {
  const lines = Array.from({ length: 2000 }, (_, i) => codeLine(0, i + 1));
  const text = lines.join("\n") + "\n";
  const root = await createWorkspace({ [BIG_FILE]: text }, "lockstep-bench-patch-");
  const client = kind === "test" ? await testClient(root) : await minimalClient(root, text);
  const samples: number[] = [];
  let serverCpu = 0;
  try {
    const cpuStart = await cpuMs(client.pid);
    for (let i = 0; i < PATCHES; i++) {
      const current = client.text().split("\n");
      const at = 20 + ((i * 37) % 1950); // 0-based line to change, with context on both sides
      const context = (from: number, to: number): string[] => current.slice(from, to).map((l) => " " + l);
      const diff =
        [
          "@@ @@",
          ...context(at - 10, at),
          "-" + current[at]!,
          "+" + current[at]! + ` // patched ${i}`,
          ...context(at + 1, at + 11),
        ].join("\n") + "\n";
      // The agent knows its base hash from the previous answer: it is not part of the round trip.
      const base = sha256(client.text());
      const began = performance.now();
      const result = await client.safePatch({
        file_path: BIG_FILE,
        unified_diff: diff,
        base_content_sha256: base,
      });
      samples.push(performance.now() - began);
      if (!result.ok) throw new Error(`patch ${i} failed: ${JSON.stringify(result.error)}`);
      if (stateOf(result).sha256 !== sha256(client.text()))
        throw new Error(`patch ${i}: the buffer is not what the server reports`);
    }
    serverCpu = (await cpuMs(client.pid)) - cpuStart;
  } finally {
    await client.close();
    await removeWorkspace(root);
  }
  const perPatch = (serverCpu / PATCHES).toFixed(1);
  const who =
    kind === "test" ? "test client (vscode-jsonrpc, Helix-like)" : "minimal client (bench/minimal-client.ts)";
  return timingRow(
    `safe_patch round trip, open 2,000-line buffer, ${kind} client`,
    samples,
    `${who}: applies, didChange, reply; server CPU ${perPatch} ms a patch`,
  );
}

async function readMany(): Promise<Row> {
  const files: Record<string, string> = {};
  let bytes = 0;
  for (let f = 0; f < READ_FILES; f++) {
    const lineCount = 18 + ((f * 13) % 32); // 1–3 KB each
    const text = Array.from({ length: lineCount }, (_, l) => codeLine(f, l + 1)).join("\n") + "\n";
    files[`src/mod${String(f).padStart(3, "0")}.ts`] = text;
    bytes += Buffer.byteLength(text);
  }
  const root = await createWorkspace(files, "lockstep-bench-read-");
  const client = await startServer({ root, style: "helix" });
  const samples: number[] = [];
  try {
    for (let i = 0; i < READ_RUNS; i++) {
      const began = performance.now();
      const result = await client.command("read_many_files", { file_paths: ["src/*.ts"] });
      samples.push(performance.now() - began);
      const count = (result.data?.["files"] as unknown[] | undefined)?.length;
      if (!result.ok || count !== READ_FILES)
        throw new Error(
          `read_many_files read ${String(count)} files: ${JSON.stringify(result).slice(0, 300)}`,
        );
    }
  } finally {
    await client.shutdown();
    await removeWorkspace(root);
  }
  return timingRow(
    `read_many_files, ${READ_FILES} files from disk`,
    samples,
    `${mb(bytes)} in all, with progress`,
  );
}

async function memory(): Promise<Row[]> {
  const root = await createWorkspace({}, "lockstep-bench-memory-");
  const client: TestClient = await startServer({ root, style: "helix" });
  try {
    await client.command("session", {});
    const idle = await rss(client.pid);
    let textBytes = 0;
    for (let f = 0; f < OPEN_DOCS; f++) {
      const text = Array.from({ length: DOC_LINES }, (_, l) => codeLine(f, l + 1)).join("\n") + "\n";
      textBytes += Buffer.byteLength(text);
      await client.open(`src/doc${String(f).padStart(4, "0")}.ts`, text);
    }
    // A round trip: every didOpen before it has been handled.
    const probe = await client.command("read_file", {
      file_path: `src/doc${String(OPEN_DOCS - 1).padStart(4, "0")}.ts`,
    });
    if (!probe.ok) throw new Error(`read_file failed: ${JSON.stringify(probe.error)}`);
    const loaded = await rss(client.pid);
    const target = 2 * textBytes + 60 * 1024 * 1024;
    const verdict = loaded <= target ? "within" : "OVER";
    return [
      { what: "server RSS after initialize", runs: 1, median: mb(idle), p90: "", note: "" },
      {
        what: `server RSS, ${OPEN_DOCS} open ${DOC_LINES}-line documents`,
        runs: 1,
        median: mb(loaded),
        p90: "",
        note: `text ${mb(textBytes)}; target 2×text + 60 MB = ${mb(target)}: ${verdict}`,
      },
    ];
  } finally {
    await client.shutdown();
    await removeWorkspace(root);
  }
}

function print(rows: Row[]): void {
  const header: Row = { what: "measure", runs: 0, median: "median", p90: "p90", note: "" };
  const cells = (r: Row): string[] => [
    r.what,
    r === header ? "runs" : String(r.runs),
    r.median,
    r.p90,
    r.note,
  ];
  const all = [header, ...rows].map(cells);
  const widths = all[0]!.map((_, c) => Math.max(...all.map((row) => row[c]!.length)));
  const line = (row: string[]): string =>
    row
      .map((cell, c) => (c === 1 || c === 2 || c === 3 ? cell.padStart(widths[c]!) : cell.padEnd(widths[c]!)))
      .join("  ")
      .trimEnd();
  process.stdout.write(
    [line(all[0]!), widths.map((w) => "-".repeat(w)).join("  "), ...all.slice(1).map(line)].join("\n") + "\n",
  );
}

const SECTIONS: Record<string, { label: string; run: () => Promise<Row | Row[]> }> = {
  start: { label: "start-up", run: () => startUpRows() },
  patch: {
    label: "safe_patch round trips",
    run: async () => [await patchRoundTrip("test"), await patchRoundTrip("minimal")],
  },
  read: { label: "read_many_files", run: readMany },
  memory: { label: "memory with open documents", run: memory },
  companion: {
    label: "read_file over MCP against LSP",
    run: async () => (await import("./companion.js")).companionRows(),
  },
  responsive: {
    label: "read_file while a large patch runs",
    run: async () => (await import("./responsive.js")).responsiveRows(),
  },
  relay: {
    label: "wrap mode: hover through lockstep against the wrapped server directly; diagnostics_after's wait",
    run: async () => (await import("./relay.js")).relayRows(),
  },
  flood: {
    label: "wrap mode: a child flooding log messages while the editor reads nothing (peak RSS)",
    run: async () => (await import("./relay-flood.js")).floodRows(),
  },
  search: {
    label: "search_files, find_files, read_many_files against rg, git grep and cat; history bytes",
    run: async () => (await import("./search.js")).searchRows(),
  },
  acp: {
    label: "lockstep acp: prompt to first update; reads and writes through the client against the disk",
    run: async () => (await import("./acp.js")).acpRows(),
  },
  sessions: {
    label: "session store: write per turn, resume of a 200-turn session",
    run: async () => (await import("./sessions.js")).sessionsRows(),
  },
  didchange: {
    label: "a didChange of 13,000 changes against vscode-languageserver-textdocument",
    run: async () => (await import("./did-change.js")).didChangeRows(),
  },
};

/** `node dist/bench/server.js [start|patch|read|memory]...`: the named sections, or all. */
async function main(names: string[]): Promise<void> {
  const unknown = names.filter((n) => !(n in SECTIONS));
  if (unknown.length > 0)
    throw new Error(
      `unknown section ${unknown.join(", ")}; the sections are ${Object.keys(SECTIONS).join(", ")}`,
    );
  const began = performance.now();
  const rows: Row[] = [];
  for (const [name, section] of Object.entries(SECTIONS)) {
    if (names.length > 0 && !names.includes(name)) continue;
    log(section.label);
    rows.push(...[await section.run()].flat());
  }
  print(rows);
  log(
    `done in ${((performance.now() - began) / 1000).toFixed(1)} s (node ${process.version}, ${process.platform})`,
  );
}

await main(process.argv.slice(2));
