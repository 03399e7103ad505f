// Wrap mode under a flood: a wrapped server that writes window/logMessage as
// fast as it can while the editor reads nothing for PAUSE_MS. Measured: lockstep's
// peak resident memory over the pause (VmHWM from /proc), and, once the editor
// reads again, how long the requests it sent during the pause took to be
// answered and whether every one was. The figure from before the relay had
// bounds is beside it. LOCKSTEP_TEST_BIN runs another build (an older one).
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { RawEditor } from "../test/relay/raw-editor.js";
import { removeWorkspace } from "../test/support/lsp-client.js";
import type { TimingRow } from "./report.js";
import { projectRoot } from "./start-up.js";

const PAUSE_MS = 10_000;
const REQUESTS = 20;
/** The bench stops a run whose lockstep passes this, so that the unbounded relay cannot sink the machine. */
const ABORT_MB = 1500;
/**
 * Measured with this bench on the relay before its buffers were bounded (2 shared cores, Node 20): two runs,
 * 388 and 469 MB, and still growing when the pause ended (the red team's longer pause reached 1.2 GB).
 */
const BEFORE = { peakMb: 469, note: " and growing (388 in another run)" };

export async function floodRows(): Promise<TimingRow[]> {
  const scripted = path.join(projectRoot(), "test", "relay", "fixtures", "scripted-server.mjs");
  const editor = await RawEditor.start({ "a.ts": "x\n" }, ["--wrap", "--", scripted, "flood"]);
  try {
    await editor.initialize();
    editor.notify("textDocument/didOpen", {
      textDocument: { uri: editor.uri("a.ts"), languageId: "typescript", version: 1, text: "x\n" },
    });
    await editor.waitFor(() => editor.logMessages > 0, "the flood to begin", 20_000).catch(() => undefined);
    const base = editor.memory().rss;
    editor.pause();
    const began = performance.now();
    const answers = Array.from({ length: REQUESTS }, (_, i) =>
      editor
        .request(
          "textDocument/hover",
          { textDocument: { uri: editor.uri("a.ts") }, position: { line: 0, character: i % 2 } },
          undefined,
          PAUSE_MS + 60_000,
        )
        .then(() => performance.now()),
    );
    let aborted = false;
    while (performance.now() - began < PAUSE_MS) {
      await sleep(200);
      if (editor.memory().rss > ABORT_MB) {
        aborted = true;
        break;
      }
    }
    const peak = editor.memory().peak;
    const resumed = performance.now();
    editor.resume();
    const settled = await Promise.allSettled(answers);
    const answered = settled.filter((s) => s.status === "fulfilled").map((s) => s.value - resumed);
    const session = aborted ? undefined : await editor.wrapped().catch(() => undefined);
    const dropped = (session?.["dropped"] as number | undefined) ?? "?";
    const mb = (n: number): string => `${n.toFixed(0)} MB`;
    return [
      {
        what: `flooding child, editor paused ${PAUSE_MS / 1000} s: lockstep peak RSS`,
        runs: 1,
        median: mb(peak),
        p90: "",
        note: `${aborted ? `stopped at ${ABORT_MB} MB; ` : ""}at the pause ${mb(base)}; before bounds: ${BEFORE.peakMb ? mb(BEFORE.peakMb) : "?"}${BEFORE.note}`,
      },
      {
        what: "  its requests sent during the pause, answered after it",
        runs: answered.length,
        median: `${answered.length}/${REQUESTS}`,
        p90: answered.length ? `${Math.max(...answered).toFixed(0)} ms` : "",
        note: `last answer after the editor read again; log messages read ${editor.logMessages}, dropped ${dropped}`,
      },
    ];
  } finally {
    editor.kill();
    await removeWorkspace(editor.root).catch(() => undefined);
  }
}

if (process.argv[1] && import.meta.filename === path.resolve(process.argv[1])) {
  for (const row of await floodRows())
    process.stdout.write(`${row.what}: ${row.median} ${row.p90} (${row.note})\n`);
}
