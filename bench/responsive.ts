// How long a small command waits while one large operation runs on the same
// server: read_file of a small file, sent every few milliseconds while a
// 20,000-hunk safe_patch (dry run) is computed, then while 1,000 edit blocks are
// applied to a 40,000-line file, beside the same read_file on an idle server. The
// large jobs run in a worker thread; the target is under 50 ms.
import { monitorEventLoopDelay } from "node:perf_hooks";
import { CancellationTokenSource } from "vscode-jsonrpc/node.js";
import { createWorkspace, removeWorkspace, sha256, startServer } from "../test/support/lsp-client.js";
import { readsDuring, timedRead } from "./reads-during.js";
import { timingRow, type TimingRow } from "./report.js";

const HUNKS = 20_000;
const BLOCKS = 1_000;

export async function responsiveRows(): Promise<TimingRow[]> {
  const lines = Array.from({ length: HUNKS * 3 + 3 }, (_, i) => `const v${i} = ${i};`);
  const text = lines.join("\n") + "\n";
  let diff = "";
  for (let k = 0; k < HUNKS; k++) {
    const at = 1 + k * 3;
    diff += `@@ @@\n ${lines[at - 1]}\n-${lines[at]}\n+const v${at} = ${at} + 1;\n ${lines[at + 1]}\n`;
  }
  const blocksFile = lines.slice(0, 40_000).join("\n") + "\n";
  const root = await createWorkspace(
    { "big.ts": text, "blocks.ts": blocksFile, "small.ts": "export const small = 1;\n" },
    "lockstep-bench-responsive-",
  );
  const client = await startServer({ root, style: "helix" });
  try {
    const idle: number[] = [];
    for (let i = 0; i < 30; i++) idle.push(await timedRead(client));
    // This process is the client: its own stalls (sending 2 MB, parsing the 3 MB answer) count in every read it times.
    const clientStall = monitorEventLoopDelay({ resolution: 1 });
    clientStall.enable();
    const { waits: during, jobMs: patchMs } = await readsDuring(
      client,
      () =>
        client.command("safe_patch", {
          file_path: "big.ts",
          unified_diff: diff,
          base_content_sha256: sha256(text),
          dry_run: true,
        }),
      "the large patch",
      5,
    );
    clientStall.disable();
    const stallMs = clientStall.max / 1e6;
    // The same with edit blocks: each searches the file, so many of them on a large file are long work too.
    const blockLines = lines.slice(0, 40_000);
    const blocksText = Array.from({ length: BLOCKS }, (_, k) => {
      const at = 1 + k * 39;
      return `blocks.ts\n««« EDIT\n${blockLines[at - 1]}\n${blockLines[at]}\n═══════ REPL\n${blockLines[at - 1]}\n${blockLines[at]} // ${k}\n»»» EDIT END\n`;
    }).join("\n");
    const { waits: blocksDuring, jobMs: blocksMs } = await readsDuring(
      client,
      () => client.command("apply_edit_blocks", { text: blocksText, dry_run: true }),
      "the edit blocks",
      5,
    );
    // Cancelled 100 ms in: the worker is terminated, so the answer comes at once rather than when the patch would end.
    const cancels: number[] = [];
    for (let i = 0; i < 5; i++) {
      const source = new CancellationTokenSource();
      const params = {
        command: "lockstep.safe_patch",
        arguments: [
          { file_path: "big.ts", unified_diff: diff, base_content_sha256: sha256(text), dry_run: true },
        ],
      };
      const answer = client.connection
        .sendRequest("workspace/executeCommand", params, source.token)
        .catch(() => undefined);
      await new Promise((r) => setTimeout(r, 100));
      const cancelledAt = performance.now();
      source.cancel();
      await answer;
      cancels.push(performance.now() - cancelledAt);
    }
    return [
      timingRow("read_file, idle server", idle),
      timingRow(
        `$/cancelRequest to the answer, ${HUNKS}-hunk patch`,
        cancels,
        `cancelled 100 ms in; uncancelled the patch takes ${patchMs.toFixed(0)} ms`,
      ),
      timingRow(
        `read_file while a ${HUNKS}-hunk patch runs`,
        during,
        `slowest ${Math.max(...during).toFixed(1)} ms (the client's own longest stall ${stallMs.toFixed(0)} ms); the patch took ${patchMs.toFixed(0)} ms (dry run, ${(diff.length / 1e6).toFixed(1)} MB diff, worker thread); target < 50 ms`,
      ),
      timingRow(
        `read_file while ${BLOCKS} edit blocks run`,
        blocksDuring,
        `slowest ${Math.max(...blocksDuring).toFixed(1)} ms; the blocks took ${blocksMs.toFixed(0)} ms (dry run, a 40,000-line file, worker thread); target < 50 ms`,
      ),
    ];
  } finally {
    await client.shutdown();
    await removeWorkspace(root);
  }
}
