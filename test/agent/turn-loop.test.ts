// The turn loop driving the real Gemini model (SDK → fake endpoint) and a test
// ToolRunner. Assertions read what the fake server received, i.e. what Gemini
// would see.
import { afterEach, describe, expect, it, vi } from "vitest";
import { createGeminiModel } from "../../server/src/agent/providers/gemini.js";
import type { FunctionCall, Message, Model, ModelEvent } from "../../server/src/agent/model.js";
import { runTurnLoop } from "../../server/src/agent/turn-loop.js";
import type { RunResult, ToolRunner, TurnLoopOptions } from "../../server/src/agent/turn-loop.js";
import { errorEnvelope, okEnvelope } from "../../server/src/tools/envelope.js";
import type { Envelope } from "../../server/src/tools/envelope.js";
import { callTurn, startFakeGemini, textTurn } from "../support/fake-gemini.js";
import type { FakeGemini, FakeScript } from "../support/fake-gemini.js";

const KEY = "loop-key-abcdefghijklmnop-9876";

let fake: FakeGemini | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

async function geminiOn(script: FakeScript): Promise<{ fake: FakeGemini; model: Model }> {
  fake = await startFakeGemini(script);
  return {
    fake,
    model: createGeminiModel({
      apiKey: KEY,
      baseUrl: fake.baseUrl,
      retryBaseDelayMs: 1,
      maxRetries: 1,
      env: {},
    }),
  };
}

type Handler = (call: FunctionCall, signal: AbortSignal) => Promise<Envelope>;

/** A ToolRunner that answers from handlers and logs every call it ran. */
function toolsFrom(handlers: Record<string, Handler>): ToolRunner & { ran: string[] } {
  const ran: string[] = [];
  return {
    ran,
    declarations: () =>
      Object.keys(handlers).map((name) => ({
        name,
        description: `The ${name} tool.`,
        parametersJsonSchema: { type: "object", properties: {} },
      })),
    run: (call, signal) => {
      ran.push(`${call.name}(${JSON.stringify(call.args)})`);
      const handler = handlers[call.name];
      return handler === undefined
        ? Promise.resolve(errorEnvelope("invalid_argument", `Unknown tool ${call.name}.`))
        : handler(call, signal);
    },
  };
}

const readFile: Handler = (call) =>
  Promise.resolve(okEnvelope({ file_path: call.args["file_path"], sha256: "0".repeat(64), content: "x" }));
const never = (): AbortSignal => new AbortController().signal;
/** vi.waitFor gives up after 1 s by default: too little for a loaded machine; a wait that never ends still fails. */
const WAIT = { timeout: 10_000 };

function run(
  options: Partial<TurnLoopOptions> & Pick<TurnLoopOptions, "model" | "tools">,
): Promise<RunResult> {
  return runTurnLoop({ system: "sys", history: [], prompt: [{ text: "go" }], signal: never(), ...options });
}

const roles = (history: Message[]): string[] => history.map((message) => message.role);

