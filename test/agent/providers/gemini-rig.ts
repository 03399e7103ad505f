// What the Gemini adapter's tests share: a request with one tool, the model made against the
// fake endpoint (real SDK, fast retries, no environment), the stream collected, the ModelError a
// call fails with, and a stream cancelled once its first request arrived. Knows nothing of what
// a test checks.
import { expect, vi } from "vitest";
import { createGeminiModel } from "../../../server/src/agent/providers/gemini.js";
import type { GeminiModelOptions } from "../../../server/src/agent/providers/gemini.js";
import { ModelError } from "../../../server/src/agent/model.js";
import type { GenerateRequest, Model, ModelEvent } from "../../../server/src/agent/model.js";
import { startFakeGemini } from "../../support/fake-gemini.js";
import type { FakeGemini, FakeScript } from "../../support/fake-gemini.js";

export const KEY = "test-key-0123456789-SECRET-wxyz";

export const request: GenerateRequest = {
  system: "Be brief.",
  history: [{ role: "user", parts: [{ text: "hello" }] }],
  tools: [
    {
      name: "read_file",
      description: "Read a file.",
      parametersJsonSchema: {
        type: "object",
        properties: { file_path: { type: "string" } },
        required: ["file_path"],
      },
    },
  ],
};

let fake: FakeGemini | undefined;
/** For afterEach: the fake endpoint closed, the stubbed variables put back. */
export async function closeGemini(): Promise<void> {
  await fake?.close();
  fake = undefined;
  vi.unstubAllEnvs();
}

/** A fake endpoint that closeGemini closes. */
export async function fakeGemini(script: FakeScript): Promise<FakeGemini> {
  fake = await startFakeGemini(script);
  return fake;
}

export async function serve(
  script: FakeScript,
  options: GeminiModelOptions = {},
): Promise<{ fake: FakeGemini; model: Model }> {
  const fake = await fakeGemini(script);
  const model = createGeminiModel({
    apiKey: KEY,
    baseUrl: fake.baseUrl,
    retryBaseDelayMs: 1,
    env: {},
    ...options,
  });
  return { fake, model };
}

/** Text and calls as streamed; the usage figures are checked on their own. */
export async function collect(model: Model, signal: AbortSignal): Promise<ModelEvent[]> {
  const events: ModelEvent[] = [];
  for await (const event of model.stream(request, signal)) if (event.type !== "usage") events.push(event);
  return events;
}

/** The ModelError a promise rejects with (fails the test if it resolves). */
export async function failure(promise: Promise<unknown>): Promise<ModelError> {
  const error: unknown = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ModelError);
  return error as ModelError;
}

export const never = (): AbortSignal => new AbortController().signal;
/** vi.waitFor gives up after 1 s by default: too little for a loaded machine; a wait that never ends still fails. */
export const WAIT = { timeout: 10_000 };

/** Starts a stream, aborts it once its first request has arrived, and expects "cancelled" within a second. */
export async function abortAfterFirstRequest(fake: FakeGemini, model: Model): Promise<void> {
  const controller = new AbortController();
  const pending = collect(model, controller.signal);
  await vi.waitFor(() => expect(fake.requests).toHaveLength(1), WAIT);
  const started = Date.now();
  controller.abort();
  expect((await failure(pending)).code).toBe("cancelled");
  expect(Date.now() - started).toBeLessThan(1_000);
}
