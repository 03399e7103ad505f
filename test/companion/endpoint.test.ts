// The companion endpoint of a real server (spawned, driven over stdio by the
// test editor) seen from an agent with the real MCP SDK client: discovery,
// the guard, the tool list, lockstep's tools on the editor's buffers.
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { request } from "node:http";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { findTool, functionDeclarations, jsonSchemaOf } from "../../server/src/tools/registry.js";
import {
  AgentClient,
  companionFacts,
  readDiscovery,
  serverCaughtUp,
  type Discovery,
} from "../support/companion-client.js";
import { cleanup, launch, sha256, stateOf, type TestClient } from "../support/lsp-client.js";

const tmp = realpathSync(mkdtempSync(path.join(os.tmpdir(), "lockstep-companion-")));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const FILES = { "src/app.ts": "export const a = 1;\nexport const b = 2;\n" };

async function companionOf(
  client: TestClient,
): Promise<{ port: number; file: string; info: Discovery; mode: number; facts: Record<string, unknown> }> {
  const facts = await companionFacts(client);
  const port = Number(facts["port"]);
  return { port, facts, ...(await readDiscovery(tmp, process.pid, port)) };
}

/** A raw HTTP request to the endpoint, for what the SDK client would never send. */
function raw(port: number, headers: Record<string, string>, urlPath = "/mcp"): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port,
        path: urlPath,
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          ...headers,
        },
      },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on("error", reject);
    req.end(
      JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: {
          protocolVersion: "2025-06-18",
          capabilities: {},
          clientInfo: { name: "raw", version: "0" },
        },
      }),
    );
  });
}

describe("discovery and guard", () => {
  let client: TestClient;
  beforeAll(async () => {
    client = await launch(FILES, { style: "neovim", env: { TMPDIR: tmp } });
  });
  afterAll(cleanup);

  it("writes the spec's discovery file, named by the editor's PID and the port, mode 0600", async () => {
    const { port, file, info, mode, facts } = await companionOf(client);
    expect(path.basename(file)).toBe(`gemini-ide-server-${process.pid}-${port}.json`);
    expect(mode).toBe(0o600);
    expect(info).toMatchObject({
      port,
      workspacePath: client.root,
      ideInfo: { name: "neovim", displayName: "Neovim" },
      lockstep: { pid: client.pid },
    });
    expect(info.authToken).toMatch(/^[0-9a-f]{64}$/);
    expect(facts).toMatchObject({
      port,
      discovery_file: file,
      environment: `GEMINI_CLI_IDE_SERVER_PORT=${port}`,
    });
    expect(JSON.stringify(facts)).not.toContain(info.authToken);
  });

  it("refuses a request without the token, with a wrong token of the same length, and from a foreign Host or Origin", async () => {
    const { port, info } = await companionOf(client);
    const wrong = info.authToken.replace(/.$/, (c) => (c === "0" ? "1" : "0"));
    expect(wrong).toHaveLength(info.authToken.length);
    expect(await raw(port, {})).toBe(401);
    expect(await raw(port, { authorization: `Bearer ${wrong}` })).toBe(401);
    expect(await raw(port, { authorization: `Basic ${info.authToken}` })).toBe(401);
    expect(await raw(port, { authorization: `Bearer ${info.authToken}`, host: `evil.example:${port}` })).toBe(
      403,
    );
    expect(
      await raw(port, { authorization: `Bearer ${info.authToken}`, origin: "http://evil.example" }),
    ).toBe(403);
    expect(await raw(port, { authorization: `Bearer ${info.authToken}` }, "/other")).toBe(404);
    expect(await raw(port, { authorization: `Bearer ${info.authToken}` })).toBe(200);
    expect(client.stderr).not.toContain(info.authToken);
  });

  it("lists the companion spec's tools and lockstep's own with the registry's schemas", async () => {
    const { port, info } = await companionOf(client);
    const agent = await AgentClient.connect(port, info.authToken);
    const { tools } = await agent.client.listTools();
    const names = tools.map((t) => t.name);
    // Exactly what the built-in agent's model is given (no wrapped server here), and the spec's two.
    expect([...names].sort()).toEqual(
      [...functionDeclarations().map((d) => d.name), "openDiff", "closeDiff"].sort(),
    );
    expect(names).toEqual(
      expect.arrayContaining([
        "read_file",
        "read_many_files",
        "list_files",
        "search_files",
        "find_files",
        "write_file",
        "safe_patch",
        "edit",
      ]),
    );
    expect(names).not.toContain("apply_edit_blocks");
    for (const name of ["read_file", "safe_patch"]) {
      const tool = tools.find((t) => t.name === name)!;
      expect(tool.inputSchema).toEqual(jsonSchemaOf(findTool(name)!));
      expect(tool.description).toBe(findTool(name)!.description);
    }
    expect(tools.find((t) => t.name === "read_file")?.annotations?.readOnlyHint).toBe(true);
    expect(agent.client.getInstructions()).toMatch(/unsaved buffers/);
    await agent.close();
  });

  it("answers a bad tool call with the registry's envelope, and an unknown tool by name", async () => {
    const { port, info } = await companionOf(client);
    const agent = await AgentClient.connect(port, info.authToken);
    const bad = await agent.envelope("read_file", {});
    expect(bad).toMatchObject({ ok: false, error: { code: "invalid_argument" } });
    expect(await agent.call("frobnicate", {})).toMatchObject({
      isError: true,
      text: expect.stringMatching(/Unknown tool `frobnicate`/),
    });
    expect(await agent.call("openDiff", { filePath: "/etc/passwd", newContent: "x" })).toMatchObject({
      isError: true,
      text: expect.stringMatching(/outside|workspace/i),
    });
    expect(await agent.call("openDiff", { filePath: client.path("src/app.ts") })).toMatchObject({
      isError: true,
      text: expect.stringMatching(/`newContent` is required/),
    });
    await agent.close();
  });
});

