// What the Anthropic adapter's tests share: the key, two tools and a request, the model made
// against the fake Messages endpoint (fast retries), the stream collected and the error a call
// fails with, a tool runner for two reads (the second failing). Knows nothing of what a test checks.
import type { GenerateRequest, ModelEvent } from "../../../server/src/agent/model.js";
import {
  createAnthropicModel,
  type AnthropicModelOptions,
} from "../../../server/src/agent/providers/anthropic.js";
import type { ToolRunner } from "../../../server/src/agent/turn-loop.js";
import { errorEnvelope } from "../../../server/src/tools/envelope.js";
import { startFakeAnthropic, type FakeAnthropic } from "../../support/fake-anthropic.js";

let fake: FakeAnthropic | undefined;
/** For afterEach: the fake endpoint closed. */
export async function closeAnthropic(): Promise<void> {
  await fake?.close();
  fake = undefined;
}

/** A fake Messages endpoint that closeAnthropic closes. */
export async function fakeAnthropic(
  ...script: Parameters<typeof startFakeAnthropic>
): Promise<FakeAnthropic> {
  fake = await startFakeAnthropic(...script);
  return fake;
}

export const KEY = "sk-ant-test-0123456789abcdef";
export const TOOLS = [
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
export const REQUEST: GenerateRequest = {
  system: "You edit files.",
  history: [{ role: "user", parts: [{ text: "fix it" }] }],
  tools: TOOLS,
};

export const model = (url: string, options: AnthropicModelOptions = {}) =>
  createAnthropicModel({
    baseUrl: url,
    env: { ANTHROPIC_API_KEY: KEY },
    maxRetries: 2,
    retryBaseDelayMs: 10,
    ...options,
  });

export async function collect(stream: AsyncIterable<ModelEvent>): Promise<ModelEvent[]> {
  const out: ModelEvent[] = [];
  for await (const e of stream) out.push(e);
  return out;
}

export const failure = (promise: Promise<unknown>): Promise<{ code: string; message: string }> =>
  promise.then(
    () => {
      throw new Error("expected a failure");
    },
    (e: unknown) => e as { code: string; message: string },
  );

/** Two reads, the second failing; each call answered in order. */
export const runner = (): ToolRunner & { ran: string[] } => {
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