describe("one run", () => {
  it("answers two calls of one turn in order, in ONE user message, then finishes", async () => {
    const { fake, model } = await geminiOn([
      {
        chunks: [
          { parts: [{ text: "Reading " }] },
          {
            parts: [
              { text: "both." },
              { functionCall: { id: "c1", name: "read_file", args: { file_path: "a.ts" } } },
            ],
          },
          {
            parts: [{ functionCall: { id: "c2", name: "read_file", args: { file_path: "b.ts" } } }],
            fragmented: true,
          },
        ],
      },
      textTurn("Both ", "read."),
    ]);
    const tools = toolsFrom({ read_file: readFile });
    const result = await run({ model, tools });

    expect(result.status).toBe("done");
    expect(tools.ran).toEqual(['read_file({"file_path":"a.ts"})', 'read_file({"file_path":"b.ts"})']);
    expect(fake.requests).toHaveLength(2);
    const second = fake.requests[1]?.body.contents;
    // Gemini's wire roles: the assistant's turn is "model", the tool results go as "user".
    expect(second).toEqual([
      { role: "user", parts: [{ text: "go" }] },
      {
        role: "model",
        parts: [
          { text: "Reading both." },
          { functionCall: { id: "c1", name: "read_file", args: { file_path: "a.ts" } } },
          { functionCall: { id: "c2", name: "read_file", args: { file_path: "b.ts" } } },
        ],
      },
      {
        role: "user",
        parts: [
          {
            functionResponse: {
              id: "c1",
              name: "read_file",
              response: { ok: true, data: { file_path: "a.ts", sha256: "0".repeat(64), content: "x" } },
            },
          },
          {
            functionResponse: {
              id: "c2",
              name: "read_file",
              response: { ok: true, data: { file_path: "b.ts", sha256: "0".repeat(64), content: "x" } },
            },
          },
        ],
      },
    ]);
    // Exactly one model message per turn, however many chunks streamed.
    expect(roles(result.history)).toEqual(["user", "assistant", "tool", "assistant"]);
    expect(result.history[3]).toEqual({ role: "assistant", parts: [{ text: "Both read." }] });
    expect(result.text).toBe("Reading both.\n\nBoth read.");
    expect(result.toolCalls).toEqual([
      { name: "read_file", args: { file_path: "a.ts" }, ok: true },
      { name: "read_file", args: { file_path: "b.ts" }, ok: true },
    ]);
  });

  it("reports events in order: turn, text deltas, each call and its result", async () => {
    const { model } = await geminiOn([
      {
        chunks: [
          {
            parts: [
              { text: "Let me look." },
              { functionCall: { name: "read_file", args: { file_path: "a" } } },
            ],
          },
        ],
      },
      textTurn("Do", "ne."),
    ]);
    const log: string[] = [];
    await run({
      model,
      tools: toolsFrom({ read_file: readFile }),
      events: {
        onTurn: (turn) => log.push(`turn ${turn}`),
        onText: (delta) => log.push(`text ${JSON.stringify(delta)}`),
        onToolCall: (call) => log.push(`call ${call.name}`),
        onToolResult: (call, result) => log.push(`result ${call.name} ${String(result.ok)}`),
      },
    });
    expect(log).toEqual([
      "turn 1",
      'text "Let me look."',
      "call read_file",
      "result read_file true",
      "turn 2",
      'text "\\n\\nDo"',
      'text "ne."',
    ]);
  });

  it("forwards an error envelope (unknown tool) to the model and carries on", async () => {
    const { fake, model } = await geminiOn([
      callTurn({ name: "delete_everything", args: {} }),
      textTurn("Sorry."),
    ]);
    const result = await run({ model, tools: toolsFrom({ read_file: readFile }) });
    expect(result.status).toBe("done");
    expect(result.toolCalls).toEqual([{ name: "delete_everything", args: {}, ok: false }]);
    const answer = fake.requests[1]?.body.contents?.at(-1)?.parts?.[0];
    expect(answer).toEqual({
      functionResponse: {
        name: "delete_everything",
        response: {
          ok: false,
          error: { code: "invalid_argument", message: "Unknown tool delete_everything.", suggestions: [] },
        },
      },
    });
  });

  it("turns a tool that throws into an internal_error answer instead of failing the run", async () => {
    const { model } = await geminiOn([callTurn({ name: "boom" }), textTurn("ok")]);
    const result = await run({ model, tools: toolsFrom({ boom: () => Promise.reject(new Error("kaput")) }) });
    expect(result.status).toBe("done");
    const response = result.history[2]?.parts[0];
    expect(response).toMatchObject({
      functionResponse: { name: "boom", response: { ok: false, error: { code: "internal_error" } } },
    });
  });

  it("an empty answer ends the run without recording an empty model message", async () => {
    const { model } = await geminiOn([{ chunks: [] }]);
    const result = await run({ model, tools: toolsFrom({}) });
    expect(result).toMatchObject({ status: "done", text: "", toolCalls: [] });
    expect(roles(result.history)).toEqual(["user"]);
  });

  it("continues a session: earlier history is sent first and not modified", async () => {
    const { fake, model } = await geminiOn([textTurn("again")]);
    const earlier: Message[] = [
      { role: "user", parts: [{ text: "hi" }] },
      { role: "assistant", parts: [{ text: "hello" }] },
    ];
    const result = await run({ model, tools: toolsFrom({}), history: earlier, prompt: [{ text: "more" }] });
    expect(earlier).toHaveLength(2);
    expect(roles(result.history)).toEqual(["user", "assistant", "user", "assistant"]);
    expect(fake.requests[0]?.body.contents?.map((content) => content.parts?.[0])).toEqual([
      { text: "hi" },
      { text: "hello" },
      { text: "more" },
    ]);
    expect(fake.requests[0]?.body.tools).toBeUndefined();
  });
});

