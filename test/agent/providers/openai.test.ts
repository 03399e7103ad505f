// The OpenAI-compatible adapter with the real `openai` package against a fake
// endpoint on loopback: streamed text, tool calls assembled from their deltas,
// one `tool` message per call id in call order, retries that honour
// Retry-After, a local endpoint without a key, cancellation, and no key in any error.
import { afterEach, describe, expect, it } from "vitest";
import type { GenerateRequest, ModelEvent } from "../../../server/src/agent/model.js";
import { ModelError } from "../../../server/src/agent/model.js";
import { createOpenAiModel } from "../../../server/src/agent/providers/openai.js";
import { startFakeOpenAi, type FakeOpenAi } from "../../support/fake-openai.js";

let fake: FakeOpenAi | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

const KEY = "sk-test-0123456789abcdef";
const REQUEST: GenerateRequest = {
  system: "You edit files.",
  history: [{ role: "user", parts: [{ text: "fix it" }] }],
  tools: [
    {
      name: "read_file",
      description: "Read a file.",
      parametersJsonSchema: { type: "object", properties: { file_path: { type: "string" } } },
    },
  ],
};

/** Text and calls as streamed; usage is checked on its own. */
async function collect(stream: AsyncIterable<ModelEvent>, usage: ModelEvent[] = []): Promise<ModelEvent[]> {
  const out: ModelEvent[] = [];
  for await (const e of stream) (e.type === "usage" ? usage : out).push(e);
  return out;
}

const model = (url: string, env: NodeJS.ProcessEnv = { OPENAI_API_KEY: KEY }) =>
  createOpenAiModel({ model: "test-model", baseUrl: url, env, maxRetries: 2 });

