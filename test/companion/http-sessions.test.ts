// The HTTP side in-process: one MCP session per agent behind the loopback guard,
// notifications to one agent or all, and the end of a session whether the agent
// says goodbye (DELETE) or just leaves (its event stream stays closed).
import { afterEach, describe, expect, it } from "vitest";
import { listenLoopback, newToken, type Endpoint } from "../../server/src/companion/http-endpoint.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { HttpSessions } from "../../server/src/companion/http-sessions.js";
import type { McpTool } from "../../server/src/companion/tool-catalog.js";
import { AgentClient } from "../support/companion-client.js";
import { eventually } from "../support/poll.js";

const echo: McpTool = {
  name: "echo",
  description: "Answers with its argument and the caller.",
  inputSchema: { type: "object", properties: { say: { type: "string" } } },
  call: async (args, call) => ({
    content: [{ type: "text", text: `${String(args["say"])} from ${call.client}` }],
  }),
};

let endpoint: Endpoint | undefined;
afterEach(async () => {
  await endpoint?.close();
  endpoint = undefined;
});

const slow: McpTool = {
  name: "slow",
  description: "Answers after a while.",
  inputSchema: { type: "object", properties: { ms: { type: "number" } } },
  call: async (args) => {
    await new Promise((resolve) => setTimeout(resolve, Number(args["ms"])));
    return { content: [{ type: "text", text: "done" }] };
  },
};

/** An idle time longer than any gap between one client's requests on a loaded 2-core machine. */
const IDLE_UNDER_LOAD_MS = 1_500;

/** Sessions behind a real endpoint; `events` records what the sessions report. */
async function serve(
  idleMs: number,
  maxSessions?: number,
): Promise<{
  sessions: HttpSessions;
  token: string;
  port: number;
  opened: string[];
  closed: Promise<string>;
  allClosed: string[];
}> {
  const opened: string[] = [];
  const allClosed: string[] = [];
  let onClosed: (id: string) => void = () => undefined;
  const closed = new Promise<string>((resolve) => (onClosed = resolve));
  const sessions = new HttpSessions(
    { tools: () => [echo, slow], instructions: "test" },
    {
      streamOpened: (id) => opened.push(id),
      closed: (id) => {
        allClosed.push(id);
        onClosed(id);
      },
    },
    idleMs,
    maxSessions,
  );
  const token = newToken();
  endpoint = await listenLoopback(token, async () => sessions.handle);
  return { sessions, token, port: endpoint.port, opened, closed, allClosed };
}

/**
 * An agent that initializes with the SDK's own transport and then does nothing:
 * no `initialized`, so the transport never opens its event stream. The session id, or the HTTP error.
 */
async function initializeOnly(port: number, token: string): Promise<{ id?: string; error?: string }> {
  const transport = new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  const answered = new Promise<void>((resolve) => (transport.onmessage = () => resolve()));
  await transport.start();
  const initialize: JSONRPCMessage = {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "idle-agent", version: "0" },
    },
  };
  try {
    await transport.send(initialize);
    await answered;
    return { id: transport.sessionId! };
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) };
  }
}

describe("HTTP sessions", () => {
  it("gives each agent its own session, calls its tools as that agent, and notifies one or all", async () => {
    const { sessions, token, port, opened } = await serve(60_000);
    const a = await AgentClient.connect(port, token, "agent-a");
    const b = await AgentClient.connect(port, token, "agent-b");
    expect(await a.call("echo", { say: "hi" })).toEqual({ isError: false, text: "hi from agent-a" });
    expect(await b.call("echo", { say: "hi" })).toEqual({ isError: false, text: "hi from agent-b" });
    expect(sessions.count).toBe(2);
    await eventually(() => opened.length === 2, "both event streams");
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
    // The idle time counts from the initialize's answer: it must outlast the client's next steps
    // (initialized, the stream), which took over 100 ms on a loaded machine and ended it first.
    const { sessions, token, port, opened, closed } = await serve(IDLE_UNDER_LOAD_MS);
    const agent = await AgentClient.connect(port, token);
    await eventually(() => opened.length === 1, "the event stream");
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
      headers: {
        authorization: `Bearer ${token}`,
        "mcp-session-id": String(id),
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }),
    });
    expect(res.status).toBe(404);
    expect(await res.text()).toMatch(/Session not found/);
  });

  it("ends sessions that initialize and never open an event stream, once idle, like any other", async () => {
    const { sessions, token, port, allClosed } = await serve(150);
    const ids = await Promise.all(Array.from({ length: 20 }, () => initializeOnly(port, token)));
    expect(ids.every((r) => r.id !== undefined)).toBe(true);
    await eventually(() => allClosed.length === 20, "the 20 idle sessions to end");
    expect(new Set(allClosed)).toEqual(new Set(ids.map((r) => r.id)));
    expect(sessions.count).toBe(0);
  });

  it("keeps a session whose request is still in progress, however long, and its agent without a stream", async () => {
    const { sessions, token, port, allClosed } = await serve(IDLE_UNDER_LOAD_MS);
    const agent = await AgentClient.connect(port, token);
    expect(await agent.call("slow", { ms: 2 * IDLE_UNDER_LOAD_MS })).toEqual({
      isError: false,
      text: "done",
    });
    expect(allClosed).toEqual([]);
    expect(sessions.count).toBe(1);
    await agent.close();
  });

  it("caps the live sessions: one more initialize is answered 503 with what to do, and a session that ends makes room", async () => {
    const { sessions, token, port } = await serve(60_000, 3);
    const agents = await Promise.all([0, 1, 2].map((i) => AgentClient.connect(port, token, `agent-${i}`)));
    expect(sessions.count).toBe(3);
    const refused = await fetch(`http://127.0.0.1:${port}/mcp`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${token}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: {
          protocolVersion: "2025-06-18",
          capabilities: {},
          clientInfo: { name: "one-too-many", version: "0" },
        },
      }),
    });
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toBe("60");
    expect(await refused.text()).toMatch(
      /3 live MCP sessions, the most it keeps \(3\)\. End a session you no longer use/,
    );
    // The SDK client hears the refusal with its message.
    await expect(AgentClient.connect(port, token, "sdk-too-many")).rejects.toThrow(
      /Service Unavailable: this endpoint has 3 live MCP sessions/,
    );
    await agents[0]!.transport.terminateSession();
    await eventually(() => sessions.count === 2, "the ended session to go");
    const another = await AgentClient.connect(port, token, "agent-3");
    expect(await another.call("echo", { say: "in" })).toEqual({ isError: false, text: "in from agent-3" });
    for (const a of [...agents, another]) await a.close();
  });
});
