// "No, and say why" for a command and for an MCP call, through the spawned server with the real
// openai package against a fake endpoint on loopback and a real MCP SDK server on stdio: the
// `reason` of a `lockstep/approve` answer reaches the model's next request in the rejection; blank
// words are a plain no; words past the bound are no choice (nothing runs, the model is not told "rejected").
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { askUntilDone } from "../support/ask-job.js";
import { startFakeOpenAi, type FakeAnswer, type FakeOpenAi } from "../support/fake-openai.js";
import { cleanup, createWorkspace, startServer, type TestClient } from "../support/lsp-client.js";

const TOOLS = path.resolve("test/mcp/fixtures/tools-mcp-server.mjs");
const WORDS = "use pnpm here, not npm";
let fake: FakeOpenAi | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
  await cleanup();
});

async function server(
  script: FakeAnswer[],
  answer: unknown,
  mcp = false,
): Promise<{ client: TestClient; root: string; log: string; asked: unknown[] }> {
  fake = await startFakeOpenAi(script);
  const root = await createWorkspace({ "a.txt": "a\n" });
  const config = path.join(root, ".config-home");
  const log = path.join(root, "tools.log");
  mkdirSync(path.join(config, "lockstep"), { recursive: true });
  const mcpServers = mcp
    ? { docs: { command: process.execPath, args: [TOOLS], env: { TOOLS_LOG: log } } }
    : {};
  writeFileSync(path.join(config, "lockstep", "config.json"), JSON.stringify({ mcpServers }));
  const asked: unknown[] = [];
  const client = await startServer({
    root,
    style: "neovim",
    env: { XDG_CONFIG_HOME: config, OPENAI_API_KEY: "sk-approve-reason-0123456789" },
    initializationOptions: { provider: "openai", baseUrl: fake.url, model: "m", sessions: false },
    approve: (params) => (asked.push(params), Promise.resolve(answer)),
    approveKinds: ["command", "call"],
  });
  return { client, root, log, asked };
}

/** The error code and words the model was sent back for its tool call, in its next request. */
function toolResult(): string {
  expect(fake!.requests.length).toBeGreaterThanOrEqual(2);
  const messages = fake!.requests[1]!["messages"] as { role: string; content: unknown }[];
  const tool = messages.filter((m) => m.role === "tool").at(-1);
  const envelope = JSON.parse(String(tool?.content)) as { error?: { code: string; message: string } };
  return `${envelope.error?.code ?? "ok"}: ${envelope.error?.message ?? ""}`;
}

const touch: FakeAnswer = { calls: [{ name: "run_command", args: { command: "touch ran.txt" } }] };
const shout: FakeAnswer = { calls: [{ name: "mcp__docs__shout", args: { text: "loud" } }] };

describe("a command rejected with a reason", () => {
  it("tells the model the user's words; the command does not run", async () => {
    const { client, root } = await server([touch, { text: "ok" }], {
      decision: "reject",
      reason: `  ${WORDS}\n`,
    });
    expect((await askUntilDone(client, "touch it"))["status"]).toBe("done");
    expect(existsSync(path.join(root, "ran.txt"))).toBe(false);
    const result = toolResult();
    expect(result).toMatch(/^rejected: /);
    expect(result).toContain(`The user said: "${WORDS}"`);
  }, 60_000);

  it("blank words are a plain no; words past the bound are no choice", async () => {
    const blank = await server([touch, { text: "ok" }], { decision: "reject", reason: "   " });
    await askUntilDone(blank.client, "touch it");
    expect(toolResult()).toMatch(/^rejected: /);
    expect(toolResult()).not.toContain("The user said");
    await fake?.close();
    await cleanup();
    const flood = await server([touch, { text: "ok" }], { decision: "reject", reason: "x".repeat(4001) });
    await askUntilDone(flood.client, "touch it");
    expect(existsSync(path.join(flood.root, "ran.txt"))).toBe(false);
    expect(toolResult()).not.toContain("xxxx");
    expect(toolResult()).not.toMatch(/^rejected/);
  }, 90_000);
});

describe("an MCP call rejected with a reason", () => {
  it("tells the model the user's words; the tool is not called", async () => {
    const { client, log, asked } = await server(
      [shout, { text: "ok" }],
      { decision: "reject", reason: WORDS },
      true,
    );
    expect((await askUntilDone(client, "shout"))["status"]).toBe("done");
    expect(asked).toHaveLength(1);
    expect(existsSync(log) ? readFileSync(log, "utf8") : "").not.toContain("shout");
    const result = toolResult();
    expect(result).toMatch(/^rejected: /);
    expect(result).toContain(`The user said: "${WORDS}"`);
  }, 60_000);
});