describe("the openai adapter", () => {
  it("streams text and assembles several tool calls of one message from their deltas, in order", async () => {
    fake = await startFakeOpenAi([
      {
        text: "Reading both files.",
        calls: [
          { name: "read_file", args: { file_path: "a.ts" } },
          { name: "read_file", args: { file_path: "b.ts" } },
        ],
      },
    ]);
    const usage: ModelEvent[] = [];
    const events = await collect(model(fake.url).stream(REQUEST, new AbortController().signal), usage);
    expect(
      events
        .filter((e) => e.type === "text")
        .map((e) => (e as { text: string }).text)
        .join(""),
    ).toBe("Reading both files.");
    expect(events.filter((e) => e.type === "functionCall")).toEqual([
      {
        type: "functionCall",
        call: { id: "call_0_read_file", name: "read_file", args: { file_path: "a.ts" } },
      },
      {
        type: "functionCall",
        call: { id: "call_1_read_file", name: "read_file", args: { file_path: "b.ts" } },
      },
    ]);
    expect(fake.requests[0]).toMatchObject({
      model: "test-model",
      stream: true,
      tools: [{ type: "function", function: { name: "read_file" } }],
    });
    expect(usage).toEqual([{ type: "usage", usage: { input_tokens: 100, output_tokens: 10 } }]);
    expect(fake.authorizations[0]).toBe(`Bearer ${KEY}`);
  });

  it("sends one assistant message per turn and one tool message per call id, in call order", async () => {
    fake = await startFakeOpenAi([{ text: "done" }]);
    const history: GenerateRequest["history"] = [
      { role: "user", parts: [{ text: "fix it" }] },
      {
        role: "assistant",
        parts: [
          { text: "Reading." },
          { functionCall: { id: "c1", name: "read_file", args: { file_path: "a.ts" } } },
          { functionCall: { id: "c2", name: "read_file", args: { file_path: "b.ts" } } },
        ],
      },
      {
        role: "user",
        parts: [
          { functionResponse: { id: "c1", name: "read_file", response: { ok: true } } },
          { functionResponse: { id: "c2", name: "read_file", response: { ok: false } } },
        ],
      },
    ];
    await collect(model(fake.url).stream({ ...REQUEST, history }, new AbortController().signal));
    expect(fake.requests[0]!["messages"]).toEqual([
      { role: "system", content: "You edit files." },
      { role: "user", content: "fix it" },
      {
        role: "assistant",
        content: "Reading.",
        tool_calls: [
          { id: "c1", type: "function", function: { name: "read_file", arguments: '{"file_path":"a.ts"}' } },
          { id: "c2", type: "function", function: { name: "read_file", arguments: '{"file_path":"b.ts"}' } },
        ],
      },
      { role: "tool", tool_call_id: "c1", content: '{"ok":true}' },
      { role: "tool", tool_call_id: "c2", content: '{"ok":false}' },
    ]);
  });

  it("retries a 429 that says Retry-After, then succeeds", async () => {
    fake = await startFakeOpenAi([{ status: 429, headers: { "retry-after": "0" } }, { text: "ok" }]);
    const events = await collect(model(fake.url).stream(REQUEST, new AbortController().signal));
    expect(events).toEqual([{ type: "text", text: "ok" }]);
    expect(fake.requests).toHaveLength(2);
  });

  it("talks to a local endpoint without any key", async () => {
    fake = await startFakeOpenAi([{ text: "hi" }]);
    const events = await collect(model(fake.url, {}).stream(REQUEST, new AbortController().signal));
    expect(events).toEqual([{ type: "text", text: "hi" }]);
    // No placeholder key goes out: a server that wants one answers 401, which then says no key was sent.
    expect(fake.authorizations[0]).toBeUndefined();
  });

  it("with apiKeyEnv naming an unset variable, fails before any request is sent", async () => {
    fake = await startFakeOpenAi([{ text: "hi" }]);
    const m = createOpenAiModel({
      model: "m",
      baseUrl: fake.url,
      apiKeyEnv: "OPENROUTER_API_KEY",
      env: { OPENROUTER_API_KEY: " " },
    });
    await expect(collect(m.stream(REQUEST, new AbortController().signal))).rejects.toMatchObject({
      code: "no_api_key",
      message: expect.stringContaining("OPENROUTER_API_KEY") as string,
    });
    expect(fake.requests).toHaveLength(0);
  });

  it("sends the key of the variable apiKeyEnv names", async () => {
    fake = await startFakeOpenAi([{ text: "hi" }]);
    await collect(
      createOpenAiModel({
        model: "m",
        baseUrl: fake.url,
        apiKeyEnv: "OPENROUTER_API_KEY",
        env: { OPENROUTER_API_KEY: KEY },
      }).stream(REQUEST, new AbortController().signal),
    );
    expect(fake.authorizations[0]).toBe(`Bearer ${KEY}`);
  });

  it("says nothing answered at the URL, and how to start Ollama, when the connection is refused", async () => {
    const closed = await startFakeOpenAi([{ text: "never" }]);
    const url = closed.url;
    await closed.close();
    const m = createOpenAiModel({ model: "m", baseUrl: url, env: {}, maxRetries: 0 });
    const error = (await collect(m.stream(REQUEST, new AbortController().signal)).catch(
      (e: unknown) => e,
    )) as ModelError;
    expect(error.code).toBe("network");
    expect(error.message).toContain(`Nothing answered at ${url}`);
    expect(error.message).toContain("ollama serve");
  });

  it("without baseUrl and without a key, says which variable to set", async () => {
    const m = createOpenAiModel({ model: "gpt-x", env: {} });
    await expect(collect(m.stream(REQUEST, new AbortController().signal))).rejects.toMatchObject({
      code: "no_api_key",
      message: expect.stringContaining("OPENAI_API_KEY") as string,
    });
  });

  it("never puts the key in an error, even when the server echoes it", async () => {
    fake = await startFakeOpenAi([
      { status: 401, body: { error: { message: `Incorrect API key provided: ${KEY}` } } },
    ]);
    const error = await collect(model(fake.url).stream(REQUEST, new AbortController().signal)).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ModelError);
    expect((error as ModelError).code).toBe("no_api_key");
    expect((error as ModelError).message).not.toContain(KEY);
  });

  it("is cancelled within a second while the server says nothing", async () => {
    fake = await startFakeOpenAi([{ hang: true }]);
    const controller = new AbortController();
    const began = Date.now();
    setTimeout(() => controller.abort(), 100);
    await expect(collect(model(fake.url).stream(REQUEST, controller.signal))).rejects.toMatchObject({
      code: "cancelled",
    });
    expect(Date.now() - began).toBeLessThan(1_000);
  });
});
