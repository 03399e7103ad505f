// read_file of an open buffer through the companion endpoint (MCP over
// Streamable HTTP, the real SDK client, as an agent in a terminal calls it)
// against the same command over LSP (workspace/executeCommand from the test
// editor), one server, the two interleaved so both see the same machine state.
// Also the first MCP call of a session, which loads the MCP SDK in the server.
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { AgentClient, companionFacts, readDiscovery } from "../test/support/companion-client.js";
import {
  createWorkspace,
  removeWorkspace,
  startServer,
  stateOf,
  type Envelope,
} from "../test/support/lsp-client.js";
import { median, timingRow, type TimingRow } from "./report.js";

const RUNS = 200;
const SIZES = [20, 2000];

function codeLine(line: number): string {
  return `    const value_${line} = compute(${line}, "item-${(line * 7919) % 10007}"); // line ${line}`;
}

export async function companionRows(): Promise<TimingRow[]> {
  const tmp = realpathSync(mkdtempSync(path.join(os.tmpdir(), "lockstep-bench-companion-")));
  const files = Object.fromEntries(
    SIZES.map((n) => [
      `src/f${n}.ts`,
      Array.from({ length: n }, (_, i) => codeLine(i + 1)).join("\n") + "\n",
    ]),
  );
  const root = await createWorkspace(files, "lockstep-bench-companion-ws-");
  const client = await startServer({ root, style: "helix", env: { TMPDIR: tmp } });
  const rows: TimingRow[] = [];
  try {
    for (const rel of Object.keys(files)) await client.open(rel);
    const port = Number((await companionFacts(client))["port"]);
    const { info } = await readDiscovery(tmp, process.pid, port);
    const first = performance.now();
    const agent = await AgentClient.connect(port, info.authToken, "bench");
    await agent.envelope("read_file", { file_path: "src/f20.ts" });
    rows.push(
      timingRow(
        "companion: connect + first MCP read_file",
        [performance.now() - first],
        "loads the MCP SDK in the server (outside the bundle)",
      ),
    );
    for (const n of SIZES) {
      const rel = `src/f${n}.ts`;
      const lsp: number[] = [];
      const mcp: number[] = [];
      const check = (e: Envelope): void => {
        if (stateOf(e).version !== 1)
          throw new Error(
            `read_file of ${rel} did not return the open buffer: ${JSON.stringify(e).slice(0, 200)}`,
          );
      };
      for (let i = 0; i < RUNS; i++) {
        let began = performance.now();
        check(await client.command("read_file", { file_path: rel }));
        lsp.push(performance.now() - began);
        began = performance.now();
        check(await agent.envelope("read_file", { file_path: rel }));
        mcp.push(performance.now() - began);
      }
      const added = median(mcp) - median(lsp);
      rows.push(
        timingRow(`read_file, open ${n}-line buffer, over LSP`, lsp, "workspace/executeCommand, test client"),
      );
      rows.push(
        timingRow(
          `read_file, open ${n}-line buffer, over MCP`,
          mcp,
          `companion endpoint, SDK client; +${added.toFixed(2)} ms median over LSP`,
        ),
      );
    }
    await agent.close();
  } finally {
    await client.shutdown();
    await removeWorkspace(root);
    rmSync(tmp, { recursive: true, force: true });
  }
  return rows;
}
