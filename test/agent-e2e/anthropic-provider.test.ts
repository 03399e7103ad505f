// Claude as a user runs it, through every door: `lockstep ask --provider anthropic`, the
// language server with provider anthropic in its settings, and `lockstep acp`. Each spawns the
// server, which loads the real @anthropic-ai/sdk from node_modules and talks to a fake
// Messages endpoint on loopback: two reads in one turn (one failing), a patch on the sha256
// read, an answer; thinking sent back verbatim; cache breakpoints and the cache figures shown.
import { promises as fs } from "node:fs";
import path from "node:path";
import { methods } from "@agentclientprotocol/sdk";
import { createPatch } from "diff";
import { afterEach, describe, expect, it } from "vitest";
import { askUntilDone } from "../support/ask-job.js";
import { startFakeAnthropic, type AnthropicAnswer, type FakeAnthropic } from "../support/fake-anthropic.js";
import { cleanup, launch } from "../support/lsp-client.js";
import { runAsk } from "../support/run-ask.js";
import { sha256Of, tempDir } from "../support/workspace-fixture.js";
import { closeAll, startEditor } from "../acp/scripted-editor.js";

const KEY = "sk-ant-e2e-secret-0123456789";
let fake: FakeAnthropic | undefined;
afterEach(async () => {
  await cleanup();
  await closeAll();
  await fake?.close();
  fake = undefined;
});

const BEFORE = "export function area(w: number, h: number): number {\n  return w * h;\n}\n";
const AFTER = BEFORE.replace("return w * h;", "return h * w;");

/** Two reads in one turn (the second of a file that is not there), a patch, an answer. */
const SCRIPT: AnthropicAnswer[] = [
  {
    thinking: [{ text: "Read area.ts; check for a test too.", signature: "sig-turn-1" }],
    text: "Reading.",
    calls: [
      { name: "read_file", args: { file_path: "area.ts" } },
      { name: "read_file", args: { file_path: "area.test.ts" } },
    ],
  },
  {
    thinking: [{ text: "Swap them.", signature: "sig-turn-2" }],
    calls: [
      {
        name: "safe_patch",
        args: {
          file_path: "area.ts",
          unified_diff: createPatch("area.ts", BEFORE, AFTER),
          base_content_sha256: sha256Of(BEFORE),
        },
      },
    ],
  },
  { text: "Swapped the factors." },
];

type Block = Record<string, unknown>;

