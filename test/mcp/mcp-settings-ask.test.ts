// The user's MCP servers (`mcpServers` in the user settings file) through `lockstep ask`,
// which spawns the language server: a real stdio MCP server and a real Streamable HTTP one
// (the MCP SDK's), a fake OpenAI-compatible model on loopback. The tools are offered under
// prefixed names, asked about per call, "always" honoured, results bounded, a dying server
// restarted and then reported, and every bad server named without harming the rest.
import { execFile } from "node:child_process";
import { mkdtemp, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { McpServer as McpSdkServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import * as z from "zod";
import { afterEach, describe, expect, it } from "vitest";
import { startFakeOpenAi, type FakeAnswer, type FakeOpenAi } from "../support/fake-openai.js";

const BIN = path.resolve("bin/lockstep.js");
const TOOLS = path.resolve("test/mcp/fixtures/tools-mcp-server.mjs");
const dirs: string[] = [];
let fake: FakeOpenAi | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

interface Home {
  root: string;
  log: string;
  env: NodeJS.ProcessEnv;
}

/** A project folder and a HOME whose user file holds `servers` as mcpServers. */
async function home(servers: Record<string, unknown>, extraEnv: NodeJS.ProcessEnv = {}): Promise<Home> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "lockstep-mcp-"));
  dirs.push(dir);
  const root = path.join(dir, "project");
  await mkdir(root);
  await mkdir(path.join(dir, "config", "lockstep"), { recursive: true });
  await writeFile(
    path.join(dir, "config", "lockstep", "config.json"),
    JSON.stringify({ mcpServers: servers }, null, 2),
  );
  const env = {
    PATH: process.env["PATH"],
    HOME: dir,
    XDG_CONFIG_HOME: path.join(dir, "config"),
    XDG_STATE_HOME: path.join(dir, "state"),
    ...extraEnv,
  };
  return { root, log: path.join(dir, "tools.log"), env };
}

const stdio = (h: Home, env: Record<string, string> = {}) => ({
  command: process.execPath,
  args: [TOOLS],
  env: { TOOLS_LOG: h.log, ...env },
});

function run(args: string[], h: Home, input = ""): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [BIN, ...args],
      { cwd: h.root, env: h.env, maxBuffer: 64 * 1024 * 1024, timeout: 120_000 },
      (error, stdout, stderr) => {
        resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
      },
    );
    child.stdin?.end(input);
  });
}

async function ask(
  h: Home,
  script: FakeAnswer[],
  input: string,
  extra: string[] = [],
): Promise<{ code: number; stdout: string; stderr: string }> {
  fake = await startFakeOpenAi(script);
  return run(
    [
      "ask",
      "--root",
      h.root,
      "--provider",
      "openai",
      "--base-url",
      fake.url,
      "--model",
      "fake",
      ...extra,
      "use the tools",
    ],
    h,
    input,
  );
}

const offered = (request: Record<string, unknown> | undefined): string[] =>
  ((request?.["tools"] ?? []) as { function: { name: string } }[]).map((t) => t.function.name);
/** The tool results the model was sent in a request, in order. */
const toolMessages = (request: Record<string, unknown> | undefined): string[] =>
  ((request?.["messages"] ?? []) as { role: string; content: string }[])
    .filter((m) => m.role === "tool")
    .map((m) => String(m.content));
const questions = (stdout: string): number => (stdout.match(/always this \[s\]erver/g) ?? []).length;