describe("lockstep's tools on the editor's buffers", () => {
  afterEach(cleanup);

  it("reads the unsaved buffer with its version, and refuses a stale safe_patch while the user's typing is unsaved", async () => {
    const client = await launch(FILES, { style: "helix", env: { TMPDIR: tmp } });
    const { port, info } = await companionOf(client);
    const agent = await AgentClient.connect(port, info.authToken, "claude-code");
    await client.open("src/app.ts");
    await serverCaughtUp(client);
    const first = await agent.envelope("read_file", { file_path: client.path("src/app.ts") });
    expect(stateOf(first)).toMatchObject({ version: 1, sha256: sha256(FILES["src/app.ts"]) });
    await client.type("src/app.ts", "const b = 2", "const b = 3");
    await serverCaughtUp(client);
    const stale = await agent.envelope("safe_patch", {
      file_path: "src/app.ts",
      unified_diff: "@@ -1,2 +1,2 @@\n-export const a = 1;\n+export const a = 10;\n export const b = 2;\n",
      base_content_sha256: stateOf(first).sha256,
    });
    expect(stale).toMatchObject({ ok: false, error: { code: "state_mismatch" } });
    expect(stateOf(stale)).toMatchObject({
      version: 2,
      content: "export const a = 1;\nexport const b = 3;\n",
    });
    expect(client.buffer("src/app.ts")?.text).toBe("export const a = 1;\nexport const b = 3;\n");
    await agent.close();
  });

  it("asks the user in the editor before an agent's change lands, naming the agent", async () => {
    const asked: string[] = [];
    const client = await launch(FILES, {
      style: "neovim",
      env: { TMPDIR: tmp },
      showMessageRequest: async (params) => {
        asked.push(params.message);
        return params.actions?.find((a) => a.title === "Apply") ?? null;
      },
    });
    const { port, info } = await companionOf(client);
    const agent = await AgentClient.connect(port, info.authToken, "claude-code");
    await client.open("src/app.ts");
    await serverCaughtUp(client);
    const read = await agent.envelope("read_file", { file_path: "src/app.ts" });
    const written = await agent.envelope("edit", {
      file_path: "src/app.ts",
      old_string: "a = 1",
      new_string: "a = 11",
      base_content_sha256: stateOf(read).sha256,
    });
    expect(written).toMatchObject({ ok: true, data: { applied: true } });
    expect(asked).toEqual([expect.stringMatching(/src\/app\.ts with edit from claude-code/)]);
    await client.settled();
    expect(client.buffer("src/app.ts")?.text).toBe("export const a = 11;\nexport const b = 2;\n");
    await agent.close();
  });

  it("announces the open files after didOpen, most recent first, only files on disk", async () => {
    const client = await launch({ ...FILES, "src/b.ts": "b\n" }, { style: "helix", env: { TMPDIR: tmp } });
    const { port, info } = await companionOf(client);
    const agent = await AgentClient.connect(port, info.authToken);
    await client.open("src/app.ts");
    await client.open("src/b.ts");
    await client.open("src/unsaved.ts", "not on disk\n");
    const note = await agent.waitFor("ide/contextUpdate", (p) => JSON.stringify(p).includes("b.ts"));
    const files = (note.params["workspaceState"] as { openFiles: { path: string; isActive?: boolean }[] })
      .openFiles;
    expect(files.map((f) => f.path)).toEqual([client.path("src/b.ts"), client.path("src/app.ts")]);
    expect(files[0]?.isActive).toBe(true);
    await agent.close();
  });

  it("logs agents' calls with --debug, never the token", async () => {
    const client = await launch(FILES, { style: "helix", env: { TMPDIR: tmp }, args: ["--debug"] });
    const { port, info } = await companionOf(client);
    const agent = await AgentClient.connect(port, info.authToken, "codex");
    await agent.envelope("read_file", { file_path: "src/app.ts" });
    await agent.close();
    await client.shutdown();
    expect(client.stderr).toMatch(/"mcp_call":\{"client":"codex","tool":"read_file"/);
    expect(client.stderr).toMatch(/"mcp_result":\{"client":"codex","tool":"read_file"/);
    expect(client.stderr).toContain(`"port":${port}`);
    expect(client.stderr).not.toContain(info.authToken);
  });

  it("starts no endpoint when the setting is off, and says so", async () => {
    const client = await launch(FILES, {
      style: "helix",
      env: { TMPDIR: tmp },
      initializationOptions: { companion: false },
    });
    expect(await companionFacts(client)).toMatchObject({
      enabled: false,
      reason: expect.stringMatching(/companion.*false/),
    });
  });
});
