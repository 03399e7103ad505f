// lockstep acp with the user's MCP servers (`mcpServers` in the user file) and the client's
// (session/new) together: one path connects both, the client's wins on a name, the
// settings' start with the first prompt, not with the session.
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { methods, type McpServer } from "@agentclientprotocol/sdk";
import { afterEach, describe, expect, it } from "vitest";
import { closeAll, startEditor } from "./scripted-editor.js";

afterEach(closeAll);

const SHOUT = path.resolve("test/acp/fixtures/shout-mcp-server.mjs");
const TOOLS = path.resolve("test/mcp/fixtures/tools-mcp-server.mjs");

describe("lockstep acp with the settings' MCP servers and the client's", () => {
  it("offers both, the client's winning on a name clash; the settings' start with the first prompt", async () => {
    const config = mkdtempSync(path.join(os.tmpdir(), "lockstep-acp-mcp-config-"));
    const logs = {
      client: path.join(config, "client.log"),
      settingsLoud: path.join(config, "settings-loud.log"),
      solo: path.join(config, "solo.log"),
    };
    mkdirSync(path.join(config, "lockstep"));
    const mcpServers = {
      loud: { command: process.execPath, args: [TOOLS], env: { TOOLS_LOG: logs.settingsLoud } },
      solo: { command: process.execPath, args: [SHOUT], env: { SHOUT_LOG: logs.solo } },
    };
    writeFileSync(path.join(config, "lockstep", "config.json"), JSON.stringify({ mcpServers }));
    const editor = await startEditor({
      turns: [
        { calls: [{ name: "mcp__loud__shout", args: { text: "from client" } }] },
        { calls: [{ name: "mcp__solo__shout", args: { text: "from settings" } }] },
        { text: ["Both."] },
      ],
      env: { XDG_CONFIG_HOME: config },
      permission: () => "allow_once",
    });
    const client: McpServer[] = [
      {
        name: "loud",
        command: process.execPath,
        args: [SHOUT],
        env: [{ name: "SHOUT_LOG", value: logs.client }],
      },
    ];
    const created = await editor.conn.agent.request(methods.agent.session.new, {
      cwd: editor.root,
      mcpServers: client,
    });
    const status = created._meta?.["lockstep"] as {
      mcp_servers: { name: string; from: string; status: string }[];
      mcp_problems?: string[];
    };
    expect(status.mcp_servers.map((s) => [s.name, s.from, s.status])).toEqual([
      ["loud", "client", "connected"],
      ["solo", path.join(config, "lockstep", "config.json"), "not started"],
    ]);
    expect(status.mcp_problems?.join("\n")).toContain('MCP server "loud" is named by the client and by');
    const answer = await editor.conn.agent.request(methods.agent.session.prompt, {
      sessionId: created.sessionId,
      prompt: [{ type: "text", text: "shout" }],
    });
    expect(answer.stopReason).toBe("end_turn");
    expect(readFileSync(logs.client, "utf8")).toBe("from client\n");
    expect(readFileSync(logs.solo, "utf8")).toBe("from settings\n");
    // The settings' server of the same name never ran.
    expect(() => readFileSync(logs.settingsLoud, "utf8")).toThrow();
    expect(editor.permissions).toHaveLength(2);
    expect(editor.permissions[0]!.options.map((o) => o.optionId)).toContain("allow_always_server");
  }, 60_000);
});
