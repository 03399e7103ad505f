// The companion's HTTP listener: loopback only, port 0, one path (/mcp), and a
// bearer token checked on every request before anything else runs. Plain
// node:http, so a session that no agent ever connects to never loads the MCP SDK;
// the handler behind the guard is loaded on the first authorized request.
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";

export const MCP_PATH = "/mcp";

export type RequestHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

export interface Endpoint {
  port: number;
  close(): Promise<void>;
}

/** A fresh secret for one endpoint: 32 random bytes, hex. */
export function newToken(): string {
  return randomBytes(32).toString("hex");
}

/** Constant-time, whatever the lengths: both sides are hashed to 32 bytes first. */
export function tokenMatches(given: string, token: string): boolean {
  const a = createHash("sha256").update(given).digest();
  const b = createHash("sha256").update(token).digest();
  return timingSafeEqual(a, b);
}

const LOOPBACK_HOSTS = new Set(["127.0.0.1", "localhost", "[::1]"]);

/** Host must name loopback on our port; Origin, when sent (browsers), must be loopback too. Stops DNS rebinding. */
function loopbackRequest(req: IncomingMessage, port: number): boolean {
  const host = req.headers.host;
  if (host === undefined || !LOOPBACK_HOSTS.has(host.replace(/:\d+$/, "")) || !host.endsWith(`:${port}`))
    return false;
  const origin = req.headers.origin;
  if (origin === undefined) return true;
  try {
    const url = new URL(origin);
    return (
      (url.protocol === "http:" || url.protocol === "https:") &&
      LOOPBACK_HOSTS.has(url.hostname === "::1" ? "[::1]" : url.hostname)
    );
  } catch {
    return false;
  }
}

function refuse(
  res: ServerResponse,
  status: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32001, message }, id: null }));
}

/**
 * The first request that passes the guard; exported for tests of the guard's
 * order: origin and host, then the token, then the path.
 */
export function guard(req: IncomingMessage, res: ServerResponse, token: string, port: number): boolean {
  if (!loopbackRequest(req, port)) {
    refuse(
      res,
      403,
      "Forbidden: lockstep's companion endpoint answers loopback requests only (Host and Origin must be 127.0.0.1 or localhost).",
    );
    return false;
  }
  const auth = req.headers.authorization ?? "";
  const given = /^Bearer (.+)$/i.exec(auth)?.[1]?.trim();
  if (given === undefined || !tokenMatches(given, token)) {
    refuse(
      res,
      401,
      "Unauthorized: send the authToken of the discovery file as `Authorization: Bearer <token>`.",
      { "www-authenticate": "Bearer" },
    );
    return false;
  }
  const path = (req.url ?? "").split("?")[0];
  if (path !== MCP_PATH) {
    refuse(res, 404, `Not found: the MCP endpoint is ${MCP_PATH}.`);
    return false;
  }
  return true;
}

/** Listens on 127.0.0.1, port 0. `load` gives the handler on first use (then kept). */
export async function listenLoopback(token: string, load: () => Promise<RequestHandler>): Promise<Endpoint> {
  let handler: Promise<RequestHandler> | undefined;
  let port = 0;
  const server: Server = createServer((req, res) => {
    if (!guard(req, res, token, port)) return;
    // A failed load is not kept: the next request tries again.
    handler ??= load().catch((error: unknown) => {
      handler = undefined;
      throw error;
    });
    handler
      .then((handle) => handle(req, res))
      .catch((error: unknown) => {
        if (!res.headersSent)
          refuse(res, 500, `Internal Error: ${error instanceof Error ? error.message : String(error)}`);
        else res.end();
      });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address();
  if (address === null || typeof address === "string")
    throw new Error("the companion endpoint has no TCP address");
  port = address.port;
  // An agent's open event stream must not keep the process alive once the editor is gone.
  server.unref();
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