describe("the user's MCP servers in lockstep ask", () => {
  it("offers a stdio server's tools under prefixed names, asks per call, honours 'always', bounds a 20 MB result, names no image", async () => {
    const h = await home({});
    await writeFile(
      path.join(h.env["XDG_CONFIG_HOME"]!, "lockstep", "config.json"),
      JSON.stringify({
        mcpServers: {
          loud: stdio(h, { GARBAGE: "1" }),
          gone: { command: path.join(h.root, "no-such-program") },
          off: { ...stdio(h), enabled: false },
        },
      }),
    );
    const script: FakeAnswer[] = [
      { calls: [{ name: "mcp__loud__shout", args: { text: "hello" } }] },
      { calls: [{ name: "mcp__loud__shout", args: { text: "again" } }] },
      { calls: [{ name: "mcp__loud__big", args: {} }] },
      { calls: [{ name: "mcp__loud__picture", args: {} }] },
      { calls: [{ name: "mcp__loud__say_hi", args: {} }] },
      { text: "Done." },
    ];
    // always the tool shout; yes to big; yes to picture; no to say hi.
    const result = await ask(h, script, "a\ny\ny\nn\n");
    expect(result.stdout).toContain("Done.");
    // The server that cannot start is named to the user, and the run went on without it.
    expect(result.stderr).toMatch(/the MCP server gone did not start: .*ENOENT/);
    const names = offered(fake!.requests[0]);
    expect(names).toEqual(
      expect.arrayContaining(["mcp__loud__shout", "mcp__loud__say_hi", "mcp__loud__big", "mcp__loud__die"]),
    );
    expect(names.every((n) => /^[A-Za-z0-9_-]{1,64}$/.test(n))).toBe(true);
    // The invalid schema and the 300-character name are not offered; the server that is off is not started.
    expect(
      names.some((n) => n.includes("broken") || n.includes("xxxxxxxx") || n.startsWith("mcp__off__")),
    ).toBe(false);
    expect(questions(result.stdout)).toBe(4);
    const log = await readFile(h.log, "utf8");
    expect(
      log.match(/^started$/gm),
      log + JSON.stringify(toolMessages(fake!.requests[5]).map((m) => m.slice(0, 300))),
    ).toHaveLength(1);
    expect(log).toContain('shout {"text":"hello"}');
    expect(log).toContain('shout {"text":"again"}');
    expect(log).not.toContain("say hi");
    const results = toolMessages(fake!.requests[5]);
    expect(results[1]).toContain("AGAIN");
    const big = results[2]!;
    expect(big.length).toBeLessThan(40_000);
    expect(big).toContain("HEAD");
    expect(big).toContain("TAIL");
    expect(big).toContain("characters of the result left out");
    expect(results[3]).toContain("image/png");
    expect(results[3]).toContain("file:///secret.txt");
    expect(results[3]).not.toContain("SECRET-CONTENT");
    expect(results[4]).toContain("Rejected");
  }, 120_000);

  it("restarts a server that died on the next call, and after three restarts names it with its last stderr line", async () => {
    const h = await home({});
    await writeFile(
      path.join(h.env["XDG_CONFIG_HOME"]!, "lockstep", "config.json"),
      JSON.stringify({ mcpServers: { loud: stdio(h) } }),
    );
    const call = (name: string, args: Record<string, unknown> = {}): FakeAnswer => ({
      calls: [{ name: `mcp__loud__${name}`, args }],
    });
    const script = [
      call("die"),
      call("shout", { text: "one" }),
      call("die"),
      call("die"),
      call("die"),
      call("shout", { text: "two" }),
      { text: "Over." },
    ];
    const result = await ask(h, script, "", ["--yes"]);
    expect(result.stdout).toContain("Over.");
    const results = toolMessages(fake!.requests[6]);
    expect(results[0]).toContain("stopped while running die");
    expect(results[1]).toContain("ONE");
    expect(results[5]).toContain("not restarted again");
    expect(results[5]).toContain("dying on request");
    // The first start and three restarts: no fifth.
    expect((await readFile(h.log, "utf8")).match(/^started$/gm)).toHaveLength(4);
  }, 120_000);

  it("connects a Streamable HTTP server with a header from ${VAR}; 'always allow this server' covers its other tool; an unreachable one is named", async () => {
    const seen: (string | undefined)[] = [];
    const calls: string[] = [];
    const http = createServer((req, res) => {
      seen.push(req.headers["authorization"]);
      const server = new McpSdkServer({ name: "words", version: "1.0.0" });
      server.registerTool(
        "count",
        { description: "Counts letters.", inputSchema: { word: z.string() } },
        ({ word }) => (
          calls.push(`count ${word}`),
          { content: [{ type: "text", text: String(word.length) }] }
        ),
      );
      server.registerTool(
        "reverse",
        { description: "Reverses.", inputSchema: { word: z.string() } },
        ({ word }) => (
          calls.push(`reverse ${word}`),
          { content: [{ type: "text", text: [...word].reverse().join("") }] }
        ),
      );
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      res.on("close", () => void transport.close());
      void server.connect(transport).then(() => transport.handleRequest(req, res));
    });
    await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
    try {
      const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
      const h = await home(
        {
          words: { url, headers: { Authorization: "Bearer ${WORDS_TOKEN}" } },
          down: { url: "http://127.0.0.1:9/mcp", timeout: 3000 },
        },
        { WORDS_TOKEN: "tok-123" },
      );
      const script: FakeAnswer[] = [
        { calls: [{ name: "mcp__words__count", args: { word: "lockstep" } }] },
        { calls: [{ name: "mcp__words__reverse", args: { word: "abc" } }] },
        { text: "Counted." },
      ];
      const result = await ask(h, script, "s\n");
      expect(result.stdout).toContain("Counted.");
      expect(questions(result.stdout)).toBe(1);
      expect(calls).toEqual(["count lockstep", "reverse abc"]);
      expect(seen.every((a) => a === "Bearer tok-123")).toBe(true);
      expect(toolMessages(fake!.requests[2])).toEqual([
        expect.stringContaining('"8"'),
        expect.stringContaining("cba"),
      ]);
      expect(offered(fake!.requests[0]).some((n) => n.startsWith("mcp__down__"))).toBe(false);
    } finally {
      http.close();
    }
  }, 120_000);
});

