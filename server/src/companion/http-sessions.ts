// MCP over Streamable HTTP, one SDK transport and server per agent session:
// each agent (gemini-cli, a `lockstep mcp` relay, …) initializes its own, keeps
// its event stream open for notifications, and ends it with DELETE or by leaving.
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
  /** Set while the agent's event stream is closed: the session ends unless it comes back. */
  idle?: NodeJS.Timeout;
}

/**
 * An agent that quits without ending its session (gemini-cli closes its stream and leaves)
 * is gone once its event stream stays closed this long; its pending diffs are withdrawn.
 * The SDK's client reconnects a dropped stream within seconds.
 */
export const IDLE_SESSION_MS = 30_000;

export class HttpSessions {
  private readonly live = new Map<string, Live>();

  constructor(
    private readonly spec: ServerSpec,
    private readonly events: SessionEvents,
    private readonly idleMs = IDLE_SESSION_MS,
  ) {}

  readonly handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const header = req.headers["mcp-session-id"];
    const id = Array.isArray(header) ? header[0] : header;
    if (id !== undefined) {
      const session = this.live.get(id);
      if (!session) {
        res.writeHead(404, { "content-type": "application/json" });
        res.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32001, message: "Session not found: it ended; initialize again." }, id: null }));
        return;
      }
      if (req.method === "GET") {
        clearTimeout(session.idle);
        session.idle = undefined;
        this.events.streamOpened(id);
        res.once("close", () => {
          if (!this.live.has(id)) return;
          session.idle = setTimeout(() => void session.transport.close(), this.idleMs);
          session.idle.unref();
        });
      }
      await session.transport.handleRequest(req, res);
      return;
    }
    // No session yet: this must be an initialize (the transport answers 400 otherwise, and is dropped).
    let sessionId = "";
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (newId) => {
        sessionId = newId;
        this.live.set(newId, { transport, server });
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
    this.live.get(session)?.server.notification({ method, params }).catch(() => undefined);
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
