// One MCP server over a tool catalog, built with the official SDK. This file and
// the two transports beside it (http-sessions.ts, stdio-command.ts) are the only
// ones that load the SDK, and they are loaded on first use: the SDK stays in
// node_modules, outside the bundle (scripts/bundle.mjs).
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
  type CallToolResult,
  type Notification,
  type Request,
  type Result,
} from "@modelcontextprotocol/sdk/types.js";
import { VERSION } from "../version.js";
import { unknownToolAnswer, type McpTool } from "./tool-catalog.js";

export type McpServer = Server<Request, Notification, Result>;

export interface ServerSpec {
  tools: () => readonly McpTool[];
  /** What an agent's initialize result says about this server: where the text comes from. */
  instructions: string;
}

export function createMcpServer(spec: ServerSpec, session: () => string): McpServer {
  const server = new Server<Request, Notification, Result>(
    { name: "lockstep", version: VERSION },
    { capabilities: { tools: {} }, instructions: spec.instructions },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: spec.tools().map((t) => ({
      name: t.name,
      description: t.description,
      inputSchema: t.inputSchema as { type: "object" },
      ...(t.annotations ? { annotations: t.annotations } : {}),
    })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const tools = spec.tools();
    const tool = tools.find((t) => t.name === request.params.name);
    if (!tool) return { ...unknownToolAnswer(request.params.name, tools) };
    const client = server.getClientVersion()?.name ?? "agent";
    return {
      ...(await tool.call(request.params.arguments ?? {}, {
        signal: extra.signal,
        session: session(),
        client,
      })),
    };
  });
  return server;
}