describe("limits", () => {
  it("stops a model that keeps calling tools at the turn cap", async () => {
    const { fake, model } = await geminiOn(() => callTurn({ name: "read_file", args: { file_path: "a" } }));
    const result = await run({ model, tools: toolsFrom({ read_file: readFile }), limits: { maxTurns: 3 } });
    expect(result.status).toBe("limit");
    expect(result.error?.code).toBe("turn_limit");
    expect(result.error?.message).toMatch(/3 model turns/);
    expect(fake.requests).toHaveLength(3);
    expect(result.toolCalls).toHaveLength(3);
    expect(roles(result.history)).toEqual([
      "user",
      "assistant",
      "tool",
      "assistant",
      "tool",
      "assistant",
      "tool",
    ]);
  });

  it("stops at the tool-call cap and still answers every call of the last turn", async () => {
    const three = callTurn(
      { name: "read_file", args: { file_path: "1" } },
      { name: "read_file", args: { file_path: "2" } },
      { name: "read_file", args: { file_path: "3" } },
    );
    const { fake, model } = await geminiOn(() => three);
    const tools = toolsFrom({ read_file: readFile });
    const result = await run({ model, tools, limits: { maxToolCalls: 4 } });
    expect(result.status).toBe("limit");
    expect(result.error?.code).toBe("tool_call_limit");
    expect(tools.ran).toHaveLength(4);
    expect(result.toolCalls).toHaveLength(4);
    expect(fake.requests).toHaveLength(2);
    const last = result.history.at(-1);
    expect(last?.role).toBe("tool");
    expect(
      last?.parts.map((part) => ("functionResponse" in part ? part.functionResponse.response["ok"] : "?")),
    ).toEqual([true, false, false]);
  });

  it("the defaults allow 20 turns", async () => {
    const { fake, model } = await geminiOn(() => callTurn({ name: "read_file", args: { file_path: "a" } }));
    const result = await run({ model, tools: toolsFrom({ read_file: readFile }) });
    expect(result.status).toBe("limit");
    expect(fake.requests).toHaveLength(20);
  });
});

describe("cancellation and failure", () => {
  it("abort during a hanging stream resolves cancelled within a second", async () => {
    const { fake, model } = await geminiOn([{ chunks: [{ parts: [{ text: "Thinking" }] }], hang: true }]);
    const controller = new AbortController();
    const pending = run({ model, tools: toolsFrom({}), signal: controller.signal });
    await vi.waitFor(() => expect(fake.requests).toHaveLength(1), WAIT);
    const started = Date.now();
    controller.abort();
    const result = await pending;
    expect(result.status).toBe("cancelled");
    expect(Date.now() - started).toBeLessThan(1_000);
    await vi.waitFor(() => expect(fake.requests[0]?.closedByClient).toBe(true), WAIT);
  });

  it("abort during a tool that ignores the signal stops at once and answers the unrun calls", async () => {
    const { fake, model } = await geminiOn([
      callTurn({ name: "slow", id: "s" }, { name: "read_file", id: "r", args: { file_path: "a" } }),
    ]);
    const controller = new AbortController();
    let started!: () => void;
    const toolStarted = new Promise<void>((resolve) => (started = resolve));
    const tools = toolsFrom({
      slow: () => {
        started();
        return new Promise<Envelope>(() => undefined);
      },
      read_file: readFile,
    });
    const pending = run({ model, tools, signal: controller.signal });
    await toolStarted;
    const at = Date.now();
    controller.abort();
    const result = await pending;
    expect(result.status).toBe("cancelled");
    expect(Date.now() - at).toBeLessThan(1_000);
    expect(tools.ran).toEqual(["slow({})"]);
    expect(fake.requests).toHaveLength(1);
    expect(result.history.at(-1)?.parts).toEqual([
      {
        functionResponse: {
          id: "s",
          name: "slow",
          response: expect.objectContaining({
            ok: false,
            error: expect.objectContaining({ code: "cancelled" }),
          }),
        },
      },
      { functionResponse: { id: "r", name: "read_file", response: expect.objectContaining({ ok: false }) } },
    ]);
  });

  it("an already aborted signal never calls the model", async () => {
    const { fake, model } = await geminiOn([textTurn("x")]);
    const controller = new AbortController();
    controller.abort();
    expect((await run({ model, tools: toolsFrom({}), signal: controller.signal })).status).toBe("cancelled");
    expect(fake.requests).toHaveLength(0);
  });

  it("a model error fails the run with its code, and without the key", async () => {
    const { model } = await geminiOn(() => ({ status: 500, message: `internal failure near ${KEY}` }));
    const result = await run({ model, tools: toolsFrom({}) });
    expect(result.status).toBe("failed");
    expect(result.error?.code).toBe("server");
    expect(result.error?.message).not.toContain(KEY);
  });

  it("a missing key fails with no_api_key and runs no tool", async () => {
    const tools = toolsFrom({ read_file: readFile });
    const result = await run({ model: createGeminiModel({ env: {} }), tools });
    expect(result).toMatchObject({ status: "failed", error: { code: "no_api_key" } });
    expect(result.error?.message).toContain("GEMINI_API_KEY");
    expect(tools.ran).toEqual([]);
  });

  it("a model that ignores the signal still cannot hold the run", async () => {
    // Streams one delta, then waits forever without looking at the signal.
    const stubborn: Model = {
      name: "stubborn",
      async *stream(): AsyncIterable<ModelEvent> {
        yield { type: "text", text: "hm" };
        await new Promise<never>(() => undefined);
      },
      generateJson: () => Promise.resolve(null),
    };
    const controller = new AbortController();
    const pending = run({
      model: stubborn,
      tools: toolsFrom({}),
      signal: controller.signal,
      events: { onText: () => controller.abort() },
    });
    const result = await pending;
    expect(result.status).toBe("cancelled");
    expect(result.text).toBe("hm");
  });
});
