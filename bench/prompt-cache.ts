// `node dist/bench/prompt-cache.js`: what Claude's prompt cache changes over a 30-turn session.
// The real adapter (real @anthropic-ai/sdk) and the real turn loop, with lockstep's own tool
// declarations and system prompt, against the fake Messages endpoint whose usage accounting
// models the cache (test/support/fake-anthropic.ts: a prefix up to a breakpoint is remembered,
// found again from a later breakpoint up to 20 blocks after it; the longest found is read, the
// rest to the last breakpoint written; ~4 characters a token). Two sessions: 29 reads of different files then an answer, and 29 edits of one file
// (each edit's answer carries the file's new state, so the older ones become markers and the
// history before them changes). Each with the cache breakpoints on and off. Priced as the API
// prices input: a cache read 0.1, a cache write 1.25, the rest 1.
import { createHash } from "node:crypto";
import type { Envelope } from "../server/src/tools/envelope.js";
import { createAnthropicModel } from "../server/src/agent/providers/anthropic.js";
import { buildSystemPrompt } from "../server/src/agent/system-prompt.js";
import { runTurnLoop, type ToolRunner } from "../server/src/agent/turn-loop.js";
import { functionDeclarations } from "../server/src/tools/registry.js";
import { startFakeAnthropic, type UsageFigures } from "../test/support/fake-anthropic.js";

const TURNS = 30;
const FILE = Array.from(
  { length: 60 },
  (_, i) => `export const value${i} = compute(${i}, "a line of about sixty characters");`,
).join("\n");

type Scenario = "reads" | "edits";

function runner(scenario: Scenario): ToolRunner {
  let edits = 0;
  return {
    declarations: () => functionDeclarations(),
    run: (call): Promise<Envelope> => {
      const file = String(call.args["file_path"]);
      const content =
        scenario === "edits" ? FILE.replace("value0 ", `value0_${++edits} `) : `// ${file}\n${FILE}`;
      const state = {
        file_path: file,
        version: edits,
        sha256: createHash("sha256").update(content).digest("hex"),
        content,
      };
      return Promise.resolve(
        scenario === "edits"
          ? { ok: true, data: { applied: true, latest_file_state: state } }
          : { ok: true, data: state },
      );
    },
  };
}

async function session(scenario: Scenario, cache: boolean): Promise<UsageFigures[]> {
  const fake = await startFakeAnthropic((i) =>
    i < TURNS - 1
      ? {
          text: `Step ${i + 1}.`,
          calls: [
            {
              name: scenario === "reads" ? "read_file" : "edit",
              args: {
                file_path: scenario === "reads" ? `src/f${i}.ts` : "src/app.ts",
                old_string: "a",
                new_string: "b",
              },
            },
          ],
        }
      : { text: "Done." },
  );
  try {
    const model = createAnthropicModel({
      baseUrl: fake.url,
      env: { ANTHROPIC_API_KEY: "bench-key-0123456789" },
      cache,
    });
    const result = await runTurnLoop({
      model,
      tools: runner(scenario),
      system: buildSystemPrompt("", false),
      history: [],
      prompt: [{ text: "Work through the files." }],
      limits: { maxTurns: TURNS, maxToolCalls: TURNS },
      signal: new AbortController().signal,
    });
    if (result.status !== "done")
      throw new Error(`the ${scenario} session ended ${result.status}: ${result.error?.message ?? ""}`);
    return fake.usage;
  } finally {
    await fake.close();
  }
}

const sum = (rows: UsageFigures[], f: (u: UsageFigures) => number): number =>
  rows.reduce((s, u) => s + f(u), 0);
const sent = (u: UsageFigures): number =>
  u.input_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens;
const priced = (u: UsageFigures): number =>
  u.input_tokens + 1.25 * u.cache_creation_input_tokens + 0.1 * u.cache_read_input_tokens;
const k = (n: number): string => `${(n / 1000).toFixed(1)}k`;

async function main(): Promise<void> {
  const lines = [
    `Prompt cache over a ${TURNS}-request session (tokens ≈ characters / 4, summed over the requests)`,
    "",
  ];
  lines.push(
    "| session | cache | tokens sent | read from cache | written to cache | uncached | input priced as uncached tokens |",
  );
  lines.push("|---|---|---|---|---|---|---|");
  for (const scenario of ["reads", "edits"] as const) {
    for (const cache of [false, true]) {
      const rows = await session(scenario, cache);
      const label = scenario === "reads" ? "29 reads of different files" : "29 edits of one file";
      lines.push(
        `| ${label} | ${cache ? "on" : "off"} | ${k(sum(rows, sent))} | ${k(sum(rows, (u) => u.cache_read_input_tokens))} | ${k(sum(rows, (u) => u.cache_creation_input_tokens))} | ${k(sum(rows, (u) => u.input_tokens))} | ${k(sum(rows, priced))} |`,
      );
      if (cache && scenario === "reads")
        lines.push(
          `|  | per request, last | ${k(sent(rows.at(-1)!))} | ${k(rows.at(-1)!.cache_read_input_tokens)} | ${k(rows.at(-1)!.cache_creation_input_tokens)} | ${k(rows.at(-1)!.input_tokens)} | ${k(priced(rows.at(-1)!))} |`,
        );
    }
  }
  process.stdout.write(lines.join("\n") + "\n");
}

await main();
