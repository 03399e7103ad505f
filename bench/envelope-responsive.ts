// How long other requests wait while a 1,000-file apply_patch envelope is applied on the
// disk by a spawned server (an editor without workspace/applyEdit, so the journaled batch
// writes): read_file of a small file sent every few milliseconds meanwhile, the longest and
// the median wait reported beside the same read on an idle server.
// npx tsx bench/envelope-responsive.ts [FILES]; LINES=N each file's lines (40), STYLE=helix an editor
// that takes workspace/applyEdit instead of the disk, RUNS=N (3), PROF=FILE a script the server preloads.
import { createWorkspace, removeWorkspace, startServer } from "../test/support/lsp-client.js";
import { readsDuring, timedRead } from "./reads-during.js";

export interface EnvelopeWaits {
  files: number;
  applyMs: number;
  idleMedianMs: number;
  duringMedianMs: number;
  duringMaxMs: number;
  reads: number;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

export async function envelopeWaits(count = 1_000): Promise<EnvelopeWaits> {
  const files: Record<string, string> = { "small.ts": "export const small = 1;\n" };
  let envelope = "*** Begin Patch\n";
  for (let i = 0; i < count; i++) {
    const lines = Array.from(
      { length: Number(process.env.LINES ?? 40) },
      (_, k) => `export const v${i}_${k} = ${k};`,
    );
    files[`src/d${i % 20}/f${i}.ts`] = lines.join("\n") + "\n";
    envelope += `*** Update File: src/d${i % 20}/f${i}.ts\n@@\n ${lines[19]}\n-${lines[20]}\n+export const v${i}_20 = 2000;\n ${lines[21]}\n`;
  }
  envelope += "*** End Patch\n";
  const root = await createWorkspace(files, "lockstep-bench-envelope-");
  const client = await startServer({
    root,
    style: (process.env.STYLE ?? "no-apply-edit") as "helix",
    initializationOptions: { approval: "auto" },
    ...(process.env.PROF ? { env: { NODE_OPTIONS: `--require ${process.env.PROF}` } } : {}),
  });
  try {
    const idle: number[] = [];
    for (let i = 0; i < 30; i++) idle.push(await timedRead(client));
    const { waits: during, jobMs: applyMs } = await readsDuring(
      client,
      () => client.command("apply_patch", { input: envelope }),
      "the envelope",
      2,
    );
    return {
      files: count,
      applyMs,
      idleMedianMs: median(idle),
      duringMedianMs: median(during),
      duringMaxMs: Math.max(...during),
      reads: during.length,
    };
  } finally {
    await client.shutdown();
    await removeWorkspace(root);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (let run = 0; run < Number(process.env.RUNS ?? 3); run++) {
    const w = await envelopeWaits(Number(process.argv[2] ?? 1_000));
    process.stdout.write(
      `${w.files} files: applied in ${w.applyMs.toFixed(0)} ms; read_file idle median ${w.idleMedianMs.toFixed(1)} ms, during median ${w.duringMedianMs.toFixed(1)} ms, max ${w.duringMaxMs.toFixed(0)} ms (${w.reads} reads)\n`,
    );
  }
}
