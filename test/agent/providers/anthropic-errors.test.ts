// The Anthropic adapter's failures against a fake Messages endpoint: a refused thinking setting
// worded as the setting to change, the key variable named on a 401 and the key never shown,
// no key, retries (429 after retry-after, 529, an overloaded stream) and overloaded in words,
// a max_tokens cut-off, and a cancel mid-stream that closes the request.
import { afterEach, describe, expect, it } from "vitest";
import { runTurnLoop } from "../../../server/src/agent/turn-loop.js";
import {
  closeAnthropic,
  collect,
  failure,
  fakeAnthropic,
  KEY,
  model,
  REQUEST,
  runner,
} from "./anthropic-rig.js";

afterEach(closeAnthropic);

describe("the anthropic adapter's failures", () => {
  it("turns a 400 refusing the thinking setting into an error naming `thinking` and what to set", async () => {
    const body = {
      type: "error",
      error: {
        type: "invalid_request_error",
        message:
          '"thinking.type.enabled" is not supported for this model. Use "thinking.type.adaptive" and "output_config.effort" to control thinking behavior.',
      },
    };
    const fake = await fakeAnthropic([{ status: 400, body }]);
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
    const fake = await fakeAnthropic([
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
    const fake = await fakeAnthropic([{ text: "never" }]);
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
    const fake = await fakeAnthropic([
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
    const second = await fakeAnthropic([{ streamError: "overloaded_error" }, { text: "second try" }]);
    const again = await collect(model(second.url).stream(REQUEST, new AbortController().signal));
    expect(
      again
        .filter((e) => e.type === "text")
        .map((e) => (e as { text: string }).text)
        .join(""),
    ).toBe("second try");
  });

  it("says overloaded in words when the retries run out", async () => {
    const fake = await fakeAnthropic([
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

  it("says a max_tokens cut-off plainly", async () => {
    const fake = await fakeAnthropic([{ text: "The start of a long", stopReason: "max_tokens" }]);
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
    const fake = await fakeAnthropic([{ text: "This answer never ends", hangAfterText: true }]);
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