/** What every door must have sent: the scenario's three requests, as the API wants them. */
function checkRequests(f: FakeAnthropic): void {
  expect(f.requests).toHaveLength(3);
  const second = f.requests[1]!["messages"] as { role: string; content: Block[] }[];
  // The user's prompt, the model's turn (thinking first, verbatim), both answers in ONE user message.
  expect(second.map((m) => m.role)).toEqual(["user", "assistant", "user"]);
  expect(second[1]!.content[0]).toEqual({
    type: "thinking",
    thinking: "Read area.ts; check for a test too.",
    signature: "sig-turn-1",
  });
  expect(second[2]!.content.map((b) => [b["type"], b["tool_use_id"], b["is_error"] ?? false])).toEqual([
    ["tool_result", "toolu_0_read_file", false],
    ["tool_result", "toolu_1_read_file", true],
  ]);
  const third = f.requests[2]!["messages"] as { role: string; content: Block[] }[];
  expect(third.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant", "user"]);
  expect(third[3]!.content[0]).toEqual({ type: "thinking", thinking: "Swap them.", signature: "sig-turn-2" });
  // Breakpoints: last tool, system, the ends of the last two user turns; later requests read the cache.
  expect((f.requests[2]!["tools"] as Block[]).at(-1)!["cache_control"]).toEqual({ type: "ephemeral" });
  expect((f.requests[2]!["system"] as Block[])[0]!["cache_control"]).toEqual({ type: "ephemeral" });
  expect(third.filter((m) => m.content.at(-1)!["cache_control"] !== undefined).length).toBe(2);
  // The second request reads the first's prefix (tools, system, prompt); the third at least that
  // (the patch made the first read's file state a marker, which rewrites that part of the history).
  expect(f.usage[1]!.cache_read_input_tokens).toBeGreaterThan(0);
  expect(f.usage[2]!.cache_read_input_tokens).toBeGreaterThan(0);
}

async function project(): Promise<string> {
  const root = await fs.realpath(tempDir("lockstep-anthropic-"));
  await fs.writeFile(path.join(root, "area.ts"), BEFORE);
  return root;
}

const ask = runAsk;

const cleanEnv = (): NodeJS.ProcessEnv => ({
  ...process.env,
  GEMINI_API_KEY: "",
  GOOGLE_API_KEY: "",
  OPENAI_API_KEY: "",
  ANTHROPIC_BASE_URL: "",
  XDG_STATE_HOME: tempDir("lockstep-state-"),
});

describe("provider anthropic, through every door", () => {
  it("lockstep ask: the reads, the patch and the answer; thoughts shown; cache figures in the token line; the key nowhere", async () => {
    const root = await project();
    fake = await startFakeAnthropic(SCRIPT);
    const run = await ask(
      root,
      ["--provider", "anthropic", "--base-url", fake.url, "--yes", "swap the factors in area.ts"],
      { ...cleanEnv(), ANTHROPIC_API_KEY: KEY },
    );
    expect(run.out).toContain("Swapped the factors.");
    expect(run.code).toBe(0);
    expect(run.out).toContain("Read area.ts; check for a test too.");
    expect(run.out).toMatch(/tokens: \d+ in \(\d+ from cache, \d+ cached\), 30 out/);
    expect(run.out).not.toContain(KEY);
    expect(await fs.readFile(path.join(root, "area.ts"), "utf8")).toBe(AFTER);
    checkRequests(fake);
    expect(fake.requests[0]).toMatchObject({ model: "claude-sonnet-5-5", max_tokens: 32000 });
  }, 60_000);

  it("lockstep ask: no key names ANTHROPIC_API_KEY before anything is sent; a refused thinking setting is named", async () => {
    const root = await project();
    fake = await startFakeAnthropic([
      {
        status: 400,
        body: {
          type: "error",
          error: {
            type: "invalid_request_error",
            message: "adaptive thinking is not supported on this model",
          },
        },
      },
    ]);
    const none = await ask(root, ["--provider", "anthropic", "--base-url", fake.url, "--yes", "anything"], {
      ...cleanEnv(),
      ANTHROPIC_API_KEY: "",
    });
    expect(none.code).not.toBe(0);
    expect(none.out).toContain("ANTHROPIC_API_KEY");
    expect(fake.requests).toHaveLength(0);
    const refused = await ask(
      root,
      [
        "--provider",
        "anthropic",
        "--base-url",
        fake.url,
        "--model",
        "claude-sonnet-4-5",
        "--thinking",
        "adaptive",
        "--yes",
        "anything",
      ],
      { ...cleanEnv(), ANTHROPIC_API_KEY: KEY },
    );
    expect(refused.code).not.toBe(0);
    expect(refused.out).toContain(
      '`thinking` is "adaptive", which claude-sonnet-4-5 does not take: set `thinking` to a token budget',
    );
    expect(fake.requests[0]).toMatchObject({ thinking: { type: "adaptive" } });
  }, 60_000);

  it("the language server: provider anthropic in the editor's settings", async () => {
    fake = await startFakeAnthropic(SCRIPT);
    const client = await launch(
      { "area.ts": BEFORE },
      {
        style: "helix",
        env: { ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: "" },
        initializationOptions: {
          provider: "anthropic",
          baseUrl: fake.url,
          approval: "auto",
          sessions: false,
        },
      },
    );
    await client.open("area.ts");
    const job = await askUntilDone(client, "swap the factors in area.ts");
    expect(job["status"]).toBe("done");
    expect(String(job["text"])).toContain("Swapped the factors.");
    expect(client.buffer("area.ts")!.text).toBe(AFTER);
    expect(job["usage"]).toMatchObject({ cache_read_input_tokens: expect.any(Number) as number });
    checkRequests(fake);
  }, 60_000);

  it("lockstep acp: the thoughts arrive as agent_thought_chunk", async () => {
    fake = await startFakeAnthropic(SCRIPT);
    const editor = await startEditor({
      files: { "area.ts": BEFORE },
      env: {
        LOCKSTEP_PROVIDER: "anthropic",
        LOCKSTEP_BASE_URL: fake.url,
        LOCKSTEP_APPROVAL: "auto",
        ANTHROPIC_API_KEY: KEY,
      },
      permission: () => "allow_once",
    });
    const sessionId = await editor.newSession();
    const answer = await editor.conn.agent.request(methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "swap the factors in area.ts" }],
    });
    expect(answer.stopReason).toBe("end_turn");
    const thought = await editor.waitForUpdate((u) => u.update.sessionUpdate === "agent_thought_chunk");
    expect(JSON.stringify(thought)).toMatch(/Read area|test too|Swap/);
    expect(editor.writes.map((w) => w.content)).toEqual([AFTER]);
    checkRequests(fake);
  }, 60_000);

  it("lockstep acp: authenticate names ANTHROPIC_API_KEY when it is not set", async () => {
    const editor = await startEditor({
      env: { LOCKSTEP_PROVIDER: "anthropic", ANTHROPIC_API_KEY: "", LOCKSTEP_API_KEY_ENV: "" },
    });
    const init = await editor.conn.agent.request(methods.agent.initialize, {
      protocolVersion: 1,
      clientCapabilities: {},
    });
    expect(init.authMethods).toEqual([
      expect.objectContaining({ id: "api-key", name: "API key in ANTHROPIC_API_KEY" }),
    ]);
    await expect(
      editor.conn.agent.request(methods.agent.authenticate, { methodId: "api-key" }),
    ).rejects.toThrow(/ANTHROPIC_API_KEY is not set/);
  }, 60_000);
});
