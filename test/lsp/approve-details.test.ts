// lockstep/approve for a command and for an MCP call, through the spawned server with the real
// openai package against a fake endpoint on loopback, and a real MCP SDK server on stdio: a
// client that lists the kinds gets the whole command line, where it runs, the sandbox and what
// "always" would allow (then "always" is honoured and "stop" ends the run with no further model
// request), and a call's server, tool and arguments, redacted and bounded. A client that does not
// list them keeps window/showMessageRequest, the call's message redacted too.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { ShowMessageRequestParams } from "vscode-languageserver-protocol";
import { afterEach, describe, expect, it } from "vitest";
import { askUntilDone } from "../support/ask-job.js";
import { startFakeOpenAi, type FakeAnswer, type FakeOpenAi } from "../support/fake-openai.js";
import { cleanup, createWorkspace, startServer, type TestClient } from "../support/lsp-client.js";

const TOOLS = path.resolve("test/mcp/fixtures/tools-mcp-server.mjs");
const KEY = "sk-approve-details-0123456789-key";
let fake: FakeOpenAi | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
  await cleanup();
});

const run = (command: string, cwd?: string): FakeAnswer => ({
  calls: [{ name: "run_command", args: { command, ...(cwd ? { cwd } : {}) } }],
});

interface Asked {
  questions: Record<string, unknown>[];
  plain: ShowMessageRequestParams[];
}

async function server(
  script: FakeAnswer[],
  answer: (q: Record<string, unknown>) => unknown,
  options: { kinds?: string[]; files?: Record<string, string>; mcp?: boolean } = {},
): Promise<{ client: TestClient; asked: Asked; root: string; log: string }> {
  fake = await startFakeOpenAi(script);
  const root = await createWorkspace({ "a.txt": "a\n", "sub/b.txt": "b\n", ...options.files });
  const config = path.join(root, ".config-home");
  const log = path.join(root, "tools.log");
  mkdirSync(path.join(config, "lockstep"), { recursive: true });
  const mcpServers = options.mcp
    ? { docs: { command: process.execPath, args: [TOOLS], env: { TOOLS_LOG: log } } }
    : {};
  writeFileSync(path.join(config, "lockstep", "config.json"), JSON.stringify({ mcpServers }));
  const asked: Asked = { questions: [], plain: [] };
  const client = await startServer({
    root,
    style: "neovim",
    env: { XDG_CONFIG_HOME: config, OPENAI_API_KEY: KEY },
    initializationOptions: { provider: "openai", baseUrl: fake.url, model: "m", sessions: false },
    approve: (params) => {
      asked.questions.push(params as Record<string, unknown>);
      return Promise.resolve(answer(params as Record<string, unknown>));
    },
    approveKinds: options.kinds ?? ["command", "call"],
    showMessageRequest: (params) => {
      asked.plain.push(params);
      return Promise.resolve(params.actions?.find((a) => a.title === "Apply") ?? null);
    },
  });
  return { client, asked, root, log };
}

describe("lockstep/approve for a command", () => {
  it("shows the whole line, where it runs, the sandbox and what always allows; always is honoured", async () => {
    const long = `echo ${"x".repeat(3000)} && echo done`;
    const { client, asked } = await server(
      [run("echo one", "sub"), run("echo one more", "sub"), run(long), { text: "Ran." }],
      (q) => ({ decision: q["command"] === "echo one" ? "always" : "reject" }),
    );
    const job = await askUntilDone(client, "run them");
    expect(job["status"]).toBe("done");
    expect(asked.plain).toHaveLength(0);
    // "echo one more" ran under the "always" of "echo one": two questions, not three.
    expect(asked.questions.map((q) => q["command"])).toEqual(["echo one", long]);
    const first = asked.questions[0]!;
    expect(first).toMatchObject({ kind: "command", tool: "run_command", cwd: "sub", prefixes: ["echo one"] });
    expect(typeof first["sandboxed"]).toBe("boolean");
    expect(String(first["sandbox"])).toMatch(first["sandboxed"] ? /^Sandboxed/ : /^Not sandboxed/);
    expect(first["always"]).toBe("Always allow `echo one` this session");
    expect(first["decisions"]).toEqual(["once", "always", "reject", "stop"]);
    expect(typeof first["job_id"]).toBe("string");
    // The whole command, however long: nothing of it is cut.
    expect(asked.questions[1]!["command"]).toBe(long);
    expect(String(asked.questions[1]!["message"])).toContain(long);
  }, 60_000);

  it("stop ends the run: the command does not run and the model is not asked again", async () => {
    const { client, asked, root } = await server([run("touch ran.txt"), { text: "never" }], () => ({
      decision: "stop",
    }));
    const job = await askUntilDone(client, "touch it");
    expect(asked.questions).toHaveLength(1);
    expect(job["status"]).toBe("cancelled");
    expect(JSON.stringify(job)).toContain("Stopped");
    expect(fake!.requests).toHaveLength(1);
    expect(() => readFileSync(path.join(root, "ran.txt"))).toThrow();
  }, 60_000);

  it("an answer the question did not offer is no choice: the command does not run", async () => {
    const { client, root } = await server([run("touch ran.txt"), { text: "ok" }], () => ({
      decision: "always_server",
    }));
    expect((await askUntilDone(client, "touch it"))["status"]).toBe("done");
    expect(() => readFileSync(path.join(root, "ran.txt"))).toThrow();
  }, 60_000);

  it("a client that does not list the kind keeps the plain prompt", async () => {
    const { client, asked } = await server([run("echo one"), { text: "ok" }], () => ({ decision: "once" }), {
      kinds: ["call"],
    });
    await askUntilDone(client, "run it");
    expect(asked.questions).toHaveLength(0);
    expect(asked.plain.map((p) => p.message)).toEqual([expect.stringContaining("echo one")]);
  }, 60_000);
});

