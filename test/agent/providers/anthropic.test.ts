// The Anthropic adapter with the real @anthropic-ai/sdk against a fake Messages endpoint on
// loopback: streamed text and thinking, tool_use inputs assembled from input_json_delta
// pieces, the turn loop's tool results in one user message (is_error on the failed one),
// thinking blocks sent back verbatim, cache breakpoints and cache usage, the thinking settings
// as sent, refusals worded as the setting to change, retries, cancellation, and the key in no error.
import { afterEach, describe, expect, it } from "vitest";
import type { GenerateRequest, ModelEvent } from "../../../server/src/agent/model.js";
import {
  createAnthropicModel,
  type AnthropicModelOptions,
} from "../../../server/src/agent/providers/anthropic.js";
import { runTurnLoop, type ToolRunner } from "../../../server/src/agent/turn-loop.js";
import { errorEnvelope } from "../../../server/src/tools/envelope.js";
import { startFakeAnthropic, type FakeAnthropic } from "../../support/fake-anthropic.js";

let fake: FakeAnthropic | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

const KEY = "sk-ant-test-0123456789abcdef";
const TOOLS = [
  {
    name: "read_file",
    description: "Read a file.",
    parametersJsonSchema: { type: "object", properties: { file_path: { type: "string" } } },
  },
  {
    name: "edit",
    description: "Edit a file.",
    parametersJsonSchema: { type: "object", properties: { file_path: { type: "string" } } },
  },
];
const REQUEST: GenerateRequest = {
  system: "You edit files.",
  history: [{ role: "user", parts: [{ text: "fix it" }] }],
  tools: TOOLS,
};

const model = (url: string, options: AnthropicModelOptions = {}) =>
  createAnthropicModel({
    baseUrl: url,
    env: { ANTHROPIC_API_KEY: KEY },
    maxRetries: 2,
    retryBaseDelayMs: 10,
    ...options,
  });

async function collect(stream: AsyncIterable<ModelEvent>): Promise<ModelEvent[]> {
  const out: ModelEvent[] = [];
  for await (const e of stream) out.push(e);
  return out;
}

const failure = (promise: Promise<unknown>): Promise<{ code: string; message: string }> =>
  promise.then(
    () => {
      throw new Error("expected a failure");
    },
    (e: unknown) => e as { code: string; message: string },
  );

/** Two reads, the second failing; each call answered in order. */
const runner = (): ToolRunner & { ran: string[] } => {
  const ran: string[] = [];
  return {
    ran,
    declarations: () => TOOLS,
    run: (call) => {
      ran.push(String(call.args["file_path"]));
      return Promise.resolve(
        call.args["file_path"] === "missing.ts"
          ? errorEnvelope("not_found", "missing.ts does not exist.")
          : { ok: true as const, data: { content: "x" } },
      );
    },
  };
};

