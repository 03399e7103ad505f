// What the server adds to every turn: from the moment the endpoint has finished
// streaming turn i to the moment request i+1 arrives, when the turn's only call is
// a cheap read. Measured at a relay in front of the fake endpoint.
import { afterEach, describe, expect, it } from "vitest";
import { median, readCall, startAgent, turn } from "../support/agent-scripts.js";
import { stopAllServers } from "../support/lsp-client.js";

afterEach(stopAllServers);

const TURNS = 30;
const A = ["export function area(w: number, h: number): number {", "  return w * h;", "}", ""].join("\n");

describe("per-turn overhead", () => {
  // A behaviour test: every turn is answered in order. The figure is printed for the notes;
  // speed is not asserted here (benchmarks measure, tests check behaviour).
  it(`is measured over ${TURNS} read-only turns, each answered in order`, async () => {
    const rig = await startAgent({
      files: { "a.ts": A },
      gate: true,
      initializationOptions: { maxTurns: TURNS + 5, maxToolCalls: TURNS + 5 },
      script: (_request, index) =>
        index < TURNS
          ? turn({ text: [`Turn ${index + 1}.`], calls: [readCall("a.ts")] })
          : turn({ text: ["Done."] }),
    });
    await rig.client.open("a.ts");
    const job = await rig.finished(await rig.ask("read a.ts many times"), 30_000);
    expect(job.status).toBe("done");

    const timings = rig.gate!.timings;
    expect(timings).toHaveLength(TURNS + 1);
    const gaps = timings.slice(0, TURNS).map((t, i) => timings[i + 1]!.requestAt - t.answeredAt!);
    const sorted = [...gaps].sort((a, b) => a - b);
    const summary = {
      turns: gaps.length,
      median_ms: Number(median(gaps).toFixed(2)),
      p90_ms: Number(sorted[Math.floor(sorted.length * 0.9)]!.toFixed(2)),
      min_ms: Number(sorted[0]!.toFixed(2)),
      max_ms: Number(sorted.at(-1)!.toFixed(2)),
      first5_median_ms: Number(median(gaps.slice(0, 5)).toFixed(2)),
      last5_median_ms: Number(median(gaps.slice(-5)).toFixed(2)),
    };
    console.log(`lockstep per-turn overhead: ${JSON.stringify(summary)}`);
    expect(gaps.every((g) => g >= 0)).toBe(true);
  });
});
