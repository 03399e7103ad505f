// The LSP front door under random command arguments: workspace/executeCommand
// with names that are and are not lockstep's commands (numbers and empty ones
// among them) and arguments of every JSON shape, sent to a real server one at a
// time. Each must be answered; the slowest answer is reported, and the server
// must still answer read_file after them all.
import { createWorkspace, removeWorkspace, startServer } from "../test/support/lsp-client.js";
import type { Rng } from "./prng.js";

export interface CommandFuzz {
  count: number;
  slowestMs: number;
  slowest: string;
  /** Calls answered after more than `targetMs`. */
  over: number;
  /** Whether the server still answered afterwards. */
  alive: boolean;
}

export async function fuzzCommands(
  rng: Rng,
  toolNames: readonly string[],
  randomValue: (rng: Rng) => unknown,
  count: number,
  targetMs: number,
): Promise<CommandFuzz> {
  const root = await createWorkspace(
    { "a.js": "export const a = 1;\n", "src/b.js": "export const b = 2;\n" },
    "lockstep-fuzz-lsp-",
  );
  // Approval auto: a random write must not wait on a prompt nobody answers.
  const client = await startServer({ root, style: "helix", initializationOptions: { approval: "auto" } });
  const names: unknown[] = [
    ...toolNames.map((n) => `lockstep.${n}`),
    "lockstep.job",
    "lockstep.cancel",
    "lockstep.session",
    "lockstep.nope",
    "",
    42,
    null,
    ["lockstep.read_file"],
  ];
  const result: CommandFuzz = { count: 0, slowestMs: 0, slowest: "", over: 0, alive: false };
  try {
    for (let i = 0; i < count; i++) {
      const params = {
        command: rng.pick(names),
        arguments: rng.chance(0.8) ? [randomValue(rng)] : randomValue(rng),
      };
      const t0 = performance.now();
      // A JSON-RPC error is an answer too; only silence would be a failure, and the loop would wait on it.
      await client.request("workspace/executeCommand", params).catch(() => undefined);
      const ms = performance.now() - t0;
      result.count++;
      if (ms > targetMs) result.over++;
      if (ms > result.slowestMs)
        [result.slowestMs, result.slowest] = [ms, JSON.stringify(params).slice(0, 60)];
    }
    result.alive = (await client.command("read_file", { file_path: "a.js" })).ok;
  } finally {
    await client.shutdown().catch(() => undefined);
    await removeWorkspace(root);
  }
  return result;
}
