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
}

export class HttpSessions {
  private readonly live = new Map<string, Live>();

  constructor(
    private readonly spec: ServerSpec,
    private readonly events: SessionEvents,
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
      if (req.method === "GET") this.events.streamOpened(id);
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
