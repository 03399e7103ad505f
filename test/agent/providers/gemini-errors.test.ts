// The Gemini adapter's failures against the fake endpoint: retries with backoff (429, 5xx, a
// malformed call; the server's RetryInfo; none once part of the answer was yielded), what the
// user is told, cancellation and the overall deadline.
import { afterEach, describe, expect, it, vi } from "vitest";
import type { ModelError } from "../../../server/src/agent/model.js";
import type { ModelEvent } from "../../../server/src/agent/model.js";
import { textTurn } from "../../support/fake-gemini.js";
import type { FakeTurn } from "../../support/fake-gemini.js";
import {
  abortAfterFirstRequest,
  closeGemini,
  collect,
  failure,
  never,
  request,
  serve,
  WAIT,
} from "./gemini-rig.js";

afterEach(closeGemini);

describe("retries", () => {
  const ok = textTurn("ok");
  it.each<{ name: string; script: FakeTurn[]; requests: number }>([
    { name: "429 then success", script: [{ status: 429 }, ok], requests: 2 },
    { name: "500 then success", script: [{ status: 500 }, ok], requests: 2 },
    { name: "503 twice then success", script: [{ status: 503 }, { status: 503 }, ok], requests: 3 },
    { name: "dropped connection then success", script: [{ dropConnection: true }, ok], requests: 2 },
    {
      name: "error event mid-stream then success",
      script: [{ chunks: [], failWith: { status: 503, message: "overloaded" } }, ok],
      requests: 2,
    },
    {
      name: "malformed function call then success",
      script: [{ chunks: [{ parts: [], finishReason: "MALFORMED_FUNCTION_CALL" }] }, ok],
      requests: 2,
    },
  ])("retries: $name", async ({ script, requests }) => {
    const { fake, model } = await serve(script, { maxRetries: 3 });
    expect(await collect(model, never())).toEqual([{ type: "text", text: "ok" }]);
    expect(fake.requests).toHaveLength(requests);
  });

  it.each<{ name: string; turn: FakeTurn; code: ModelError["code"]; requests: number }>([
    {
      name: "persistent 429",
      turn: { status: 429, message: "Quota exceeded." },
      code: "rate_limited",
      requests: 3,
    },
    { name: "persistent 500", turn: { status: 500 }, code: "server", requests: 3 },
    { name: "persistent drop", turn: { dropConnection: true }, code: "network", requests: 3 },
    {
      name: "400 is not retried",
      turn: { status: 400, message: "Invalid JSON payload." },
      code: "bad_response",
      requests: 1,
    },
    { name: "403 is not retried", turn: { status: 403 }, code: "bad_response", requests: 1 },
  ])("gives up: $name", async ({ turn, code, requests }) => {
    const { fake, model } = await serve(() => turn, { maxRetries: 2 });
    const error = await failure(collect(model, never()));
    expect(error.code).toBe(code);
    expect(fake.requests).toHaveLength(requests);
  });

  it("says what the server said, and what to do", async () => {
    const { model } = await serve(() => ({ status: 429, message: "Quota exceeded for metric X." }), {
      maxRetries: 0,
    });
    const error = await failure(collect(model, never()));
    expect(error.message).toContain("Quota exceeded for metric X.");
    expect(error.message).toMatch(/429/);
  });

  it("reads the message of an error event sent mid-stream", async () => {
    const { model } = await serve(
      () => ({ chunks: [], failWith: { status: 500, message: "The model is overloaded" } }),
      { maxRetries: 0 },
    );
    const error = await failure(collect(model, never()));
    expect(error.code).toBe("server");
    expect(error.message).toBe(
      "Gemini failed on its side (HTTP 500): The model is overloaded. Try again shortly.",
    );
  });

  it("does not retry once part of the answer was yielded", async () => {
    const { fake, model } = await serve(() => ({ chunks: [{ parts: [{ text: "partial" }] }], drop: true }), {
      maxRetries: 3,
    });
    const events: ModelEvent[] = [];
    const error = await failure(
      (async () => {
        for await (const event of model.stream(request, never())) events.push(event);
      })(),
    );
    expect(events).toEqual([{ type: "text", text: "partial" }]);
    expect(error.code).toBe("network");
    expect(fake.requests).toHaveLength(1);
  });

  it("fails at once when the server's retry delay outlasts the deadline", async () => {
    const { fake, model } = await serve(() => ({ status: 429, retryDelay: "30s" }), { timeoutMs: 2_000 });
    const started = Date.now();
    expect((await failure(collect(model, never()))).code).toBe("rate_limited");
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(fake.requests).toHaveLength(1);
  });

  it("honours abort during the backoff wait", async () => {
    const { fake, model } = await serve(() => ({ status: 503, retryDelay: "10s" }));
    await abortAfterFirstRequest(fake, model);
  });
});

describe("cancellation and timeout", () => {
  it("abort during a hanging stream rejects with cancelled within a second and closes the request", async () => {
    const { fake, model } = await serve([{ chunks: [], hang: true }]);
    await abortAfterFirstRequest(fake, model);
    await vi.waitFor(() => expect(fake.requests[0]?.closedByClient).toBe(true), WAIT);
  });

  it("an already aborted signal sends nothing", async () => {
    const { fake, model } = await serve([textTurn("never")]);
    const controller = new AbortController();
    controller.abort();
    expect((await failure(collect(model, controller.signal))).code).toBe("cancelled");
    expect(fake.requests).toHaveLength(0);
  });

  it("a stream that outlives the deadline fails with timeout", async () => {
    const { model } = await serve([{ chunks: [], hang: true }], { timeoutMs: 300 });
    const error = await failure(collect(model, never()));
    expect(error.code).toBe("timeout");
    expect(error.message).toMatch(/did not finish/);
  });
});
