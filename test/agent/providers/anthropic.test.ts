// The Anthropic adapter with the real @anthropic-ai/sdk against a fake Messages endpoint on
// loopback: streamed text and thinking, tool_use inputs assembled from input_json_delta
// pieces, the turn loop's tool results in one user message (is_error on the failed one),
// thinking blocks sent back verbatim, cache breakpoints and cache usage, the thinking settings
// as sent, structured output. Refusals, retries, cancellation and the key in no error:
// anthropic-errors.test.ts.
import { afterEach, describe, expect, it } from "vitest";
import type { GenerateRequest } from "../../../server/src/agent/model.js";
import { runTurnLoop } from "../../../server/src/agent/turn-loop.js";
import { closeAnthropic, collect, fakeAnthropic, KEY, model, REQUEST, runner } from "./anthropic-rig.js";

afterEach(closeAnthropic);

describe("the anthropic adapter", () => {
  it("streams text and thinking, and assembles each tool_use's input from its pieces, in order", async () => {
    const fake = await fakeAnthropic([
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
    const fake = await fakeAnthropic([
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
    const fake = await fakeAnthropic([{ text: "ok" }]);
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
    const fake = await fakeAnthropic([{ text: "ok" }]);
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
    const fake = await fakeAnthropic([
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
    const fake = await fakeAnthropic([{ text: "ok" }]);
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

  it("answers a structured-output call with the parsed JSON, max_tokens above a thinking budget", async () => {
    const fake = await fakeAnthropic([{ text: '```json\n{"fixed": true}\n```' }]);
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
});
