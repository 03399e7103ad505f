// The MCP servers an ACP client passes with session/new: connected, named in the
// session's status, their tools offered to the model and asked about like a change.
import { existsSync, readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { McpServer as McpSdkServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import * as z from "zod";
import { methods, type McpServer } from "@agentclientprotocol/sdk";
import { afterEach, describe, expect, it } from "vitest";
import { closeAll, contentText, messageText, startEditor } from "./scripted-editor.js";

afterEach(closeAll);

const FIXTURE = path.resolve("test/acp/fixtures/shout-mcp-server.mjs");

describe("lockstep acp and the client's MCP servers", () => {
  it("offers a client's stdio MCP server's tool to the model, asks before each call, and names the server in the status", async () => {
    const editor = await startEditor({
      turns: [
        { calls: [{ name: "mcp__loud__shout", args: { text: "hello" } }] },
        { calls: [{ name: "mcp__loud__shout", args: { text: "again" } }] },
        { text: ["Shouted."] },
      ],
      permission: (request) =>
        String(request.toolCall.rawInput && (request.toolCall.rawInput as { text?: string }).text) === "again"
          ? "reject_once"
          : "allow_once",
    });
    const log = path.join(editor.root, "shout.log");
    const mcpServers: McpServer[] = [
      { name: "loud", command: process.execPath, args: [FIXTURE], env: [{ name: "SHOUT_LOG", value: log }] },
    ];
    const created = await editor.conn.agent.request(methods.agent.session.new, {
      cwd: editor.root,
      mcpServers,
    });
    expect(created._meta?.["lockstep"]).toMatchObject({
      mcp_servers: [{ name: "loud", transport: "stdio", status: "connected", tools: ["shout"] }],
    });
    const answer = await editor.conn.agent.request(methods.agent.session.prompt, {
      sessionId: created.sessionId,
      prompt: [{ type: "text", text: "shout hello" }],
    });
    expect(answer.stopReason).toBe("end_turn");
    await editor.waitForUpdate((u) => messageText([u]).includes("Shouted."));
    expect(editor.permissions).toHaveLength(2);
    const results = editor.updates.filter(
      (u) =>
        u.update.sessionUpdate === "tool_call_update" &&
        (u.update.status === "completed" || u.update.status === "failed"),
    );
    expect(results.map((u) => (u.update as { status: string }).status)).toEqual(["completed", "failed"]);
    expect(JSON.stringify(results[0]!.update)).toContain("HELLO");
    expect(contentText(results[1]!)).toContain("Rejected");
    // Only the allowed call ran.
    expect(readFileSync(log, "utf8")).toBe("hello\n");
  });

  it("names a server that cannot start in the status, and the session still works", async () => {
    const editor = await startEditor({ turns: [{ text: ["fine"] }] });
    const created = await editor.conn.agent.request(methods.agent.session.new, {
      cwd: editor.root,
      mcpServers: [{ name: "broken", command: path.join(editor.root, "no-such-binary"), args: [], env: [] }],
    });
    const status = created._meta?.["lockstep"] as {
      mcp_servers: { name: string; status: string; error?: string }[];
    };
    expect(status.mcp_servers[0]).toMatchObject({ name: "broken", status: "failed" });
    expect(status.mcp_servers[0]!.error).toBeTruthy();
    expect(
      (
        await editor.conn.agent.request(methods.agent.session.prompt, {
          sessionId: created.sessionId,
          prompt: [{ type: "text", text: "hi" }],
        })
      ).stopReason,
    ).toBe("end_turn");
    expect(existsSync(path.join(editor.root, "no-such-binary"))).toBe(false);
  });
});

describe("lockstep acp and a client's HTTP MCP server", () => {
  it("connects over Streamable HTTP with the client's headers and calls its tool", async () => {
    const calls: string[] = [];
    const headers: (string | undefined)[] = [];
    // Stateless: a server and a transport per request, as the MCP SDK's examples do.
    const http = createServer((req, res) => {
      headers.push(req.headers["x-team"] as string | undefined);
      const server = new McpSdkServer({ name: "count", version: "1.0.0" });
      server.registerTool(
        "count",
        { description: "Counts the letters of a word.", inputSchema: { word: z.string() } },
        ({ word }) => {
          calls.push(word);
          return { content: [{ type: "text", text: String(word.length) }] };
        },
      );
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      res.on("close", () => void transport.close());
      void server.connect(transport).then(() => transport.handleRequest(req, res));
    });
    await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
    try {
      const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
      const editor = await startEditor({
        turns: [
          { calls: [{ name: "mcp__letters__count", args: { word: "lockstep" } }] },
          { text: ["Eight."] },
        ],
        args: ["--approval", "auto"],
      });
      const created = await editor.conn.agent.request(methods.agent.session.new, {
        cwd: editor.root,
        mcpServers: [{ type: "http", name: "letters", url, headers: [{ name: "x-team", value: "acp" }] }],
      });
      expect(created._meta?.["lockstep"]).toMatchObject({
        mcp_servers: [{ name: "letters", transport: "http", status: "connected", tools: ["count"] }],
      });
      await editor.conn.agent.request(methods.agent.session.prompt, {
        sessionId: created.sessionId,
        prompt: [{ type: "text", text: "count" }],
      });
      const done = await editor.waitForUpdate(
        (u) => u.update.sessionUpdate === "tool_call_update" && u.update.status === "completed",
      );
      expect((done.update as { rawOutput?: { data?: { result?: string } } }).rawOutput?.data?.result).toBe(
        "8",
      );
      expect(calls).toEqual(["lockstep"]);
      expect(headers.every((h) => h === "acp")).toBe(true);
    } finally {
      http.close();
    }
  });
});
