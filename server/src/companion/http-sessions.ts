// MCP over Streamable HTTP, one SDK transport and server per agent session:
// each agent (gemini-cli, a `lockstep mcp` relay, …) initializes its own, keeps
// its event stream open for notifications, and ends it with DELETE or by leaving.
// A session nobody uses (no stream open, no request in progress) ends after
// IDLE_SESSION_MS, counted from its creation: an agent that initializes and
// never opens a stream ends like one that leaves. Live sessions are capped.
import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { createMcpServer, type McpServer, type ServerSpec } from "./mcp-server.js";

export interface SessionEvents {
  /** An agent opened its event stream: the moment to tell it the current context. */
  streamOpened(session: string): void;
  closed(session: string): void;
}

interface Live {
  transport: StreamableHTTPServerTransport;
  server: McpServer;
  /** Requests and event streams of this session in progress. */
  busy: number;
  /** Set while nothing of the session is in progress: the session ends unless it comes back. */
  idle?: NodeJS.Timeout;
}

/**
 * An agent that quits without ending its session (gemini-cli closes its stream and leaves)
 * is gone once its event stream stays closed this long; its pending diffs are withdrawn.
 * The SDK's client reconnects a dropped stream within seconds.
 */
export const IDLE_SESSION_MS = 30_000;

/** Live sessions per endpoint at most: each holds an MCP server; a real editor has a handful of agents. */
export const MAX_SESSIONS = 64;

export class HttpSessions {
  private readonly live = new Map<string, Live>();
  /** Initializes in progress, counted against the cap with the live sessions. */
  private starting = 0;

  constructor(
    private readonly spec: ServerSpec,
    private readonly events: SessionEvents,
    private readonly idleMs = IDLE_SESSION_MS,
    private readonly maxSessions = MAX_SESSIONS,
  ) {}

  /** Something of the session starts (a request, a stream): it is not idle until that ends. */
  private enter(session: Live): void {
    session.busy++;
    clearTimeout(session.idle);
    session.idle = undefined;
  }

  /** Something of the session ended: with nothing else in progress, its idle time starts. */
  private leave(id: string, session: Live): void {
    if (--session.busy > 0 || this.live.get(id) !== session) return;
    session.idle = setTimeout(() => void session.transport.close(), this.idleMs);
    session.idle.unref();
  }

  readonly handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const header = req.headers["mcp-session-id"];
    const id = Array.isArray(header) ? header[0] : header;
    if (id !== undefined) {
      const session = this.live.get(id);
      if (!session) {
        res.writeHead(404, { "content-type": "application/json" });
        res.end(
          JSON.stringify({
            jsonrpc: "2.0",
            error: { code: -32001, message: "Session not found: it ended; initialize again." },
            id: null,
          }),
        );
        return;
      }
      this.enter(session);
      res.once("close", () => this.leave(id, session));
      if (req.method === "GET") this.events.streamOpened(id);
      await session.transport.handleRequest(req, res);
      return;
    }
    if (this.live.size + this.starting >= this.maxSessions) {
      res.writeHead(503, {
        "content-type": "application/json",
        "retry-after": String(Math.ceil(this.idleMs / 1000)),
      });
      const message =
        `Service Unavailable: this endpoint has ${this.live.size} live MCP sessions, the most it keeps (${this.maxSessions}). ` +
        `End a session you no longer use (HTTP DELETE with its mcp-session-id), or wait: a session with no open stream and no request ends after ${Math.round(this.idleMs / 1000)} s.`;
      res.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message }, id: null }));
      return;
    }
    // No session yet: this must be an initialize (the transport answers 400 otherwise, and is dropped).
    let sessionId = "";
    this.starting++;
    res.once("close", () => this.starting--);
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (newId) => {
        sessionId = newId;
        const session: Live = { transport, server, busy: 0 };
        this.live.set(newId, session);
        // Its idle time starts once this initialize is answered: a session that never opens a stream ends too.
        this.enter(session);
        res.once("close", () => this.leave(newId, session));
      },
    });
    const server = createMcpServer(this.spec, () => sessionId);
    transport.onclose = () => {
      clearTimeout(this.live.get(sessionId)?.idle);
      if (sessionId === "" || !this.live.delete(sessionId)) return;
      this.events.closed(sessionId);
    };
    await server.connect(transport);
    await transport.handleRequest(req, res);
  };

  /** A notification to one agent; dropped when its event stream is not open (the SDK's rule). */
  notify(session: string, method: string, params: Record<string, unknown>): void {
    this.live
      .get(session)
      ?.server.notification({ method, params })
      .catch(() => undefined);
  }

  broadcast(method: string, params: Record<string, unknown>): void {
    for (const id of this.live.keys()) this.notify(id, method, params);
  }

  get count(): number {
    return this.live.size;
  }

  async close(): Promise<void> {
    const all = [...this.live.values()];
    this.live.clear();
    await Promise.all(all.map((s) => s.server.close().catch(() => undefined)));
  }
}
