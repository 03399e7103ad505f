// The Gemini model against the fake endpoint: the real SDK builds the requests and
// parses the SSE, so these tests see what a live run would.
import { afterEach, describe, expect, it, vi } from "vitest";
import { createGeminiModel, DEFAULT_GEMINI_MODEL } from "../../../server/src/agent/providers/gemini.js";
import type { GeminiModelOptions } from "../../../server/src/agent/providers/gemini.js";
import type { GenerateRequest, ModelEvent } from "../../../server/src/agent/model.js";
import { callTurn, textTurn } from "../../support/fake-gemini.js";
import type { FakeTurn } from "../../support/fake-gemini.js";
import { closeGemini, collect, fakeGemini, failure, KEY, never, request, serve, WAIT } from "./gemini-rig.js";

afterEach(closeGemini);

describe("stream", () => {
  it("yields text deltas in order, each as it arrives", async () => {
    const { fake, model } = await serve([textTurn("Hel", "lo, ", "world")]);
    expect(await collect(model, never())).toEqual([
      { type: "text", text: "Hel" },
      { type: "text", text: "lo, " },
      { type: "text", text: "world" },
    ]);
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0]?.path).toBe(
      `/v1beta/models/${DEFAULT_GEMINI_MODEL}:streamGenerateContent?alt=sse`,
    );
  });

  it("delivers the first delta while the server is still sending", async () => {
    const { model } = await serve([{ chunks: [{ parts: [{ text: "first" }] }], hang: true }]);
    const controller = new AbortController();
    const iterator = model.stream(request, controller.signal)[Symbol.asyncIterator]();
    expect(await iterator.next()).toEqual({ done: false, value: { type: "text", text: "first" } });
    controller.abort();
    expect((await failure(iterator.next())).code).toBe("cancelled");
  });

  it("sends the system instruction, the history and the tools with their JSON Schema", async () => {
    const { fake, model } = await serve([textTurn("ok")]);
    await collect(model, never());
    const body = fake.requests[0]?.body;
    expect(body?.systemInstruction?.parts).toEqual([{ text: "Be brief." }]);
    expect(body?.contents).toEqual([{ role: "user", parts: [{ text: "hello" }] }]);
    expect(body?.tools).toEqual([{ functionDeclarations: request.tools }]);
  });

  it("puts call ids and thought signatures of the history on the wire", async () => {
    const { fake, model } = await serve([textTurn("ok")]);
    const history: GenerateRequest["history"] = [
      { role: "user", parts: [{ text: "read a" }] },
      {
        role: "assistant",
        parts: [
          {
            functionCall: { id: "c1", name: "read_file", args: { file_path: "a" } },
            thoughtSignature: "sig",
          },
        ],
      },
      {
        role: "tool",
        parts: [{ functionResponse: { id: "c1", name: "read_file", response: { ok: true, data: {} } } }],
      },
    ];
    for await (const _ of model.stream({ ...request, history }, never())) void _;
    // Gemini's roles on the wire: the assistant is "model", tool results travel as "user".
    expect(fake.requests[0]?.body.contents).toEqual([
      { role: "user", parts: [{ text: "read a" }] },
      {
        role: "model",
        parts: [
          {
            functionCall: { id: "c1", name: "read_file", args: { file_path: "a" } },
            thoughtSignature: "sig",
          },
        ],
      },
      {
        role: "user",
        parts: [{ functionResponse: { id: "c1", name: "read_file", response: { ok: true, data: {} } } }],
      },
    ]);
  });

  it("reassembles a function call whose JSON is split across network reads", async () => {
    const big = { file_path: "src/a.ts", unified_diff: "@@ -1 +1 @@\n-a\n+b\n".repeat(50) };
    const { model } = await serve([
      {
        chunks: [
          { parts: [{ text: "Patching." }] },
          {
            parts: [
              { functionCall: { id: "call-1", name: "safe_patch", args: big }, thoughtSignature: "opaque" },
            ],
            fragmented: true,
          },
        ],
      },
    ]);
    expect(await collect(model, never())).toEqual([
      { type: "text", text: "Patching." },
      {
        type: "functionCall",
        call: { id: "call-1", name: "safe_patch", args: big },
        thoughtSignature: "opaque",
      },
    ]);
  });

  it("yields every call of a turn, without an id when the API gives none, and skips thoughts", async () => {
    const { model } = await serve([
      {
        chunks: [
          { parts: [{ text: "thinking about it", thought: true }] },
          {
            parts: [
              { functionCall: { name: "read_file", args: { file_path: "a" } } },
              { functionCall: { name: "list_files" } },
            ],
          },
        ],
      },
    ]);
    expect(await collect(model, never())).toEqual([
      { type: "functionCall", call: { name: "read_file", args: { file_path: "a" } } },
      { type: "functionCall", call: { name: "list_files", args: {} } },
    ]);
  });
});