describe("lockstep/approve for an MCP call", () => {
  const secretArgs = { text: `use ${KEY} and ghp_${"a".repeat(36)} please` };

  it("shows the server, the tool and the arguments, keys redacted and a flood cut", async () => {
    const { client, asked, log } = await server(
      [
        { calls: [{ name: "mcp__docs__shout", args: secretArgs }] },
        { calls: [{ name: "mcp__docs__say_hi", args: {} }] },
        { calls: [{ name: "mcp__docs__shout", args: { text: "y".repeat(20_000) } }] },
        { text: "Done." },
      ],
      (q) => ({ decision: asked_(q) }),
      { mcp: true },
    );
    function asked_(q: Record<string, unknown>): string {
      return String(q["arguments"]).length > 10_000 ? "reject" : "apply";
    }
    const job = await askUntilDone(client, "use the tools");
    expect(job["status"]).toBe("done");
    const calls = asked.questions.filter((q) => q["kind"] === "call");
    expect(calls.length).toBeGreaterThanOrEqual(2);
    const first = calls[0]!;
    expect(first).toMatchObject({
      kind: "call",
      tool: "mcp__docs__shout",
      server: "docs",
      server_tool: "shout",
    });
    expect(first["decisions"]).toEqual(["apply", "always_tool", "always_server", "reject", "stop"]);
    const shown = String(first["arguments"]);
    expect(shown).toContain('"text"');
    expect(shown).toContain("[redacted]");
    expect(shown).not.toContain(KEY);
    expect(shown).not.toContain("ghp_");
    expect(String(first["message"])).not.toContain(KEY);
    // The tool itself got the arguments as the model wrote them.
    expect(readFileSync(log, "utf8")).toContain(KEY);
    // A flood of arguments is cut, and says so.
    const big = calls.find((q) => String(q["arguments"]).includes("yyyy"))!;
    expect(String(big["arguments"]).length).toBeLessThan(4200);
    expect(String(big["arguments"])).toMatch(/more characters not shown/);
  }, 60_000);

  it("stop ends the run: the tool is not called and the model is not asked again", async () => {
    const { client, asked, log } = await server(
      [{ calls: [{ name: "mcp__docs__shout", args: { text: "loud" } }] }, { text: "never" }],
      () => ({ decision: "stop" }),
      { mcp: true },
    );
    const job = await askUntilDone(client, "shout");
    expect(asked.questions).toHaveLength(1);
    expect(job["status"]).toBe("cancelled");
    expect(JSON.stringify(job)).toContain("Stopped");
    expect(fake!.requests).toHaveLength(1);
    expect(existsSync(log) ? readFileSync(log, "utf8") : "").not.toContain("shout");
  }, 60_000);

  it("the plain prompt's message is redacted as well", async () => {
    const { client, asked } = await server(
      [{ calls: [{ name: "mcp__docs__shout", args: secretArgs }] }, { text: "Done." }],
      () => ({ decision: "apply" }),
      { mcp: true, kinds: ["command"] },
    );
    await askUntilDone(client, "use it");
    expect(asked.plain).toHaveLength(1);
    expect(asked.plain[0]!.message).toContain("shout on the MCP server docs");
    expect(asked.plain[0]!.message).not.toContain(KEY);
  }, 60_000);
});
