// Local model servers by name: provider "ollama" (and "lmstudio", "llamacpp") is the
// OpenAI-compatible provider at the server's usual address, with no key. `lockstep ask` spawns
// the server, which talks to a fake endpoint on loopback with the real openai package.
import { promises as fs } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { baseUrlInUse } from "../../server/src/config/provider-facts.js";
import { startFakeOpenAi, type FakeOpenAi } from "../support/fake-openai.js";
import { runAsk } from "../support/run-ask.js";
import { tempDir } from "../support/workspace-fixture.js";

let fake: FakeOpenAi | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

const NO_KEYS = {
  ...process.env,
  OPENAI_API_KEY: "",
  GEMINI_API_KEY: "",
  GOOGLE_API_KEY: "",
  LOCKSTEP_PROVIDER: "",
  LOCKSTEP_MODEL: "",
  LOCKSTEP_BASE_URL: "",
};

const ask = (root: string, args: string[], env: NodeJS.ProcessEnv = {}): ReturnType<typeof runAsk> =>
  runAsk(root, args, { ...NO_KEYS, ...env });

describe("provider ollama", () => {
  it("reaches the endpoint with no key and no Authorization header", async () => {
    const root = await fs.realpath(tempDir("lockstep-ollama-"));
    fake = await startFakeOpenAi([{ text: "Hello from the local model." }]);
    const run = await ask(root, [
      "--provider",
      "ollama",
      "--model",
      "qwen2.5-coder:7b",
      "--base-url",
      fake.url,
      "--yes",
      "say hello",
    ]);
    expect(run.out).toContain("Hello from the local model.");
    expect(run.code).toBe(0);
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0]).toMatchObject({ model: "qwen2.5-coder:7b" });
    expect(run.out).not.toMatch(/API key/i);
  }, 60_000);

  it("with no baseUrl goes to Ollama's usual address (and says how to start it when nothing answers there)", async () => {
    expect(baseUrlInUse({ provider: "ollama" })).toBe("http://localhost:11434/v1");
    expect(baseUrlInUse({ provider: "lmstudio" })).toBe("http://localhost:1234/v1");
    expect(baseUrlInUse({ provider: "llamacpp" })).toBe("http://localhost:8080/v1");
    expect(baseUrlInUse({ provider: "ollama", baseUrl: "http://10.0.0.2:11434/v1" })).toBe(
      "http://10.0.0.2:11434/v1",
    );
    expect(baseUrlInUse({ provider: "openai" })).toBeUndefined();
    const root = await fs.realpath(tempDir("lockstep-ollama-"));
    const run = await ask(root, ["--yes", "say hello"], {
      LOCKSTEP_PROVIDER: "ollama",
      LOCKSTEP_MODEL: "qwen2.5-coder:7b",
    });
    expect(run.code).not.toBe(0);
    expect(run.out).toContain("localhost:11434");
    expect(run.out).not.toMatch(/API key/i);
  }, 60_000);

  it("a provider lockstep does not know is named alone, with no key message after it", async () => {
    const root = await fs.realpath(tempDir("lockstep-ollama-"));
    const run = await ask(root, ["--yes", "say hello"], { LOCKSTEP_PROVIDER: "olama", LOCKSTEP_MODEL: "x" });
    expect(run.code).not.toBe(0);
    expect(run.out).toContain("provider");
    expect(run.out).toContain("ollama");
    expect(run.out).not.toMatch(/API key/i);
  }, 60_000);
});
