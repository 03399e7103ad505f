// The agent on an OpenAI-compatible endpoint as a user runs it: `lockstep ask
// --provider openai --base-url … --model …` spawns the server, which loads the
// real openai package and talks to a fake endpoint on loopback. A read, a patch
// built on the sha256 it returned, and an answer; no key needed for a local server.
import { promises as fs } from "node:fs";
import path from "node:path";
import { createPatch } from "diff";
import { afterEach, describe, expect, it } from "vitest";
import { startFakeOpenAi, type FakeAnswer, type FakeOpenAi } from "../support/fake-openai.js";
import { runAsk } from "../support/run-ask.js";
import { sha256Of, tempDir } from "../support/workspace-fixture.js";

let fake: FakeOpenAi | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

const ask = runAsk;

describe("lockstep ask with provider openai", () => {
  it("reads, patches on the sha256 it read, and answers, against a local endpoint without a key", async () => {
    const root = await fs.realpath(tempDir("lockstep-openai-"));
    const before = "export function area(w: number, h: number): number {\n  return w * h;\n}\n";
    const after = before.replace("return w * h;", "return h * w;");
    await fs.writeFile(path.join(root, "area.ts"), before);
    fake = await startFakeOpenAi([
      { text: "Reading the file.", calls: [{ name: "read_file", args: { file_path: "area.ts" } }] },
      {
        calls: [
          {
            name: "safe_patch",
            args: {
              file_path: "area.ts",
              unified_diff: createPatch("area.ts", before, after),
              base_content_sha256: sha256Of(before),
            },
          },
        ],
      },
      { text: "Swapped the factors." },
    ]);
    const env = { ...process.env, OPENAI_API_KEY: "", GEMINI_API_KEY: "", GOOGLE_API_KEY: "" };
    const run = await ask(
      root,
      [
        "--provider",
        "openai",
        "--base-url",
        fake.url,
        "--model",
        "qwen2.5-coder:7b",
        "--yes",
        "swap the factors in area.ts",
      ],
      env,
    );
    expect(run.code).toBe(0);
    expect(run.out).toContain("Swapped the factors.");
    // The provider's own counts, summed over the run's three requests.
    expect(run.out).toContain("tokens: 300 in, 30 out");
    expect(await fs.readFile(path.join(root, "area.ts"), "utf8")).toBe(after);
    expect(fake.requests).toHaveLength(3);
    expect(fake.requests[0]).toMatchObject({ model: "qwen2.5-coder:7b" });
    // The patch's result went back as a tool message answering its call id.
    const last = fake.requests[2]!["messages"] as { role: string; tool_call_id?: string; content?: string }[];
    const tool = last.filter((m) => m.role === "tool").at(-1)!;
    expect(tool.tool_call_id).toBe("call_0_safe_patch");
    expect(JSON.parse(tool.content!)).toMatchObject({
      ok: true,
      data: { latest_file_state: { sha256: sha256Of(after) } },
    });
  }, 60_000);

  it("without a model named, says so", async () => {
    const root = await fs.realpath(tempDir("lockstep-openai-"));
    fake = await startFakeOpenAi([{ text: "never" }]);
    const run = await ask(root, ["--provider", "openai", "--base-url", fake.url, "--yes", "anything"], {
      ...process.env,
    });
    expect(run.code).not.toBe(0);
    expect(run.out).toMatch(/model/);
    expect(fake.requests).toHaveLength(0);
  }, 60_000);
});