describe("API key and endpoint", () => {
  it("without a key, creating the model works and the first use fails with no_api_key naming both variables", async () => {
    const model = createGeminiModel({ env: {} });
    expect(model.name).toBe(DEFAULT_GEMINI_MODEL);
    const error = await failure(collect(model, never()));
    expect(error.code).toBe("no_api_key");
    expect(error.message).toContain("GEMINI_API_KEY");
    expect(error.message).toContain("GOOGLE_API_KEY");
    expect((await failure(model.generateJson({ system: "", prompt: "x", schema: {} }, never()))).code).toBe(
      "no_api_key",
    );
  });

  it.each<{ name: string; options: GeminiModelOptions; suffix: string }>([
    {
      name: "option wins",
      options: { apiKey: "opt-AAAA", env: { GEMINI_API_KEY: "gem-BBBB", GOOGLE_API_KEY: "goo-CCCC" } },
      suffix: "AAAA",
    },
    {
      name: "GEMINI_API_KEY next",
      options: { env: { GEMINI_API_KEY: "gem-BBBB", GOOGLE_API_KEY: "goo-CCCC" } },
      suffix: "BBBB",
    },
    { name: "GOOGLE_API_KEY last", options: { env: { GOOGLE_API_KEY: "goo-CCCC" } }, suffix: "CCCC" },
    {
      name: "blank values are skipped",
      options: { apiKey: " ", env: { GEMINI_API_KEY: "", GOOGLE_API_KEY: "goo-CCCC" } },
      suffix: "CCCC",
    },
  ])("key source: $name", async ({ options, suffix }) => {
    const fake = await fakeGemini([textTurn("ok")]);
    const model = createGeminiModel({ baseUrl: fake.baseUrl, ...options });
    await collect(model, never());
    expect(fake.requests[0]?.apiKeySuffix).toBe(suffix);
    expect(fake.requests[0]?.headers["x-goog-api-key"]).toBe("[REDACTED]");
  });

  it("reads GOOGLE_GEMINI_BASE_URL from an injected environment", async () => {
    const fake = await fakeGemini([textTurn("ok")]);
    const model = createGeminiModel({ env: { GEMINI_API_KEY: KEY, GOOGLE_GEMINI_BASE_URL: fake.baseUrl } });
    expect(await collect(model, never())).toEqual([{ type: "text", text: "ok" }]);
    expect(fake.requests).toHaveLength(1);
  });

  it("reads GEMINI_API_KEY and GOOGLE_GEMINI_BASE_URL from process.env by default", async () => {
    const fake = await fakeGemini([textTurn("ok")]);
    vi.stubEnv("GEMINI_API_KEY", "proc-DDDD");
    vi.stubEnv("GOOGLE_API_KEY", "");
    vi.stubEnv("GOOGLE_GEMINI_BASE_URL", fake.baseUrl);
    const model = createGeminiModel({ model: "gemini-other" });
    await collect(model, never());
    expect(fake.requests[0]?.model).toBe("gemini-other");
    expect(fake.requests[0]?.apiKeySuffix).toBe("DDDD");
  });

  it.each<{ name: string; turn: FakeTurn }>([
    { name: "rejected request", turn: { status: 400, message: `API key not valid: ${KEY}` } },
    { name: "rate limit", turn: { status: 429, message: `quota for ${KEY} exhausted` } },
    { name: "server error", turn: { status: 500, message: `backend saw ${KEY}` } },
  ])("the key never appears in an error message: $name", async ({ turn }) => {
    const { model } = await serve(() => turn, { maxRetries: 0 });
    const error = await failure(collect(model, never()));
    expect(error.message).not.toContain(KEY);
    expect(error.message).toContain("[redacted]");
    const jsonError = await failure(model.generateJson({ system: "", prompt: "x", schema: {} }, never()));
    expect(jsonError.message).not.toContain(KEY);
  });
});

