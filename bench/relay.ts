// Wrap mode's cost: a hover round trip through lockstep (`--wrap --
// typescript-language-server --stdio`) against the same request sent to the
// same server directly, one client code for both and the two interleaved so
// both see the same machine; a burst of 1,000 hovers sent at once to each; and
// how long diagnostics_after waits for the wrapped server's list after a write.
import { spawn } from "node:child_process";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { PassThrough } from "node:stream";
import {
  createMessageConnection,
  StreamMessageReader,
  StreamMessageWriter,
  type MessageConnection,
} from "vscode-jsonrpc/node.js";
import { readFrames } from "../server/src/jsonrpc/framing.js";
import { createWorkspace, removeWorkspace, sha256, startServer } from "../test/support/lsp-client.js";
import { cpuMs } from "./proc.js";
import { fixed, median, timingRow, type TimingRow } from "./report.js";
import { projectRoot } from "./start-up.js";

const HOVERS = 1000;
const BURST = 1000;
const BURSTS = 15;
const WRITES = 20;
/** The wrapped server: typescript-language-server, a development dependency. */
const tsls = (): string => path.join(projectRoot(), "node_modules", ".bin", "typescript-language-server");
const TEXT =
  Array.from({ length: 200 }, (_, i) => `export const value${i}: number = ${i} * 2;`).join("\n") + "\n";

interface Server {
  pid: number;
  connection: MessageConnection;
  uri: string;
  end(): Promise<void>;
}

