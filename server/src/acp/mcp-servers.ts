// The MCP servers an ACP client passes with session/new, in the shape the settings' servers
// have (config/mcp-servers.ts), so both are connected by one path (mcp/). SSE is not
// offered (mcpCapabilities.sse is false): such a server is named, not connected.
import type { McpServer } from "@agentclientprotocol/sdk";
import type { McpSource } from "../mcp/mcp-tools.js";

export interface ClientServers {
  sources: McpSource[];
  /** Servers that cannot be connected, as the session status names them. */
  refused: { name: string; transport: string; status: "failed"; tools: string[]; error: string }[];
}

const common = { enabled: true, trust: false } as const;

export function clientServers(servers: readonly McpServer[]): ClientServers {
  const out: ClientServers = { sources: [], refused: [] };
  for (const server of servers) {
    if ("type" in server && server.type === "sse") {
      out.refused.push({
        name: server.name,
        transport: "sse",
        status: "failed",
        tools: [],
        error: "SSE servers are not supported (mcpCapabilities.sse is false); use stdio or http",
      });
    } else if ("command" in server) {
      const env = Object.fromEntries(server.env.map((e) => [e.name, e.value]));
      out.sources.push({
        from: "client",
        config: {
          name: server.name,
          transport: "stdio",
          command: server.command,
          args: server.args,
          env,
          ...common,
        },
      });
    } else {
      const headers = Object.fromEntries(server.headers.map((h) => [h.name, h.value]));
      out.sources.push({
        from: "client",
        config: { name: server.name, transport: "http", url: server.url, headers, ...common },
      });
    }
  }
  return out;
}