describe("a model without tool calling (tools: false)", () => {
  const before = "export function area(w: number, h: number): number {\n  return w * h;\n}\n";
  const after = before.replace("return w * h;", "return h * w;");
  const aider = (search: string, replace: string): string =>
    [
      "Swapping them.",
      "",
      "area.ts",
      "```ts",
      "<<<<<<< SEARCH",
      search,
      "=======",
      replace,
      ">>>>>>> REPLACE",
      "```",
    ].join("\n");

  /** area.ts in a new root; `lockstep ask` with a model without tools that answers `answers`. */
  async function askToolless(
    answers: FakeAnswer[],
  ): Promise<{ root: string; run: Awaited<ReturnType<typeof runAsk>>; requests: FakeOpenAi["requests"] }> {
    const root = await fs.realpath(tempDir("lockstep-toolless-"));
    await fs.writeFile(path.join(root, "area.ts"), before);
    fake = await startFakeOpenAi(answers);
    const args = ["--provider", "openai", "--base-url", fake.url, "--model", "small", "--no-tools", "--yes"];
    const run = await ask(root, [...args, "swap the factors in @area.ts"], { ...process.env });
    return { root, run, requests: fake.requests };
  }

  it("gets the file's versioned state and no tools, and its SEARCH/REPLACE block lands", async () => {
    const { root, run, requests } = await askToolless([
      { text: aider("  return w * h;", "  return h * w;") },
    ]);
    expect(run.code).toBe(0);
    expect(await fs.readFile(path.join(root, "area.ts"), "utf8")).toBe(after);
    const request = requests[0]!;
    expect(request["tools"]).toBeUndefined();
    const messages = request["messages"] as { role: string; content: string }[];
    expect(messages[0]!.content).toContain("<<<<<<< SEARCH");
    expect(messages.at(-1)!.content).toContain(sha256Of(before));
  }, 60_000);

  it("when a block does not apply, gets one more round with why and the current state, and its ««« EDIT block lands", async () => {
    const edit = [
      "area.ts",
      "««« EDIT",
      "  return w * h;",
      "═══════ REPL",
      "  return h * w;",
      "»»» EDIT END",
    ].join("\n");
    const { root, run, requests } = await askToolless([
      { text: aider("  return w*h;", "  return h * w;") },
      { text: edit },
    ]);
    expect(run.code).toBe(0);
    expect(await fs.readFile(path.join(root, "area.ts"), "utf8")).toBe(after);
    expect(requests).toHaveLength(2);
    const followUp = (requests[1]!["messages"] as { role: string; content: string }[]).at(-1)!.content;
    expect(followUp).toContain("did not apply");
    expect(followUp).toContain(sha256Of(before));
  }, 60_000);
});

describe("an endpoint that refuses tools for its model", () => {
  it("gets the same request again without tools, and the model's edit blocks land", async () => {
    const root = await fs.realpath(tempDir("lockstep-toolless-"));
    const before = "export const unit = 'cm';\n";
    await fs.writeFile(path.join(root, "unit.ts"), before);
    fake = await startFakeOpenAi([
      {
        status: 400,
        body: { error: { message: "registry.ollama.ai/library/tiny:1b does not support tools" } },
      },
      {
        text: [
          "unit.ts",
          "<<<<<<< SEARCH",
          "export const unit = 'cm';",
          "=======",
          "export const unit = 'mm';",
          ">>>>>>> REPLACE",
        ].join("\n"),
      },
    ]);
    const run = await ask(
      root,
      ["--provider", "openai", "--base-url", fake.url, "--model", "tiny:1b", "--yes", "use mm in @unit.ts"],
      { ...process.env },
    );
    expect(run.code).toBe(0);
    expect(await fs.readFile(path.join(root, "unit.ts"), "utf8")).toBe("export const unit = 'mm';\n");
    expect(fake.requests[0]!["tools"]).toBeDefined();
    expect(fake.requests[1]!["tools"]).toBeUndefined();
  }, 60_000);
});

describe("per-turn overhead on the openai provider", () => {
  // Measured as for Gemini (turn-overhead.test.ts): from the end of turn i's stream to the
  // arrival of request i+1, when the turn's only call is a cheap read. Printed for the notes.
  it("is measured over 30 read-only turns, each answered in order", async () => {
    const root = await fs.realpath(tempDir("lockstep-openai-turns-"));
    await fs.writeFile(path.join(root, "a.ts"), "export const a = 1;\n");
    const TURNS = 30;
    fake = await startFakeOpenAi((i) =>
      i < TURNS
        ? { text: `Turn ${i + 1}.`, calls: [{ name: "read_file", args: { file_path: "a.ts" } }] }
        : { text: "Done." },
    );
    const config = ["--provider", "openai", "--base-url", fake.url, "--model", "m", "--yes"];
    // maxTurns is 20 by default: the run stops there, which is enough turns to measure.
    const run = await ask(root, [...config, "read a.ts many times"], { ...process.env });
    expect(run.out).toContain("Turn 1.");
    const t = fake.timings;
    const gaps = t.slice(0, -1).map((x, i) => t[i + 1]!.requestAt - x.answeredAt!);
    expect(gaps.length).toBeGreaterThan(5);
    const sorted = [...gaps].sort((a, b) => a - b);
    console.log(
      `openai per-turn overhead: ${JSON.stringify({ turns: gaps.length, median_ms: Number(sorted[Math.floor(sorted.length / 2)]!.toFixed(2)), p90_ms: Number(sorted[Math.floor(sorted.length * 0.9)]!.toFixed(2)) })}`,
    );
  }, 60_000);
});