/** A plain client over a spawned server's stdio: initialize, one open document, requests. */
async function connect(command: string, args: string[], root: string): Promise<Server> {
  const child = spawn(command, args, { stdio: ["pipe", "pipe", "ignore"] });
  const connection = createMessageConnection(
    new StreamMessageReader(child.stdout),
    new StreamMessageWriter(child.stdin),
  );
  // What the servers ask of an editor, answered as an editor without those features would.
  connection.onRequest((method) =>
    method === "workspace/configuration"
      ? []
      : method === "workspace/workspaceFolders"
        ? [{ uri: pathToFileURL(root).href, name: "bench" }]
        : null,
  );
  connection.onNotification(() => undefined);
  connection.listen();
  const rootUri = pathToFileURL(root).href;
  await connection.sendRequest("initialize", {
    processId: process.pid,
    rootUri,
    workspaceFolders: [{ uri: rootUri, name: "bench" }],
    capabilities: {},
    initializationOptions: { lockstep: { approval: "auto" } },
  });
  await connection.sendNotification("initialized", {});
  const uri = pathToFileURL(path.join(root, "src/a.ts")).href;
  await connection.sendNotification("textDocument/didOpen", {
    textDocument: { uri, languageId: "typescript", version: 1, text: TEXT },
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return {
    pid: child.pid ?? -1,
    connection,
    uri,
    end: async () => {
      await connection.sendRequest("shutdown").catch(() => undefined);
      await connection.sendNotification("exit").catch(() => undefined);
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
      connection.dispose();
      child.kill("SIGKILL");
    },
  };
}

const hover = (s: Server, line: number): Promise<unknown> =>
  s.connection.sendRequest("textDocument/hover", {
    textDocument: { uri: s.uri },
    position: { line, character: 14 },
  });

async function timed(run: () => Promise<unknown>): Promise<number> {
  const began = performance.now();
  await run();
  return performance.now() - began;
}

async function hoverRows(root: string): Promise<TimingRow[]> {
  const direct = await connect(tsls(), ["--stdio"], root);
  const wrapped = await connect(
    process.execPath,
    [path.join(projectRoot(), "bin", "lockstep.js"), "--stdio", "--wrap", "--", tsls(), "--stdio"],
    root,
  );
  try {
    // Warm both: the first hovers load the project in each server's tsserver.
    for (let i = 0; i < 50; i++) await Promise.all([hover(direct, i), hover(wrapped, i)]);
    const d: number[] = [];
    const w: number[] = [];
    for (let i = 0; i < HOVERS; i++) {
      const line = i % 200;
      // Alternate which goes first, so neither always meets a warmer cache.
      if (i % 2 === 0) {
        d.push(await timed(() => hover(direct, line)));
        w.push(await timed(() => hover(wrapped, line)));
      } else {
        w.push(await timed(() => hover(wrapped, line)));
        d.push(await timed(() => hover(direct, line)));
      }
    }
    const bd: number[] = [];
    const bw: number[] = [];
    const burst = (s: Server): Promise<unknown> =>
      Promise.all(Array.from({ length: BURST }, (_, i) => hover(s, i % 200)));
    let relayCpu = 0;
    for (let i = 0; i < BURSTS; i++) {
      bd.push(await timed(() => burst(direct)));
      const cpu = await cpuMs(wrapped.pid);
      bw.push(await timed(() => burst(wrapped)));
      relayCpu += (await cpuMs(wrapped.pid)) - cpu;
    }
    const added = median(w) - median(d);
    const burstRatio = median(bw) / median(bd);
    return [
      timingRow("hover, typescript-language-server directly", d, "the peer: the same client, no lockstep"),
      timingRow("hover, through lockstep --wrap", w, `+${fixed(added, 2)} ms median over direct`),
      timingRow(`${BURST} hovers at once, directly`, bd, "until the last answer"),
      timingRow(
        `${BURST} hovers at once, through lockstep --wrap`,
        bw,
        `${fixed((burstRatio - 1) * 100)}% over direct; lockstep's own CPU ${fixed(relayCpu / BURSTS, 0)} ms a burst`,
      ),
    ];
  } finally {
    await direct.end();
    await wrapped.end();
  }
}

/** write_file in wrap mode, breaking and fixing a type, with and without waiting for the server's diagnostics. */
async function diagnosticsRows(root: string): Promise<TimingRow[]> {
  const rows: TimingRow[] = [];
  for (const waitMs of [1500, 0]) {
    const client = await startServer({
      root,
      style: "helix",
      args: ["--wrap", "--", tsls(), "--stdio"],
      initializationOptions: { lockstep: { approval: "auto", diagnosticsWaitMs: waitMs } },
    });
    try {
      await client.open("src/b.ts", undefined, "typescript");
      // The server's first list for a document comes after it has loaded the project (1-2 s): wait for it, then measure.
      await client.waitForNotification(
        "textDocument/publishDiagnostics",
        (p) => (p as { uri: string }).uri === client.uri("src/b.ts"),
        20_000,
      );
      const samples: number[] = [];
      const statuses = new Map<string, number>();
      let text = "export const b: number = 1;\n";
      for (let i = 0; i < WRITES; i++) {
        const next = i % 2 === 0 ? "export const b: number = 'one';\n" : "export const b: number = 1;\n";
        const began = performance.now();
        const result = await client.command("write_file", {
          file_path: "src/b.ts",
          content: next,
          base_content_sha256: sha256(text),
        });
        samples.push(performance.now() - began);
        if (!result.ok) throw new Error(`write_file failed: ${JSON.stringify(result).slice(0, 300)}`);
        const status = String((result.data["diagnostics_after"] as { status?: string } | undefined)?.status);
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
        text = next;
      }
      const seen = [...statuses].map(([s, n]) => `${n} ${s}`).join(", ");
      rows.push(
        timingRow(
          `write_file in wrap mode, diagnosticsWaitMs ${waitMs}`,
          samples,
          waitMs > 0 ? `diagnostics_after: ${seen}` : "no wait: the write alone",
        ),
      );
    } finally {
      await client.shutdown(10_000);
    }
  }
  return rows;
}

/** One large body in 64 KB chunks, read by the relay's framing and by vscode-jsonrpc's reader (the peer). */
async function framingRows(): Promise<TimingRow[]> {
  const body = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    result: { items: Array.from({ length: 200_000 }, (_, i) => ({ label: `item${i}`, kind: 6 })) },
  });
  const bytes = Buffer.concat([
    Buffer.from(`Content-Length: ${Buffer.byteLength(body)}\r\n\r\n`),
    Buffer.from(body),
  ]);
  const feed = (input: PassThrough): void => {
    for (let at = 0; at < bytes.length; at += 65536) input.write(bytes.subarray(at, at + 65536));
  };
  const ours: number[] = [];
  const peer: number[] = [];
  for (let run = 0; run < 10; run++) {
    let began = performance.now();
    await new Promise<void>((resolve, reject) => {
      const input = new PassThrough();
      readFrames(
        input,
        () => resolve(),
        (why) => reject(new Error(why)),
      );
      feed(input);
    });
    ours.push(performance.now() - began);
    began = performance.now();
    await new Promise<void>((resolve) => {
      const input = new PassThrough();
      new StreamMessageReader(input).listen(() => resolve());
      feed(input);
    });
    peer.push(performance.now() - began);
  }
  const mb = (bytes.length / 1024 / 1024).toFixed(1);
  return [
    timingRow(`a ${mb} MB answer in 64 KB chunks, vscode-jsonrpc's reader`, peer, "the peer: parses it"),
    timingRow(
      `a ${mb} MB answer in 64 KB chunks, the relay's framing`,
      ours,
      `parses it and keeps its bytes; ${fixed(median(ours) / median(peer), 2)}x the peer`,
    ),
  ];
}

export async function relayRows(): Promise<TimingRow[]> {
  const root = await createWorkspace(
    {
      "tsconfig.json": '{ "compilerOptions": { "strict": true } }\n',
      "src/a.ts": TEXT,
      "src/b.ts": "export const b: number = 1;\n",
    },
    "lockstep-bench-relay-",
  );
  try {
    return [...(await hoverRows(root)), ...(await framingRows()), ...(await diagnosticsRows(root))];
  } finally {
    await removeWorkspace(root);
  }
}