describe("generateJson", () => {
  const schema = { type: "object", properties: { search: { type: "string" } }, required: ["search"] };

  it("asks for JSON with the schema and returns the parsed answer", async () => {
    const { fake, model } = await serve([{ json: { search: "a", replace: "b" } }]);
    expect(
      await model.generateJson({ system: "Fix the edit.", prompt: "the edit", schema }, never()),
    ).toEqual({ search: "a", replace: "b" });
    const recorded = fake.requests[0];
    expect(recorded?.path).toBe(`/v1beta/models/${DEFAULT_GEMINI_MODEL}:generateContent`);
    expect(recorded?.body.generationConfig).toMatchObject({
      responseMimeType: "application/json",
      responseJsonSchema: schema,
    });
    expect(recorded?.body.systemInstruction?.parts).toEqual([{ text: "Fix the edit." }]);
    expect(recorded?.body.contents).toEqual([{ role: "user", parts: [{ text: "the edit" }] }]);
  });

  it("retries a 503 and then answers", async () => {
    const { fake, model } = await serve([{ status: 503 }, { json: [1, 2] }]);
    expect(await model.generateJson({ system: "", prompt: "p", schema }, never())).toEqual([1, 2]);
    expect(fake.requests).toHaveLength(2);
  });

  it("an answer that is not JSON is a bad_response", async () => {
    const { model } = await serve([textTurn("not json {")]);
    const error = await failure(model.generateJson({ system: "", prompt: "p", schema }, never()));
    expect(error.code).toBe("bad_response");
    expect(error.message).toContain("not json {");
  });

  it("abort while waiting rejects with cancelled", async () => {
    const { fake, model } = await serve([{ chunks: [], hang: true }]);
    const controller = new AbortController();
    const pending = model.generateJson({ system: "", prompt: "p", schema }, controller.signal);
    await vi.waitFor(() => expect(fake.requests).toHaveLength(1), WAIT);
    controller.abort();
    expect((await failure(pending)).code).toBe("cancelled");
  });
});

// The fake itself: a call turn is what the builders say it is.
describe("fake endpoint", () => {
  it("answers an unscripted request with a 500 naming the turn", async () => {
    const { model } = await serve([], { maxRetries: 0 });
    const error = await failure(collect(model, never()));
    expect(error.code).toBe("server");
    expect(error.message).toContain("no turn 0");
  });

  it("callTurn streams one call per chunk", async () => {
    const { model } = await serve([callTurn({ name: "a", args: { x: 1 } }, { name: "b", id: "2" })]);
    expect(await collect(model, never())).toEqual([
      { type: "functionCall", call: { name: "a", args: { x: 1 } } },
      { type: "functionCall", call: { id: "2", name: "b", args: {} } },
    ]);
  });
});

describe("usage", () => {
  it("reports the request's token counts from the last chunk, once", async () => {
    const { model } = await serve(() => ({
      chunks: [{ parts: [{ text: "a" }] }, { parts: [{ text: "b" }] }],
    }));
    const usage: ModelEvent[] = [];
    for await (const event of model.stream(request, never())) if (event.type === "usage") usage.push(event);
    expect(usage).toEqual([{ type: "usage", usage: { input_tokens: 10, output_tokens: 5 } }]);
  });
});
