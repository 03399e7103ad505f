// The user's MCP servers in the language server an editor spawns: lockstep.session names them
// before they start and after; approval auto does not cover an untrusted server's tools, it
// does cover a server the user's file trusts; "always allow this server" is kept in the session.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { ShowMessageRequestParams } from "vscode-languageserver-protocol";
import { afterEach, describe, expect, it } from "vitest";
import { askUntilDone } from "../support/ask-job.js";
import { startFakeOpenAi, type FakeOpenAi } from "../support/fake-openai.js";
import { cleanup, createWorkspace, startServer } from "../support/lsp-client.js";

const TOOLS = path.resolve("test/mcp/fixtures/tools-mcp-server.mjs");
let fake: FakeOpenAi | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
  await cleanup();
});

describe("the user's MCP servers in the language server", () => {
  it("names them in lockstep.session; approval auto asks for an untrusted server, not for a trusted one", async () => {
    const root = await createWorkspace({ "a.txt": "a\n" });
    const config = path.join(root, ".config-home");
    mkdirSync(path.join(config, "lockstep"), { recursive: true });
    const logs = { open: path.join(root, "open.log"), trusted: path.join(root, "trusted.log") };
    const mcpServers = {
      open: { command: process.execPath, args: [TOOLS], env: { TOOLS_LOG: logs.open } },
      sure: { command: process.execPath, args: [TOOLS], env: { TOOLS_LOG: logs.trusted }, trust: true },
    };
    writeFileSync(path.join(config, "lockstep", "config.json"), JSON.stringify({ mcpServers }));
    fake = await startFakeOpenAi([
      { calls: [{ name: "mcp__open__shout", args: { text: "one" } }] },
      { calls: [{ name: "mcp__open__say_hi", args: {} }] },
      { calls: [{ name: "mcp__sure__shout", args: { text: "two" } }] },
      { text: "Done." },
    ]);
    const asked: ShowMessageRequestParams[] = [];
    const client = await startServer({
      root,
      style: "neovim",
      env: { XDG_CONFIG_HOME: config },
      initializationOptions: {
        provider: "openai",
        baseUrl: fake.url,
        model: "fake",
        approval: "auto",
        sessions: false,
      },
      showMessageRequest: (params) => {
        asked.push(params);
        return Promise.resolve(
          params.actions?.find((a) => a.title.startsWith("Always allow server")) ?? null,
        );
      },
    });
    const before = await client.command("session", {});
    expect(
      (before.data?.["mcp_servers"] as { name: string; status: string }[]).map((s) => [s.name, s.status]),
    ).toEqual([
      ["open", "not started"],
      ["sure", "not started"],
    ]);
    const job = await askUntilDone(client, "use them");
    expect(job["status"]).toBe("done");
    // One question, for the untrusted server; its second tool ran under "always allow this server".
    expect(asked.map((a) => a.message)).toEqual([
      'lockstep wants to call shout on the MCP server open with {"text":"one"}.',
    ]);
    expect(readFileSync(logs.open, "utf8")).toContain("say hi {}");
    expect(readFileSync(logs.trusted, "utf8")).toContain('shout {"text":"two"}');
    const after = await client.command("session", {});
    const servers = after.data?.["mcp_servers"] as {
      name: string;
      status: string;
      tools: string[];
      skipped: { tool: string }[];
    }[];
    expect(servers.map((s) => [s.name, s.status, s.tools.length])).toEqual([
      ["open", "connected", 5],
      ["sure", "connected", 5],
    ]);
    expect(servers[0]!.skipped.map((s) => s.tool)).toContain("broken");
    expect(after.data?.["always_allowed"]).toContain("mcp-server:open");
  }, 60_000);
});