describe("lockstep config and the user's MCP servers", () => {
  it("names each bad server and entry with why (last stderr line, timeout), and the good ones stay", async () => {
    const h = await home({});
    const hang = path.join(path.dirname(h.log), "hang.mjs");
    await writeFile(hang, "process.stderr.write('hanging here\\n'); setInterval(() => {}, 1000);\n");
    const servers = {
      loud: stdio(h, { GARBAGE: "1" }),
      gone: { command: path.join(h.root, "no-such-program") },
      mute: { command: process.execPath, args: [hang], timeout: 1500 },
      "bad name!": { command: "x" },
      nokey: {
        url: "https://example.invalid/mcp",
        headers: { Authorization: "Bearer ${LOCKSTEP_TEST_UNSET_VAR}" },
      },
      both: { command: "x", url: "http://127.0.0.1:9/" },
    };
    await writeFile(
      path.join(h.env["XDG_CONFIG_HOME"]!, "lockstep", "config.json"),
      JSON.stringify({
        provider: "openai",
        model: "m",
        baseUrl: "http://127.0.0.1:9/v1",
        mcpServers: servers,
      }),
    );
    const result = await run(["config", "--root", h.root], h);
    expect(result.stdout).toMatch(/loud \(stdio\)\s+connected, 5 tools/);
    expect(result.stdout).toContain(`tool "broken" not offered: inputSchema names an unknown type "strng"`);
    expect(result.stdout).toContain("its name is 300 characters");
    expect(result.stdout).toMatch(/gone \(stdio\)\s+failed: .*ENOENT/);
    expect(result.stdout).toMatch(/mute \(stdio\)\s+failed: no answer within 1500 ms/);
    expect(result.stdout).toContain("last stderr: hanging here");
    expect(result.stdout).toContain('server "bad name!" left out: a name is 1 to 32 letters');
    expect(result.stdout).toContain("${LOCKSTEP_TEST_UNSET_VAR} not set in the environment");
    expect(result.stdout).toContain('server "both" left out');
    expect(result.stdout).not.toContain("unknown setting");
    const json = await run(["config", "--root", h.root, "--json"], h);
    const data = (
      JSON.parse(json.stdout) as {
        data: { mcp_servers: { name: string; status: string; stderr?: string }[] };
      }
    ).data;
    expect(data.mcp_servers.map((s) => [s.name, s.status])).toEqual([
      ["loud", "connected"],
      ["gone", "failed"],
      ["mute", "failed"],
    ]);
  }, 120_000);

  it("starts nothing a repository names in an untrusted folder, and starts it once the folder is trusted", async () => {
    const h = await home({});
    await writeFile(
      path.join(h.root, ".lockstep.json"),
      JSON.stringify({ mcpServers: { proj: { ...stdio(h), trust: true } } }),
    );
    const result = await run(["config", "--root", h.root], h);
    expect(result.stdout).toContain(
      `"mcpServers" in ${path.join(h.root, ".lockstep.json")}: not started, the folder is not trusted`,
    );
    expect(result.stdout).not.toContain("proj (stdio)");
    fake = await startFakeOpenAi([{ text: "Nothing." }]);
    const asked = await run(
      ["ask", "--root", h.root, "--provider", "openai", "--base-url", fake.url, "--model", "fake", "hi"],
      h,
    );
    expect(asked.stdout).toContain("Nothing.");
    expect(offered(fake.requests[0]).some((n) => n.startsWith("mcp__"))).toBe(false);
    await expect(readFile(h.log, "utf8")).rejects.toThrow();
    await fake.close();

    expect((await run(["trust", h.root], h)).code).toBe(0);
    // Trusted: the project's server runs; its `trust: true` is not taken, so approval auto still asks (and no answer rejects).
    const script: FakeAnswer[] = [
      { calls: [{ name: "mcp__proj__shout", args: { text: "trusted" } }] },
      { calls: [{ name: "mcp__proj__shout", args: { text: "auto" } }] },
      { text: "Used." },
    ];
    const used = await ask(h, script, "y\n", ["--approval", "auto"]);
    expect(used.stdout).toContain("Used.");
    expect(offered(fake!.requests[0])).toContain("mcp__proj__shout");
    expect(questions(used.stdout)).toBe(2);
    const log = await readFile(h.log, "utf8");
    expect(log).toContain('shout {"text":"trusted"}');
    expect(log).not.toContain('shout {"text":"auto"}');
  }, 120_000);
});