describe("the anthropic adapter", () => {
  it("streams text and thinking, and assembles each tool_use's input from its pieces, in order", async () => {
    fake = await startFakeAnthropic([
      {
        thinking: [{ text: "Both files matter.", signature: "sig-1" }],
        text: "Reading both.",
        calls: [
          { name: "read_file", args: { file_path: "a.ts" } },
          { name: "read_file", args: { file_path: "b.ts" } },
        ],
      },
    ]);
    const events = await collect(model(fake.url).stream(REQUEST, new AbortController().signal));
    expect(
      events
        .filter((e) => e.type === "thought")
        .map((e) => (e as { text: string }).text)
        .join(""),
    ).toBe("Both files matter.");
    expect(
      events
        .filter((e) => e.type === "text")
        .map((e) => (e as { text: string }).text)
        .join(""),
    ).toBe("Reading both.");
    expect(events.filter((e) => e.type === "reasoning" || e.type === "functionCall")).toEqual([
      {
        type: "reasoning",
        part: { thinking: "Both files matter.", signature: "sig-1", model: "claude-sonnet-5-5" },
      },
      {
        type: "functionCall",
        call: { id: "toolu_0_read_file", name: "read_file", args: { file_path: "a.ts" } },
      },
      {
        type: "functionCall",
        call: { id: "toolu_1_read_file", name: "read_file", args: { file_path: "b.ts" } },
      },
    ]);
    const usage = events.find((e) => e.type === "usage");
    expect(usage).toEqual({
      type: "usage",
      usage: {
        input_tokens: expect.any(Number) as number,
        output_tokens: 10,
        cache_read_input_tokens: 0,
        cache_creation_input_tokens: expect.any(Number) as number,
      },
    });
    // The SDK sends the key in x-api-key or as a bearer token, by version: either way, the key given.
    expect([fake.headers[0]!["x-api-key"], fake.headers[0]!["authorization"]]).toContain(
      fake.headers[0]!["x-api-key"] === undefined ? `Bearer ${KEY}` : KEY,
    );
    expect(fake.headers[0]!["anthropic-version"]).toBeDefined();
    expect(fake.requests[0]).toMatchObject({ model: "claude-sonnet-5-5", max_tokens: 32000, stream: true });
    for (const key of ["temperature", "top_p", "top_k", "thinking", "output_config"])
      expect(fake.requests[0]).not.toHaveProperty(key);
  });

  it("in the turn loop: all results in ONE user message, in call order, is_error on the failed one, thinking sent back verbatim before the calls", async () => {
    fake = await startFakeAnthropic([
      {
        thinking: [{ text: "Read a, then missing.", signature: "sig-A" }],
        text: "Reading.",
        calls: [
          { name: "read_file", args: { file_path: "a.ts" } },
          { name: "read_file", args: { file_path: "missing.ts" } },
        ],
      },
      { text: "One file is missing." },
    ]);
    const tools = runner();
    const result = await runTurnLoop({
      model: model(fake.url),
      tools,
      system: "You edit files.",
      history: [],
      prompt: [{ text: "read a and missing" }],
      signal: new AbortController().signal,
    });
    expect(result.status).toBe("done");
    expect(tools.ran).toEqual(["a.ts", "missing.ts"]);
    const messages = fake.requests[1]!["messages"] as { role: string; content: Record<string, unknown>[] }[];
    expect(messages.map((m) => m.role)).toEqual(["user", "assistant", "user"]);
    expect(messages[1]!.content).toEqual([
      { type: "thinking", thinking: "Read a, then missing.", signature: "sig-A" },
      { type: "text", text: "Reading." },
      { type: "tool_use", id: "toolu_0_read_file", name: "read_file", input: { file_path: "a.ts" } },
      { type: "tool_use", id: "toolu_1_read_file", name: "read_file", input: { file_path: "missing.ts" } },
    ]);
    const answers = messages[2]!.content;
    expect(answers.map((b) => [b["type"], b["tool_use_id"], b["is_error"]])).toEqual([
      ["tool_result", "toolu_0_read_file", undefined],
      ["tool_result", "toolu_1_read_file", true],
    ]);
    expect(JSON.parse(answers[1]!["content"] as string)).toMatchObject({
      ok: false,
      error: { code: "not_found" },
    });
    // One assistant message per turn in the history the session keeps.
    expect(result.history.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant"]);
    expect(result.usage.cache_read_input_tokens).toBeGreaterThan(0);
  });

  it("puts cache breakpoints on the last tool, the system prompt and the ends of the last two user turns", async () => {
    fake = await startFakeAnthropic([{ text: "ok" }]);
    const history: GenerateRequest["history"] = [
      { role: "user", parts: [{ text: "first" }] },
      {
        role: "assistant",
        parts: [{ functionCall: { id: "t1", name: "read_file", args: { file_path: "a.ts" } } }],
      },
      {
        role: "tool",
        parts: [{ functionResponse: { id: "t1", name: "read_file", response: { ok: true } } }],
      },
      { role: "assistant", parts: [{ text: "Read it." }] },
      { role: "user", parts: [{ text: "second" }] },
    ];
    await collect(model(fake.url).stream({ ...REQUEST, history }, new AbortController().signal));
    const body = fake.requests[0]!;
    const marked = (blocks: Record<string, unknown>[]) => blocks.map((b) => b["cache_control"] !== undefined);
    expect(marked(body["tools"] as Record<string, unknown>[])).toEqual([false, true]);
    expect(body["system"]).toEqual([
      { type: "text", text: "You edit files.", cache_control: { type: "ephemeral" } },
    ]);
    const messages = body["messages"] as { content: Record<string, unknown>[] }[];
    expect(messages.map((m) => marked(m.content))).toEqual([[false], [false], [true], [false], [true]]);
    const off = model(fake.url, { cache: false });
    await collect(off.stream({ ...REQUEST, history }, new AbortController().signal));
    expect(JSON.stringify(fake.requests[1])).not.toContain("cache_control");
  });

  it("sends the thinking settings as set: adaptive with an effort, a budget, off", async () => {
    fake = await startFakeAnthropic([{ text: "ok" }]);
    await collect(
      model(fake.url, { thinking: "adaptive", effort: "high" }).stream(REQUEST, new AbortController().signal),
    );
    await collect(
      model(fake.url, { thinking: 8000, model: "claude-haiku-4-5", maxOutputTokens: 16000 }).stream(
        REQUEST,
        new AbortController().signal,
      ),
    );
    await collect(model(fake.url, { thinking: "off" }).stream(REQUEST, new AbortController().signal));
    expect(fake.requests.map((r) => [r["thinking"], r["output_config"], r["max_tokens"]])).toEqual([
      [{ type: "adaptive" }, { effort: "high" }, 32000],
      [{ type: "enabled", budget_tokens: 8000 }, undefined, 16000],
      [{ type: "disabled" }, undefined, 32000],
    ]);
  });

  it("passes redacted thinking back untouched", async () => {
    fake = await startFakeAnthropic([
      { redacted: "ENCRYPTED==", calls: [{ name: "read_file", args: { file_path: "a.ts" } }] },
      { text: "done" },
    ]);
    await runTurnLoop({
      model: model(fake.url),
      tools: runner(),
      system: "",
      history: [],
      prompt: [{ text: "go" }],
      signal: new AbortController().signal,
    });
    const assistant = (fake.requests[1]!["messages"] as { content: unknown[] }[])[1]!;
    expect(assistant.content[0]).toEqual({ type: "redacted_thinking", data: "ENCRYPTED==" });
  });

  it("leaves out thinking another model signed (a session resumed with another `model`), keeps its own and untagged", async () => {
    fake = await startFakeAnthropic([{ text: "ok" }]);
    const history: GenerateRequest["history"] = [
      { role: "user", parts: [{ text: "first" }] },
      {
        role: "assistant",
        parts: [
          { thinking: "opus thought", signature: "s-opus", model: "claude-opus-5-5" },
          { text: "One." },
        ],
      },
      { role: "user", parts: [{ text: "second" }] },
      {
        role: "assistant",
        parts: [
          { thinking: "own thought", signature: "s-own", model: "claude-sonnet-5-5" },
          { redactedThinking: "R==" },
          { text: "Two." },
        ],
      },
      { role: "user", parts: [{ text: "third" }] },
    ];
    await collect(model(fake.url).stream({ ...REQUEST, history }, new AbortController().signal));
    const messages = fake.requests[0]!["messages"] as { content: { type: string }[] }[];
    expect(messages[1]!.content).toEqual([{ type: "text", text: "One." }]);
    expect(messages[3]!.content).toEqual([
      { type: "thinking", thinking: "own thought", signature: "s-own" },
      { type: "redacted_thinking", data: "R==" },
      { type: "text", text: "Two." },
    ]);
  });

  it("turns a 400 refusing the thinking setting into an error naming `thinking` and what to set", async () => {
    const body = {
      type: "error",
      error: {
        type: "invalid_request_error",
        message:
          '"thinking.type.enabled" is not supported for this model. Use "thinking.type.adaptive" and "output_config.effort" to control thinking behavior.',
      },
    };
    fake = await startFakeAnthropic([{ status: 400, body }]);
    const error = await failure(
      collect(
        model(fake.url, { thinking: 8000, maxOutputTokens: 16000 }).stream(
          REQUEST,
          new AbortController().signal,
        ),
      ),
    );
    expect(error.code).toBe("bad_settings");
    expect(error.message).toMatch(
      /`thinking` is a token budget \(8000\), which claude-sonnet-5-5 does not take: set `thinking` to "adaptive"/,
    );
    expect(error.message).not.toContain("HTTP 400: 400");
  });

  it("names the key variable on a 401, never the key", async () => {
    fake = await startFakeAnthropic([
      {
        status: 401,
        body: { type: "error", error: { type: "authentication_error", message: `invalid x-api-key ${KEY}` } },
      },
    ]);
    const error = await failure(
      collect(
        model(fake.url, { apiKeyEnv: "CLAUDE_KEY", env: { CLAUDE_KEY: KEY } }).stream(
          REQUEST,
          new AbortController().signal,
        ),
      ),
    );
    expect(error).toMatchObject({
      code: "no_api_key",
      message: expect.stringContaining("CLAUDE_KEY") as string,
    });
    expect(error.message).not.toContain(KEY);
    expect(fake.requests).toHaveLength(1);
  });

  it("without a key says which variable to set, and sends nothing", async () => {
    fake = await startFakeAnthropic([{ text: "never" }]);
    const error = await failure(
      collect(model(fake.url, { env: {} }).stream(REQUEST, new AbortController().signal)),
    );
    expect(error).toMatchObject({
      code: "no_api_key",
      message: expect.stringContaining("ANTHROPIC_API_KEY") as string,
    });
    expect(fake.requests).toHaveLength(0);
  });

  it("retries a 429 after its retry-after, and a 529 and an overloaded stream with backoff", async () => {
    fake = await startFakeAnthropic([
      {
        status: 429,
        headers: { "retry-after": "1" },
        body: { type: "error", error: { type: "rate_limit_error", message: "slow down" } },
      },
      { status: 529, body: { type: "error", error: { type: "overloaded_error", message: "Overloaded" } } },
      { text: "after two retries" },
    ]);
    const started = performance.now();
    const events = await collect(model(fake.url).stream(REQUEST, new AbortController().signal));
    expect(performance.now() - started).toBeGreaterThanOrEqual(900);
    expect(
      events
        .filter((e) => e.type === "text")
        .map((e) => (e as { text: string }).text)
        .join(""),
    ).toBe("after two retries");
    expect(fake.requests).toHaveLength(3);
    await fake.close();
    fake = await startFakeAnthropic([{ streamError: "overloaded_error" }, { text: "second try" }]);
    const again = await collect(model(fake.url).stream(REQUEST, new AbortController().signal));
    expect(
      again
        .filter((e) => e.type === "text")
        .map((e) => (e as { text: string }).text)
        .join(""),
    ).toBe("second try");
  });

  it("says overloaded in words when the retries run out", async () => {
    fake = await startFakeAnthropic([
      {
        status: 529,
        headers: { "retry-after": "0" },
        body: { type: "error", error: { type: "overloaded_error", message: "Overloaded" } },
      },
    ]);
    const error = await failure(
      collect(model(fake.url, { maxRetries: 1 }).stream(REQUEST, new AbortController().signal)),
    );
    expect(error.code).toBe("server");
    expect(error.message).toMatch(/overloaded .*after retries.*Try again in a minute/);
    expect(fake.requests).toHaveLength(2);
  });

  it("answers a structured-output call with the parsed JSON, max_tokens above a thinking budget", async () => {
    fake = await startFakeAnthropic([{ text: '```json\n{"fixed": true}\n```' }]);
    const m = model(fake.url, { thinking: 10000, model: "claude-haiku-4-5" });
    await expect(
      m.generateJson(
        { system: "Fix.", prompt: "the edit", schema: { type: "object" } },
        new AbortController().signal,
      ),
    ).resolves.toEqual({ fixed: true });
    expect(fake.requests[0]).toMatchObject({
      max_tokens: 14096,
      thinking: { type: "enabled", budget_tokens: 10000 },
      messages: [{ role: "user", content: "the edit" }],
    });
    expect(fake.requests[0]).not.toHaveProperty("stream");
  });

  it("says a max_tokens cut-off plainly", async () => {
    fake = await startFakeAnthropic([{ text: "The start of a long", stopReason: "max_tokens" }]);
    const events = await collect(
      model(fake.url, { maxOutputTokens: 2000 }).stream(REQUEST, new AbortController().signal),
    );
    const text = events
      .filter((e) => e.type === "text")
      .map((e) => (e as { text: string }).text)
      .join("");
    expect(text).toContain("cut off: it reached maxOutputTokens, 2000 tokens");
  });

  it("cancel mid-stream ends the turn and closes the HTTP request within a second", async () => {
    fake = await startFakeAnthropic([{ text: "This answer never ends", hangAfterText: true }]);
    const controller = new AbortController();
    const tools = runner();
    const run = runTurnLoop({
      model: model(fake.url),
      tools,
      system: "",
      history: [],
      prompt: [{ text: "go" }],
      signal: controller.signal,
      events: { onText: () => controller.abort() },
    });
    const result = await run;
    expect(result.status).toBe("cancelled");
    const closedAt = await Promise.race([
      fake.closed(0).then(() => "closed"),
      new Promise((r) => setTimeout(() => r("open"), 1000)),
    ]);
    expect(closedAt).toBe("closed");
  });
});
