// The HTTP side in-process: one MCP session per agent behind the loopback guard,
// notifications to one agent or all, and the end of a session whether the agent
// says goodbye (DELETE) or just leaves (its event stream stays closed).
import { afterEach, describe, expect, it } from "vitest";
import { listenLoopback, newToken, type Endpoint } from "../../server/src/companion/http-endpoint.js";
import { HttpSessions } from "../../server/src/companion/http-sessions.js";
import type { McpTool } from "../../server/src/companion/tool-catalog.js";
import { AgentClient } from "../support/companion-client.js";

const echo: McpTool = {
  name: "echo",
  description: "Answers with its argument and the caller.",
  inputSchema: { type: "object", properties: { say: { type: "string" } } },
  call: async (args, call) => ({ content: [{ type: "text", text: `${String(args["say"])} from ${call.client}` }] }),
};

let endpoint: Endpoint | undefined;
afterEach(async () => {
  await endpoint?.close();
  endpoint = undefined;
});

/** Sessions behind a real endpoint; `events` records what the sessions report. */
async function serve(idleMs: number): Promise<{ sessions: HttpSessions; token: string; port: number; opened: string[]; closed: Promise<string> }> {
  const opened: string[] = [];
  let onClosed: (id: string) => void = () => undefined;
  const closed = new Promise<string>((resolve) => (onClosed = resolve));
  const sessions = new HttpSessions({ tools: () => [echo], instructions: "test" }, { streamOpened: (id) => opened.push(id), closed: (id) => onClosed(id) }, idleMs);
  const token = newToken();
  endpoint = await listenLoopback(token, async () => sessions.handle);
  return { sessions, token, port: endpoint.port, opened, closed };
}

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 250 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 20));
  if (!check()) throw new Error(`timed out waiting for ${what}`);
}

describe("HTTP sessions", () => {
  it("gives each agent its own session, calls its tools as that agent, and notifies one or all", async () => {
    const { sessions, token, port, opened } = await serve(60_000);
    const a = await AgentClient.connect(port, token, "agent-a");
    const b = await AgentClient.connect(port, token, "agent-b");
    expect(await a.call("echo", { say: "hi" })).toEqual({ isError: false, text: "hi from agent-a" });
    expect(await b.call("echo", { say: "hi" })).toEqual({ isError: false, text: "hi from agent-b" });
    expect(sessions.count).toBe(2);
    await until(() => opened.length === 2, "both event streams");
    sessions.notify(opened[0]!, "ide/only", { n: 1 });
    sessions.broadcast("ide/all", { n: 2 });
    const [first, second] = opened[0] === a.transport.sessionId ? [a, b] : [b, a];
    expect((await first.waitFor("ide/only")).params).toEqual({ n: 1 });
    expect((await second.waitFor("ide/all")).params).toEqual({ n: 2 });
    expect(second.notes.some((n) => n.method === "ide/only")).toBe(false);
    await a.close();
    await b.close();
  });

  it("ends a session whose agent left without a word once its event stream stays closed", async () => {
    const { sessions, token, port, opened, closed } = await serve(100);
    const agent = await AgentClient.connect(port, token);
    await until(() => opened.length === 1, "the event stream");
    await agent.close(); // closes the stream, sends no DELETE
    expect(await closed).toBe(opened[0]);
    expect(sessions.count).toBe(0);
  });

  it("ends a session at once on DELETE, and answers a request for an ended session with 404", async () => {
    const { sessions, token, port, closed } = await serve(60_000);
    const agent = await AgentClient.connect(port, token);
    const id = agent.transport.sessionId;
    await agent.transport.terminateSession();
    expect(await closed).toBe(id);
    expect(sessions.count).toBe(0);
    const res = await fetch(`http://127.0.0.1:${port}/mcp`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "mcp-session-id": String(id), "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }),
    });
    expect(res.status).toBe(404);
    expect(await res.text()).toMatch(/Session not found/);
  });
});
