// The MCP servers an ACP client passes with session/new, connected through the
// MCP SDK's client (stdio, and Streamable HTTP), their tools offered to the model
// beside lockstep's own. Each call is approved like a modifying tool: lockstep
// cannot know what another server's tool does. The MCP SDK is loaded only when a
// client passes a server.
import { argumentsTooDeep } from "../jsonrpc/limits.js";
import type { McpServer } from "@agentclientprotocol/sdk";
import type { ExternalTools } from "../agent/run.js";
import type { FunctionCall, FunctionDeclaration } from "../agent/model.js";
import { McpStdioTransport } from "./mcp-stdio-transport.js";
import { errorEnvelope, okEnvelope, type Envelope } from "../tools/envelope.js";
import type { ToolContext } from "../tools/tool.js";

/** How long connecting to one server and listing its tools may take. */
const CONNECT_TIMEOUT_MS = 15_000;

interface Connected {
  server: string;
  tool: string;
  call(args: Record<string, unknown>, signal: AbortSignal): Promise<{ isError?: boolean; content?: unknown }>;
}

/** One server as the session status names it. */
export interface McpServerStatus {
  name: string;
  transport: "stdio" | "http" | "sse";
  status: "connected" | "failed";
  tools: string[];
  error?: string;
}

/** A name every provider accepts for a function (letters, digits, `_`, at most 64), unique per session. */
function functionName(server: string, tool: string, taken: Set<string>): string {
  const base = `mcp__${server}__${tool}`.replace(/[^A-Za-z0-9_]/g, "_").slice(0, 60);
  let name = base;
  for (let n = 2; taken.has(name); n++) name = `${base.slice(0, 57)}_${n}`;
  taken.add(name);
  return name;
}

/** Asks whether an external tool call may run (the session's approval, over ACP). */
export type ExternalApproval = (call: FunctionCall, server: string, ctx: ToolContext) => Promise<boolean>;

export class McpTools implements ExternalTools {
  private readonly byName = new Map<string, Connected>();
  private readonly declared: FunctionDeclaration[] = [];
  readonly status: McpServerStatus[] = [];
  private readonly closers: (() => Promise<void>)[] = [];

  private constructor(private readonly approve: ExternalApproval) {}

  /** Connects to every server; one that fails is named in the status with why, and the others still serve. */
  static async connect(servers: readonly McpServer[], cwd: string, approve: ExternalApproval): Promise<McpTools> {
    const tools = new McpTools(approve);
    const taken = new Set<string>();
    for (const server of servers) await tools.add(server, cwd, taken);
    return tools;
  }

  declarations(): FunctionDeclaration[] {
    return this.declared;
  }

  has(name: string): boolean {
    return this.byName.has(name);
  }

  async run(call: FunctionCall, ctx: ToolContext): Promise<Envelope> {
    const tool = this.byName.get(call.name);
    if (!tool) return errorEnvelope("not_found", `No tool ${call.name} in this session.`);
    const tooDeep = argumentsTooDeep(call.name, call.args);
    if (tooDeep !== undefined) return errorEnvelope("invalid_argument", tooDeep);
    if (!(await this.approve(call, tool.server, ctx))) {
      return errorEnvelope("rejected", `Rejected: the user declined the call of ${tool.tool} on the MCP server ${tool.server}. Nothing was run.`, ["Ask the user what they want instead; do not retry the same call."]);
    }
    if (ctx.signal.aborted) return errorEnvelope("cancelled", "Cancelled: the tool was not run.");
    try {
      const result = await tool.call(call.args, ctx.signal);
      const text = Array.isArray(result.content)
        ? (result.content as { type?: string; text?: string }[]).map((c) => (c.type === "text" ? (c.text ?? "") : `(${c.type ?? "unknown"} content)`)).join("\n")
        : "";
      if (result.isError === true) return errorEnvelope("io_error", `The MCP server ${tool.server} answered ${tool.tool} with an error: ${text || "(no message)"}`);
      return okEnvelope({ message: `${tool.server} ${tool.tool}: done.`, result: text });
    } catch (error) {
      if (ctx.signal.aborted) return errorEnvelope("cancelled", `Cancelled while ${tool.tool} ran on ${tool.server}.`);
      return errorEnvelope("io_error", `The MCP server ${tool.server} failed on ${tool.tool}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  async close(): Promise<void> {
    await Promise.all(this.closers.map((close) => close().catch(() => undefined)));
  }

  private async add(server: McpServer, cwd: string, taken: Set<string>): Promise<void> {
    const transportName = "type" in server ? server.type : "stdio";
    if (transportName === "sse") {
      this.status.push({ name: server.name, transport: "sse", status: "failed", tools: [], error: "SSE servers are not supported (mcpCapabilities.sse is false); use stdio or http" });
      return;
    }
    let stdio: McpStdioTransport | undefined;
    let closeFailed: (() => Promise<void>) | undefined;
    try {
      const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
      const client = new Client({ name: "lockstep", version: "1" });
      closeFailed = () => client.close();
      let transport;
      if ("command" in server) {
        const env = { ...process.env, ...Object.fromEntries(server.env.map((e) => [e.name, e.value])) };
        transport = stdio = new McpStdioTransport(server.name, { command: server.command, args: server.args, env, cwd });
      } else {
        const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/sdk/client/streamableHttp.js");
        const headers = Object.fromEntries(server.headers.map((h) => [h.name, h.value]));
        transport = new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers } });
      }
      await client.connect(transport, { timeout: CONNECT_TIMEOUT_MS });
      this.closers.push(() => client.close());
      const listed = await client.listTools(undefined, { timeout: CONNECT_TIMEOUT_MS });
      const names: string[] = [];
      for (const t of listed.tools) {
        const name = functionName(server.name, t.name, taken);
        names.push(t.name);
        this.declared.push({ name, description: `${t.description ?? t.name} (tool ${t.name} of the MCP server ${server.name}, which the editor provided; every call asks the user)`, parametersJsonSchema: t.inputSchema as Record<string, unknown> });
        this.byName.set(name, {
          server: server.name,
          tool: t.name,
          call: async (args, signal) => (await client.callTool({ name: t.name, arguments: args }, undefined, { signal })) as { isError?: boolean; content?: unknown },
        });
      }
      this.status.push({ name: server.name, transport: transportName, status: "connected", tools: names });
    } catch (error) {
      // A server dropped for what it sent is named for that, not for the request it left unanswered.
      const why = stdio?.dropped ?? (error instanceof Error ? error.message : String(error));
      // A server that failed to connect is not left running.
      await closeFailed?.().catch(() => undefined);
      this.status.push({ name: server.name, transport: transportName, status: "failed", tools: [], error: why });
    }
  }
}
