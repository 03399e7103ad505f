// The agent's first request with the user's MCP servers: `lockstep ask` from its start to the
// model's first request, with no server configured and with five stdio servers (the MCP SDK's,
// started lazily, all at once, before that request). Run: node dist/bench/mcp-start.js
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { startFakeOpenAi } from "../test/support/fake-openai.js";
import { fixed, median, section, table } from "./report.js";

const RUNS = 7;
const ROOT = process.cwd();

async function firstRequestMs(servers: number): Promise<number> {
  const dir = mkdtempSync(path.join(tmpdir(), "lockstep-bench-mcp-"));
  try {
    mkdirSync(path.join(dir, "config", "lockstep"), { recursive: true });
    mkdirSync(path.join(dir, "project"));
    const shout = path.join(ROOT, "test/acp/fixtures/shout-mcp-server.mjs");
    const mcpServers = Object.fromEntries(
      Array.from({ length: servers }, (_, i) => [`s${i}`, { command: process.execPath, args: [shout] }]),
    );
    writeFileSync(path.join(dir, "config", "lockstep", "config.json"), JSON.stringify({ mcpServers }));
    const fake = await startFakeOpenAi([{ text: "ok" }]);
    const env = {
      PATH: process.env["PATH"],
      HOME: dir,
      XDG_CONFIG_HOME: path.join(dir, "config"),
      XDG_STATE_HOME: path.join(dir, "state"),
    };
    const t0 = performance.now();
    const child = spawn(
      process.execPath,
      [
        path.join(ROOT, "bin/lockstep.js"),
        "ask",
        "--root",
        path.join(dir, "project"),
        "--provider",
        "openai",
        "--base-url",
        fake.url,
        "--model",
        "fake",
        "hi",
      ],
      { env, stdio: "ignore" },
    );
    await new Promise((resolve) => child.on("close", resolve));
    await fake.close();
    const first = fake.timings[0]?.requestAt;
    if (first === undefined || fake.requests[0] === undefined) throw new Error("the model was never asked");
    const offered = ((fake.requests[0]["tools"] ?? []) as unknown[]).length;
    if (servers > 0 && offered === 0) throw new Error("no MCP tool offered");
    return first - t0;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const rows: string[][] = [];
for (const servers of [0, 1, 5]) {
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) times.push(await firstRequestMs(servers));
  times.sort((a, b) => a - b);
  rows.push([String(servers), fixed(median(times)), fixed(times[0]!), fixed(times[times.length - 1]!)]);
}
process.stdout.write(
  section("lockstep ask: start to the model's first request (ms)") +
    "\n" +
    table(["MCP servers", "median", "min", "max"], rows) +
    "\n",
);
